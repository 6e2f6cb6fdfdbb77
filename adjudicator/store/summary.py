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

import contextlib
import hashlib
import marshal
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.rules.plain import clone
from adjudicator.store import journal, usercache


def _folds() -> str:
    """The SHA-256 of the code that folds the journal: this module, :mod:`journal`, and each
    module of the program that :mod:`journal` takes a name from (the deadline's arithmetic of
    :mod:`adjudicator.rules.schedule`, which the clock's fold calls, among them). A summary
    folded by other code (an upgrade that keeps the version number, a fix to a fold) is not
    read on from."""
    called = {getattr(value, "__module__", None) for value in vars(journal).values()}
    names = {journal.__name__, __name__, *(n for n in called if isinstance(n, str))}
    digest = hashlib.sha256()
    for name in sorted(n for n in names if n.startswith("adjudicator.") and n in sys.modules):
        module = sys.modules[name]
        try:
            digest.update(Path(str(module.__file__)).read_bytes())
        except (OSError, TypeError):
            digest.update(b"unknown")
    return digest.hexdigest()


_MAGIC = f"adjudicator-summary/1 {__version__} {sys.version_info[:2]} {_folds()}".encode()


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
        return clone(self.seats.meta)


def summary(
    root: Path,
    data: bytes,
    created: bytes,
    read: Callable[[str], bytes],
    check: Callable[[], None] = lambda: None,
) -> Summary:
    """The summary of ``data``, the journal of the game at ``root`` (``created``: its
    ``game.json``; ``read``: the bytes of a file of the game), from where the kept one ends;
    ``check`` is called before a summary is begun from the first line (every one kept was
    begun so: a kept one is used only for the same ``game.json``)."""
    end = data.rfind(b"\n") + 1
    name = usercache.game_key(root)
    known = _KEPT.get(name)
    kept = None
    if known is not None and known.created == created and _same_files(known.summary, read):
        if known.data == data[:end]:
            return known.summary
        if end > len(known.data) and data.startswith(known.data):
            kept = _copy(known.summary)  # the journal grew: a copy reads on
    entry = usercache.folder("summary") / f"{name}.bin"
    if kept is None:
        kept = _load(entry, data, created, read)
    if kept is not None:
        try:
            return _read_on(root, name, entry, data, end, created, read, kept)
        except Exception:  # a kept summary the folds cannot go on from
            pass  # read from the first line: an error there is the journal's own
    check()
    meta = journal.parse(created)
    kept = Summary(0, "", "", {}, journal.Facts(), journal.SeatsFold(meta, {}), journal.ClockFold())
    return _read_on(root, name, entry, data, end, created, read, kept)


def _read_on(
    root: Path,
    name: str,
    entry: Path,
    data: bytes,
    end: int,
    created: bytes,
    read: Callable[[str], bytes],
    kept: Summary,
) -> Summary:
    """``kept`` read on to ``end``, kept in this process, and in ``entry`` when this process
    is done with it (:func:`write_kept`)."""
    if kept.end == end:
        return _keep(name, data[:end], created, kept)

    def reading(rel: str) -> Any:
        found = read(rel)
        kept.read[rel] = hashlib.sha256(found).hexdigest()
        return journal.parse(found)

    journal.read_through(  # a line that does not fit is named: doctor then says how
        root,
        journal.numbered_lines(root, data, kept.end, end),
        kept.facts.feed,
        lambda fed: kept.seats.feed(fed, reading),
        kept.clocks.feed,
    )
    kept.end, kept.digest = end, hashlib.sha256(data[:end]).hexdigest()
    kept.created = hashlib.sha256(created).hexdigest()
    return _keep(name, data[:end], created, kept, entry)


@dataclass
class _Handed:
    """A summary handed out in this process, with what it summarises."""

    data: bytes
    """The journal's bytes it read (complete lines)."""
    created: bytes
    """``game.json``."""
    summary: Summary
    unwritten: Path | None
    """The cache folder's entry this summary is to be written to, until it is (None: the entry
    holds it, or it was read from there as it was)."""


_KEPT: dict[str, _Handed] = {}
"""The summaries handed out last in this process: a step asks for its game's several times,
and a command of several steps reads on after each. One handed out is never read on (the next
lines are read into a copy), so what a caller holds stays as the journal stood when they
asked. Each is written to the cache folder once, as the command ends or as it makes room
for another (:func:`write_kept`): a command of many steps (the demo, ``tick``, a batch of mail)
does not write it again after each."""
KEEP = 8
KEPT_GAMES = 1000
"""How many games' summaries the cache folder keeps (those used longest ago go first): a
game whose summary went is read from its first line once more. Every demo is a game of its own,
and a summary holds some 30 kB (a game of thousands of journal lines, some megabytes); making
room reads the folder (some 6 ms for 1,000 summaries here), as a command first adds one."""


def forget(root: Path) -> None:
    """Drop the summary of the game at ``root`` (a copy in a temporary folder that goes): from
    the cache folder and from this process."""
    name = usercache.game_key(root)
    _KEPT.pop(name, None)
    with contextlib.suppress(OSError):  # a cache folder that cannot be written kept nothing
        (usercache.folder("summary") / f"{name}.bin").unlink(missing_ok=True)


def _keep(
    name: str, data: bytes, created: bytes, kept: Summary, unwritten: Path | None = None
) -> Summary:
    _KEPT.pop(name, None)
    _KEPT[name] = _Handed(data, created, kept, unwritten)
    while len(_KEPT) > KEEP:
        _write(_KEPT.pop(next(iter(_KEPT))))
    return kept


