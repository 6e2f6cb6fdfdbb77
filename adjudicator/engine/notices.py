"""Notices: what a player sends besides orders, signed like orders (docs/notices.md).

A notice file holds ``id``, ``player`` and exactly one of

- ``press: {to: all | [names], text: ...}``: table talk, relayed by mail (docs/press.md);
- ``absence: {from: DATE, to: DATE}``: the player is away (ISO dates in the game's time zone);
- ``vote: draw | concede | none``: a vote for a draw, a concession, or a draw vote withdrawn;
- ``share: HEX``: the player's share of the deal, under ``shares: ask`` (docs/randomness.md).

It carries no ``turn``: it is taken whatever the player owes now. It is read as strictly as an
order (the same size caps, strict YAML, no unknown key), signed in the same namespace, and
stored under ``notices/KIND/`` by the step that accepts it, which names it in its journal line
(``notices``: each ``kind``, ``file``, ``digest``, ``turn`` (the turn open when it came) and
``at``). Neither the file's name nor the line names the player: only the file, which only the
game master's copy of the game holds, says who sent it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, Literal

from adjudicator.engine.orders import NOTICE_KEYS, Parsed, loaded
from adjudicator.rules import deal
from adjudicator.rules.contract import Problem, msg
from adjudicator.rules.errors import NotNow
from adjudicator.rules.problems import located_all, schema_problems
from adjudicator.store.gamedir import GameDir

KINDS = NOTICE_KEYS
Kind = Literal["press", "absence", "vote", "share"]
FOLDER = "notices"
MAX_PRESS_CHARS = 8000
"""A press message's text: at most this many characters (a long letter; the file's cap is
64 KiB)."""
MAX_PRESS_PER_TURN = 30
"""The most press one player sends during one turn: each is mailed to its recipients, and
nobody may use the adjudicator to flood the other players' mailboxes."""


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The embeddings, overrides and isolates that turn the direction of the text after them, so
that it reads otherwise than it is (the marks LRM and RLM, which writers of Arabic and Hebrew
need, are text)."""


def first_control(text: str) -> tuple[int, str] | None:
    """The first control character in ``text`` (its place, from 1, and the character), or None.

    Press text is shown in terminals, mail and pages: a strict YAML escape (``"\\e"``) can put
    any character in it, and an escape sequence would act on the game master's terminal, a NUL
    or a lone carriage return break a mail. So would a line or paragraph separator (U+2028,
    U+2029: a line break in a text report that its lines do not show) and a noncharacter. Line
    feeds and tabs are text."""
    for at, char in enumerate(text, 1):
        if char in "\n\t":
            continue
        if unicodedata.category(char) in _NOT_TEXT or char in BIDI_CONTROLS or _nonchar(char):
            return at, char
    return None


_NOT_TEXT = frozenset({"Cc", "Zl", "Zp", "Cs"})
"""Controls, line and paragraph separators, lone surrogates."""


def _nonchar(char: str) -> bool:
    """Whether ``char`` is one of Unicode's 66 noncharacters (U+FDD0 to U+FDEF, and the last
    two of every plane), never text."""
    code = ord(char)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def looks_like_notice(received: bytes) -> bool:
    """Whether a file has a top-level ``press:``, ``absence:``, ``vote:`` or ``share:`` key
    (a file that has none is judged as an order)."""
    heads = (b"press:", b"absence:", b"vote:", b"share:")
    return any(line.startswith(heads) for line in received.splitlines())


def kind_of(data: dict[str, Any]) -> Kind | None:
    """The one kind a parsed notice holds (None when it holds none or more than one)."""
    found = [k for k in KINDS if data.get(k) is not None]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def parse(raw: bytes) -> Parsed:
    """Strict YAML, then the notice's schema and its one kind: every problem at once."""
    parsed = loaded(raw)
    if parsed.loaded is None:
        return parsed
    data = parsed.loaded.data
    from adjudicator.engine.file_models import NoticeFile

    problems = [_plainly(p, data) for p in schema_problems(NoticeFile, data)]
    if isinstance(data, dict):
        given = [k for k in KINDS if data.get(k) is not None]
        if len(given) != 1:
            problems.append(Problem("notice-one-kind", (), given=given, kinds=list(KINDS)))
        parsed.data = data
    parsed.schema = problems
    parsed.reasons = located_all(problems, parsed.loaded)
    return parsed


def _plainly(problem: Problem, data: Any) -> Problem:
    """An absence's date written as text (quoted, or a date and time) told as such, instead of
    the schema's "not a valid date"."""
    where = problem.path
    if where == ("share",) and isinstance(data, dict):  # digits alone read as a number
        return Problem("share-malformed", where, low=deal.MIN_DIGITS, high=deal.MAX_DIGITS)
    if len(where) == 2 and where[0] == "absence" and where[1] in ("from", "to"):
        value = data.get("absence", {}).get(where[1]) if isinstance(data, dict) else None
        if isinstance(value, str):
            return Problem("absence-date-text", where, key=str(where[1]), given=value)
    return problem


def path(kind: str, file: str) -> str:
    """Where a notice's file lies in the game directory."""
    return f"{FOLDER}/{kind}/{file}"


def stored(store: GameDir, kind: str, file: str, files: Mapping[str, str]) -> dict[str, Any]:
    """The notice the journal names ``file`` of ``kind`` (with its digest in ``files``), as its
    player signed it (it was valid when it was accepted). A file changed or deleted since (not
    by this program) is named, and the game master sent to ``doctor`` (exit 4)."""
    rel = path(kind, file)
    parsed = parse(store.named(rel, files))
    data = None if parsed.schema else parsed.data  # as it was: no problem
    if data is None or kind_of(data) != kind:
        raise NotNow(msg("notice-file-damaged", path=rel, game=str(store.root)))
    return data
