"""A game's rules in a player's words: the summary each game ships beside its templates.

A game writes its rules summary as Markdown, one file per language, in a folder ``rules`` of its
templates folder (``Game.templates()/rules/<lang>.md``: ``en.md``, ``de.md``, ``nl.md``,
``fr.md``): everything a player needs to choose an order, each rule with the page of its
rulebook, in the words of the game's glossary. English is the one a game must ship
(:func:`adjudicator.testing.check_templates` asks for it); a language the game has no file for
gets the English one. The welcome mail, docs/rules/ and the site's rules pages read them here.

On the static site a summary is a page of its own (:func:`summary_html`): CommonMark rendered by
markdown-it-py, with raw HTML in the Markdown shown as text, never passed on, so a game's summary
cannot put a script, a style sheet or a fetched picture into a page.

In the text of a mail a summary is plain text (:func:`summary_text`): the same Markdown parsed
by markdown-it-py and written out without its marks (no ``**``, no ``#``, a link as its text
and its address), headings underlined, lists and the Markdown's own line breaks kept; inline
code keeps its backticks, which mark what a player writes in an order.

Both are kept in the user's cache folder (:mod:`adjudicator.store.usercache`, ``rules/``), keyed
on the Markdown, the adjudicator's version, this module's code and markdown-it-py's files: the
next site or welcome that words the same summary reads it back without loading markdown-it-py
(importing it took longer than rendering the four languages of a game). A missing or damaged
entry is rendered afresh.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from adjudicator import __version__
from adjudicator.rules.lang import DEFAULT, LANGUAGES
from adjudicator.store import usercache
from adjudicator.store.registry import load_game

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from markdown_it.tree import SyntaxTreeNode

    from adjudicator.rules.contract import Game

FOLDER = "rules"
"""The folder of a game's templates that holds its summaries."""
KEPT = 64
"""How many rendered summaries the cache folder keeps (those used longest ago go first): one
for each game, language and kind (HTML, text) of each install."""


def summary_file(game: Game, lang: str) -> Traversable | None:
    """The file of ``game``'s summary in ``lang``, else its English one; None when it ships
    neither."""
    folder = game.templates() / FOLDER
    for wanted in (lang if lang in LANGUAGES else DEFAULT, DEFAULT):
        found = folder / f"{wanted}.md"
        if found.is_file():
            return found
    return None


def summary_of(game: Game, lang: str) -> str | None:
    """The Markdown text of ``game``'s rules summary in ``lang`` (English when the game has
    none in ``lang``); None when the game ships no summary."""
    found = summary_file(game, lang)
    return None if found is None else found.read_text(encoding="utf-8")


def languages(game: Game) -> list[str]:
    """The languages ``game`` ships its summary in, in the adjudicator's order (en, de, nl,
    fr): each has its own file."""
    folder = game.templates() / FOLDER
    return [lang for lang in LANGUAGES if (folder / f"{lang}.md").is_file()]


def summary_html(game: Game, lang: str) -> str | None:
    """``game``'s summary in ``lang`` (English when it has none in ``lang``) as HTML, for the
    inside of a page; None when the game ships no summary."""
    text = summary_of(game, lang)
    return None if text is None else _html(text)


@functools.lru_cache(maxsize=16)
def _html(text: str) -> str:
    """The Markdown ``text`` as HTML, kept by the text itself: a ``send`` words the same
    summary in the welcome of every player who reads its language."""
    return _kept("html", text, _rendered_html)


