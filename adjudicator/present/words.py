"""Codes to words: every :class:`~adjudicator.rules.contract.Msg` is rendered here, and only here.

The English text of every code lives in YAML files, ``texts/*.yaml``: the adjudicator's own in
``templates/common/texts/``, each game's in its templates folder (``Game.templates()/texts/``).
A text is a :meth:`str.format` string over the message's parameters::

    card-not-in-hand: "you have no {card} in your hand; your hand: {hand}"
    types-held:                      # by the parameter ``count``: one, or any other number
      one: "{count} type"
      other: "{count} types"

Other languages come from gettext catalogs (:mod:`adjudicator.present.catalogs`): a code is
looked up with the code as the context and the English text as the message id. Parameters are
rendered before they are put in: a ``Msg`` as its own words, a list as its items
joined by ``, `` (``{name:or}`` puts the reader's `` or `` before the last, ``{name:and}`` their
`` and ``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import string
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.present.catalogs import translations
from adjudicator.rules import shipped
from adjudicator.rules.contract import Game, Msg
from adjudicator.store import usercache

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

Text = str | dict[str, str]
"""A code's English text: one string, or ``{"one": ..., "other": ...}`` by ``count``."""


class MissingText(KeyError):
    """A code that no texts file names (a bug: every code a program makes has its text)."""


KEPT_FORMAT = b"adjudicator texts 1\n"
"""Begins what names a kept entry: a change to what :func:`read_texts` makes of the files
changes it, so that entries kept by an earlier program are not read."""
KEPT_ENTRIES = 32
"""How many entries the texts' cache folder keeps (those used longest ago go first): one for
each folder of texts of each install, and one more each time a folder's files change."""


def read_texts(folder: Traversable) -> dict[str, Text]:
    """Every code of the ``*.yaml`` files in ``folder`` (none when it does not exist). What the
    files say is kept in the user's cache folder, named by the folder and the files' names and
    bytes, so that a command that words a message reads JSON instead of parsing YAML (some
    seventy times as fast)."""
    if not folder.is_dir():
        return {}
    files = [
        (item.name, item.read_bytes())
        for item in sorted(folder.iterdir(), key=lambda i: i.name)
        if item.name.endswith(".yaml")
    ]
    named = hashlib.sha256(KEPT_FORMAT)
    named.update(str(folder).encode("utf-8", "surrogateescape") + b"\0")
    for name, data in files:
        named.update(f"{name}\0{len(data)}\0".encode() + data)
    entry = usercache.folder("texts") / f"{named.hexdigest()}.json"
    kept = _kept(entry)
    if kept is not None:
        return kept
    texts = _parsed(files)
    if _plain(texts):
        with contextlib.suppress(ValueError):  # a lone surrogate, which UTF-8 cannot hold
            data = json.dumps(texts, ensure_ascii=False).encode("utf-8")
            usercache.write(entry, data, keep=KEPT_ENTRIES)
    return texts


def _kept(entry: Path) -> dict[str, Text] | None:
    """The texts kept in ``entry``; None when there are none, or what is there is not texts
    (an entry made by hand or by another program: it is then read afresh)."""
    data = usercache.read(entry)
    if data is None:
        return None
    try:
        texts = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return texts if _plain(texts) else None


def _plain(texts: Any) -> bool:
    """Whether ``texts`` are codes with their texts, as JSON holds them unchanged."""
    if not isinstance(texts, dict):
        return False
    for code, text in texts.items():
        if not isinstance(code, str):
            return False
        if isinstance(text, dict):
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in text.items()):
                return False
        elif not isinstance(text, str):
            return False
    return True


def _parsed(files: list[tuple[str, bytes]]) -> dict[str, Text]:
    import yaml

    # libyaml's safe loader where PyYAML has it (ten times as fast); the pure-Python one else
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    texts: dict[str, Text] = {}
    for name, data in files:
        loaded = yaml.load(data.decode("utf-8"), Loader=loader) or {}
        clash = set(texts) & set(loaded)
        if clash:
            raise ValueError(f"{name}: codes given twice: {', '.join(sorted(clash))}")
        texts.update(loaded)
    return texts


@cache
def common_texts() -> dict[str, Text]:
    return read_texts(shipped.templates() / "common" / "texts")


_GAME_TEXTS: dict[str, dict[str, Text]] = {}


def game_texts(game: Game) -> dict[str, Text]:
    if game.name not in _GAME_TEXTS:
        _GAME_TEXTS[game.name] = read_texts(game.templates() / "texts")
    return _GAME_TEXTS[game.name]


def text_of(code: str, game: Game | None) -> Text:
    """The English text of ``code``: the game's own first, then the adjudicator's."""
    if game is not None:
        found = game_texts(game).get(code)
        if found is not None:
            return found
    found = common_texts().get(code)
    if found is None:
        raise MissingText(code)
    return found


class _Formatter(string.Formatter):
    """``str.format`` with lists: ``a, b, c``, and the specs ``or`` (``a, b or c``) and ``and``
    (``a, b and c``), whose last word is the reader's."""

    def __init__(self, last: dict[str, str]) -> None:
        self.last = last

    def format_field(self, value: Any, format_spec: str) -> Any:
        if isinstance(value, list):
            items = [str(item) for item in value]
            if format_spec == "":
                return ", ".join(items)
            if format_spec in self.last and len(items) > 1:
                return ", ".join(items[:-1]) + self.last[format_spec] + items[-1]
            if format_spec in self.last:
                return "".join(items)
        return super().format_field(value, format_spec)


def say(message: Msg, game: Game | None = None, lang: str = "en") -> str:
    """``message`` in words, in ``lang``: the code's text translated by the catalogs
    (:mod:`adjudicator.present.catalogs`), its parameters put in."""
    code = message.code
    english = text_of(code, game)
    params = {name: _rendered(value, game, lang) for name, value in message.params.items()}
    words = translations(game, lang)
    if isinstance(english, dict):
        count = params.get("count")
        text = words.npgettext(code, english["one"], english["other"], count or 0)
    else:
        text = words.pgettext(code, english)
    last = {"or": words.pgettext("list-or", " or "), "and": words.pgettext("list-and", " and ")}
    return _Formatter(last).format(text, **params)


def _rendered(value: Any, game: Game | None, lang: str) -> Any:
    if isinstance(value, Msg):
        return say(value, game, lang)
    if isinstance(value, list | tuple):
        return [_rendered(item, game, lang) for item in value]
    return value


def say_all(messages: Sequence[Msg], game: Game | None = None, lang: str = "en") -> list[str]:
    return [say(m, game, lang) for m in messages]


def said(data: Mapping[str, Any], game: Game | None = None, lang: str = "en") -> str:
    """A message stored as JSON (:meth:`Msg.to_json`) in words."""
    return say(Msg.from_json(data), game, lang)
