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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adjudicator.rules.lang import DEFAULT, LANGUAGES
from adjudicator.store.registry import load_game

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from adjudicator.rules.contract import Game

FOLDER = "rules"
"""The folder of a game's templates that holds its summaries."""


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
    if text is None:
        return None
    from markdown_it import MarkdownIt  # only the site renders one

    return str(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


def summary(game_name: str, lang: str) -> str | None:
    """The rules summary of the installed game ``game_name`` in ``lang``, falling back to
    English; None when the game ships none. A name no installed game has raises
    :class:`~adjudicator.rules.errors.UsageProblem`."""
    return summary_of(load_game(game_name), lang)