def _rendered_html(text: str) -> str:
    from markdown_it import MarkdownIt  # only pages render one

    return str(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def summary_text(game: Game, lang: str) -> str | None:
    """``game``'s summary in ``lang`` (English when it has none in ``lang``) as plain text, for
    the text of a mail; None when the game ships no summary."""
    text = summary_of(game, lang)
    return None if text is None else _text(text)


@functools.lru_cache(maxsize=16)
def _text(text: str) -> str:
    """The Markdown ``text`` as plain text (kept by the text itself, as :func:`_html`)."""
    return _kept("text", text, _rendered_text)


def _kept(kind: str, text: str, render: Callable[[str], str]) -> str:
    """``render(text)``, from the user's cache when it was rendered before (see the module's
    docstring); ``kind`` names what is rendered (``html``, ``text``)."""
    key = hashlib.sha256(f"{_program()}\0{kind}\0{text}".encode())
    entry = usercache.folder("rules") / f"{key.hexdigest()}.txt"
    kept = usercache.read(entry)
    if kept is not None:
        try:
            return kept.decode("utf-8")
        except UnicodeDecodeError:  # not written by this module: rendered afresh
            pass
    rendered = render(text)
    usercache.write(entry, rendered.encode(), keep=KEPT)
    return rendered


@functools.cache
def _program() -> str:
    """What the summaries are rendered by: the adjudicator's version, this module's code and
    markdown-it-py's files (found without importing it)."""
    try:
        code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:
        code = "unknown"
    spec = importlib.util.find_spec("markdown_it")
    origin = spec.origin if spec is not None and spec.origin else ""
    return "\n".join([__version__, code, usercache.fingerprint(os.path.dirname(origin))])


def _rendered_text(text: str) -> str:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

    tokens = MarkdownIt("commonmark", {"html": False}).enable("table").parse(text)
    lines = _plain(SyntaxTreeNode(tokens)).strip("\n").split("\n")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _plain(node: SyntaxTreeNode) -> str:
    """A block of the Markdown's tree, and what it holds, as plain text."""
    kind = node.type
    if kind == "inline":
        return "".join(_inline(child) for child in node.children)
    if kind == "heading":
        words = _plain(node.children[0])
        rule = {"h1": "=", "h2": "-"}.get(node.tag)
        return words if rule is None else f"{words}\n{rule * len(words)}"
    if kind in ("bullet_list", "ordered_list"):
        start = int(str(node.attrs.get("start", 1)))
        items = []
        for number, item in enumerate(node.children, start):
            mark = "- " if kind == "bullet_list" else f"{number}. "
            body = _join(item.children, item)
            items.append(mark + body.replace("\n", "\n" + " " * len(mark)))
        return _join_texts(items, tight=_tight(node))
    if kind in ("fence", "code_block"):
        return "\n".join("    " + line for line in node.content.rstrip("\n").split("\n"))
    if kind == "blockquote":
        return "\n".join(f"> {line}".rstrip() for line in _join(node.children, node).split("\n"))
    if kind == "hr":
        return "-" * 20
    if kind == "tr":
        return " | ".join(_plain(cell) for cell in node.children)
    if kind in ("th", "td"):
        return "".join(_plain(child) for child in node.children)
    if kind in ("table", "thead", "tbody"):
        return "\n".join(_plain(child) for child in node.children)
    return _join(node.children, node)  # the root, a paragraph, a list item


def _join(children: list[SyntaxTreeNode], parent: SyntaxTreeNode) -> str:
    """Blocks one after the other: a blank line between them, none in a tight list's item."""
    if parent.type == "paragraph":
        return "".join(_plain(child) for child in children)
    return _join_texts([_plain(child) for child in children], tight=_tight(parent))


def _join_texts(texts: list[str], *, tight: bool) -> str:
    return ("\n" if tight else "\n\n").join(text for text in texts if text)


def _tight(node: SyntaxTreeNode) -> bool:
    """Whether ``node`` is a tight list or an item of one (its paragraphs hidden)."""
    if node.type in ("bullet_list", "ordered_list") and node.children:
        node = node.children[0]
    paragraphs = [child for child in node.children if child.type == "paragraph"]
    return node.type == "list_item" and all(child.hidden for child in paragraphs)


def _inline(node: SyntaxTreeNode) -> str:
    """An inline piece as plain text: its words without the marks; a link as its words and,
    when they are not the address itself, the address in brackets."""
    kind = node.type
    if kind in ("softbreak", "hardbreak"):
        return "\n"
    if kind == "code_inline":
        return f"`{node.content}`"
    if kind == "image":
        return "".join(_inline(child) for child in node.children)
    words = node.content if kind == "text" else "".join(_inline(c) for c in node.children)
    if kind == "link":
        href = str(node.attrs.get("href", ""))
        return words if words in (href, href.removeprefix("mailto:")) else f"{words} ({href})"
    return words


def summary(game_name: str, lang: str) -> str | None:
    """The rules summary of the installed game ``game_name`` in ``lang``, falling back to
    English; None when the game ships none. A name no installed game has raises
    :class:`~adjudicator.rules.errors.UsageProblem`."""
    return summary_of(load_game(game_name), lang)
