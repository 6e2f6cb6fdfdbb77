"""What a game's journal says so far, kept between commands: its facts, seats and clocks.

Read from the first line at every command, the journal (:func:`journal.facts`, the seats, the
clock) costs time in the length of the game. The summary of its complete lines as one command
read them is kept in the user's cache folder (:mod:`adjudicator.store.usercache`, ``summary/``;
never in the game directory) with the length and SHA-256 of those bytes, of ``game.json`` and
of each file the seats were read from. The next command reads the journal's bytes and, when the
first of them hash to the digest kept, parses and reads only the lines after them; anything else
(a line edited, cut or removed anywhere before, a game made anew at the same path, a changed
file) fails the check, and the whole journal is read again as it would be without the summary.
A missing, damaged or stale entry only means that: deleting it is always safe, and the journal
stays the commit point.
"""

from __future__ import annotations

import copy
import hashlib
import marshal
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.store import journal, usercache

_MAGIC = f"adjudicator-summary/1 {__version__} {sys.version_info[:2]}".encode()


@dataclass
class Summary:
    """The journal's first ``end`` bytes (complete lines) read."""

    end: int
    digest: str
    """The SHA-256 of those bytes."""
    created: str
    """The SHA-256 of ``game.json``."""
    read: dict[str, str]
    """Each file the seats were read from, with the SHA-256 of its bytes."""
    facts: journal.Facts
    seats: journal.SeatsFold
    clocks: journal.ClockFold

    def meta(self) -> dict[str, Any]:
        """The game now (:meth:`GameDir.meta`): a copy, for the caller to keep."""
        return copy.deepcopy(self.seats.meta)


def summary(root: Path, data: bytes, created: bytes, read: Callable[[str], bytes]) -> Summary:
    """The summary of ``data``, the journal of the game at ``root`` (``created``: its
    ``game.json``; ``read``: the bytes of a file of the game), from where the kept one ends."""
    end = data.rfind(b"\n") + 1
    name = usercache.game_key(root)
    known = _KEPT.get(name)
    if known is not None and known[:2] == (data[:end], created) and _same_files(known[2], read):
        return known[2]
    entry = usercache.folder("summary") / f"{name}.bin"
    kept = _load(entry, data, created, read)
    if kept is None:
        meta = journal.parse(created)
        kept = Summary(
            0, "", "", {}, journal.Facts(), journal.SeatsFold(meta, {}), journal.ClockFold()
        )
    if kept.end == end:
        return _keep(name, data[:end], created, kept)

    def reading(rel: str) -> Any:
        found = read(rel)
        kept.read[rel] = hashlib.sha256(found).hexdigest()
        return journal.parse(found)

    for line in data[kept.end : end].splitlines():
        if line:
            fed = journal.parse(line)
            kept.facts.feed(fed)
            kept.seats.feed(fed, reading)
            kept.clocks.feed(fed)
    kept.end, kept.digest = end, hashlib.sha256(data[:end]).hexdigest()
    kept.created = hashlib.sha256(created).hexdigest()
    usercache.write(entry, _MAGIC + b"\n" + marshal.dumps(_plain(kept)))
    return _keep(name, data[:end], created, kept)


_KEPT: dict[str, tuple[bytes, bytes, Summary]] = {}
"""The summaries handed out last in this process, with the journal's bytes and ``game.json``
they summarise: a step asks for its game's several times. One handed out is never read on
(the next lines are read into a copy from the cache folder), so what a caller holds stays as
the journal stood when they asked."""
KEEP = 8


def _keep(name: str, data: bytes, created: bytes, kept: Summary) -> Summary:
    _KEPT.pop(name, None)
    _KEPT[name] = (data, created, kept)
    while len(_KEPT) > KEEP:
        del _KEPT[next(iter(_KEPT))]
    return kept


def _same_files(kept: Summary, read: Callable[[str], bytes]) -> bool:
    """Whether each file the seats were read from still holds the bytes it held."""
    try:
        return all(hashlib.sha256(read(rel)).hexdigest() == d for rel, d in kept.read.items())
    except OSError:
        return False


def _load(entry: Path, data: bytes, created: bytes, read: Callable[[str], bytes]) -> Summary | None:
    """The summary kept for this journal, or None (none, damaged, or of other bytes)."""
    found = usercache.read(entry)
    if found is None or not found.startswith(_MAGIC + b"\n"):
        return None
    try:
        kept = _of_plain(marshal.loads(found[len(_MAGIC) + 1 :]))
        if hashlib.sha256(data[: kept.end]).hexdigest() != kept.digest:
            return None
        if hashlib.sha256(created).hexdigest() != kept.created:
            return None
    except (ValueError, EOFError, TypeError, KeyError, AttributeError):
        return None
    return kept if _same_files(kept, read) else None


def _plain(kept: Summary) -> dict[str, Any]:
    """``kept`` as plain values ``marshal`` writes (times as text)."""
    clocks = kept.clocks
    return {
        "end": kept.end,
        "digest": kept.digest,
        "created": kept.created,
        "read": kept.read,
        "facts": {f.name: getattr(kept.facts, f.name) for f in fields(journal.Facts)},
        "seats": [kept.seats.meta, kept.seats.joins],
        "clocks": {
            "states": {turn: _plain_clock(c) for turn, c in clocks.states.items()},
            "paused": _text(clocks.paused),
            "resumed_from": _text(clocks.resumed_from),
            "held": clocks.held,
            "since": {turn: _text(t) for turn, t in clocks.since.items()},
        },
    }


def _of_plain(plain: dict[str, Any]) -> Summary:
    found = plain["clocks"]
    clocks = journal.ClockFold()
    clocks.states = {turn: _clock_of(c) for turn, c in found["states"].items()}
    clocks.paused, clocks.resumed_from = _time(found["paused"]), _time(found["resumed_from"])
    clocks.held = found["held"]
    clocks.since = {turn: _when(t) for turn, t in found["since"].items()}
    return Summary(
        plain["end"],
        plain["digest"],
        plain["created"],
        plain["read"],
        journal.Facts(**plain["facts"]),
        journal.SeatsFold(*plain["seats"]),
        clocks,
    )


_TIMES = ("opened", "deadline", "paused_since", "mail_since")


def _plain_clock(state: journal.Clock) -> dict[str, Any]:
    plain = {f.name: getattr(state, f.name) for f in fields(journal.Clock)}
    plain.update({name: _text(plain[name]) for name in _TIMES})
    plain["reminded"] = [(_text(d), before) for d, before in state.reminded]
    plain["waited"] = [_text(d) for d in state.waited]
    plain["stood"] = [(_text(a), _text(b)) for a, b in state.stood]
    return plain


def _clock_of(plain: dict[str, Any]) -> journal.Clock:
    plain.update({name: _time(plain[name]) for name in _TIMES})
    plain["reminded"] = [(_when(d), before) for d, before in plain["reminded"]]
    plain["waited"] = [_when(d) for d in plain["waited"]]
    plain["stood"] = [(_when(a), _when(b)) for a, b in plain["stood"]]
    return journal.Clock(**plain)


def _text(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)