def write_kept() -> None:
    """Write each summary this process read on to the cache folder, where the next command
    reads on from it (a process killed before it does only leaves the entry as it was: the next
    reads on from there, or from the first line). A Ctrl-C waits until they are written."""
    from adjudicator.store import interrupts

    with interrupts.held():
        for handed in _KEPT.values():
            _write(handed)


def _write(handed: _Handed) -> None:
    if handed.unwritten is not None:
        kept = _MAGIC + b"\n" + marshal.dumps(_plain(handed.summary))
        usercache.write(handed.unwritten, kept, keep=KEPT_GAMES)
        handed.unwritten = None


def _copy(kept: Summary) -> Summary:
    """A copy of ``kept`` to read on into: each list, dict and set the folds change is the
    copy's own, and what they only put in or take out (the journal's lines, the seats' other
    settings, times) is shared, as nothing changes those. Nothing may change a summary once
    handed out: a change would be read on into every copy after it, and kept in the cache
    folder (the suite checks each one after every test). A field added to the folds is
    copied here too (a test names those this copies)."""
    facts = kept.facts
    clocks = journal.ClockFold()
    clocks.states = {turn: clock.copy() for turn, clock in kept.clocks.states.items()}
    clocks.paused, clocks.resumed_from = kept.clocks.paused, kept.clocks.resumed_from
    clocks.held = {turn: set(held) for turn, held in kept.clocks.held.items()}
    clocks.since = dict(kept.clocks.since)
    clocks.again = set(kept.clocks.again)
    meta = {**kept.seats.meta, "players": [dict(seat) for seat in kept.seats.meta["players"]]}
    return Summary(
        kept.end,
        kept.digest,
        kept.created,
        dict(kept.read),
        replace(
            facts,
            files=dict(facts.files),
            in_effect={turn: dict(orders) for turn, orders in facts.in_effect.items()},
            committed={turn: dict(orders) for turn, orders in facts.committed.items()},
            revealing=dict(facts.revealing),
            accepted=dict(facts.accepted),
            notices=list(facts.notices),
            processed=set(facts.processed),
            queued=set(facts.queued),
        ),
        journal.SeatsFold(meta, dict(kept.seats.joins)),
        clocks,
    )


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
        plain = marshal.loads(found[len(_MAGIC) + 1 :])
        if not _shaped(plain):
            return None
        kept = _of_plain(plain)
        if hashlib.sha256(data[: kept.end]).hexdigest() != kept.digest:
            return None
        if hashlib.sha256(created).hexdigest() != kept.created:
            return None
        return kept if _same_files(kept, read) else None
    except Exception:  # whatever an entry holds, it only means none is kept
        return None


_FACTS = {f.name: getattr(journal.Facts(), f.name) for f in fields(journal.Facts)}
_CLOCK = {f.name: getattr(journal.Clock(0), f.name) for f in fields(journal.Clock)}


def _shaped(plain: Any) -> bool:
    """Whether ``plain`` holds what :func:`_plain` writes, each field of its kind: an entry
    made by hand, or by a version whose facts had other fields, is not used (a field it lacks
    would read as its default, not as what the journal says)."""
    if not isinstance(plain, dict) or set(plain) != _PLAIN:
        return False
    facts, seats, clocks = plain["facts"], plain["seats"], plain["clocks"]
    return (
        type(plain["end"]) is int
        and plain["end"] >= 0
        and isinstance(plain["digest"], str)
        and isinstance(plain["created"], str)
        and _mapping(plain["read"], str, str)
        and _fields(facts, _FACTS)
        and _mapping(facts["files"], str, str)
        and _mapping(facts["accepted"], str, int)
        and isinstance(seats, list)
        and len(seats) == 2
        and _mapping(seats[1], str, dict)
        and isinstance(seats[0], dict)
        and isinstance(seats[0].get("players"), list)
        and all(isinstance(p, dict) and "name" in p for p in seats[0]["players"])
        and isinstance(clocks, dict)
        and set(clocks) == {"states", "paused", "resumed_from", "held", "since", "again"}
        and _mapping(clocks["states"], int, dict)
        and all(_fields(c, _CLOCK, _TIMES) for c in clocks["states"].values())
        and _mapping(clocks["held"], int, set)
        and _mapping(clocks["since"], int, str)
        and isinstance(clocks["again"], list)
        and all(isinstance(turn, int) for turn in clocks["again"])
    )


_PLAIN = {"end", "digest", "created", "read", "facts", "seats", "clocks"}


def _mapping(value: Any, key: type, kind: type) -> bool:
    return isinstance(value, dict) and all(
        type(k) is key and isinstance(v, kind) for k, v in value.items()
    )


def _fields(value: Any, like: dict[str, Any], times: tuple[str, ...] = ()) -> bool:
    """Whether ``value`` has exactly the fields of ``like``, each of its default's type (any
    for a default of None but ``times``, which are text or None)."""
    if not isinstance(value, dict) or set(value) != set(like):
        return False
    for name, default in like.items():
        if name in times:
            if value[name] is not None and not isinstance(value[name], str):
                return False
        elif default is not None and type(value[name]) is not type(default):
            return False
    return True


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
            "again": sorted(clocks.again),
        },
    }


def _of_plain(plain: dict[str, Any]) -> Summary:
    found = plain["clocks"]
    clocks = journal.ClockFold()
    clocks.states = {turn: _clock_of(c) for turn, c in found["states"].items()}
    clocks.paused, clocks.resumed_from = _time(found["paused"]), _time(found["resumed_from"])
    clocks.held = found["held"]
    clocks.since = {turn: _when(t) for turn, t in found["since"].items()}
    clocks.again = set(found["again"])
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
