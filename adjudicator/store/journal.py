"""The journal: the game master's actions and the clock's, kept as lines of ``log.jsonl``.

Besides the engine's ``created`` and ``adjudicated`` lines (each with the ``deadline`` of the
turn it opens, or null; the second with the players ``defaulted`` and ``why``: ``complete``,
``deadline``, ``gm`` or ``agreed``, and, when the players' votes ended the game there,
``ended``: :func:`adjudicator.rules.votes.ending`), the log holds:

==============  ===============================================================================
``deadline``    ``turn``, ``deadline``: the turn's deadline (older journals; now on the line
                that opens the turn)
``extended``    ``turn``, ``deadline``, ``was``: ``adjudicator extend``
``paused``      ``turn``: ``adjudicator pause`` (the clock stops)
``resumed``     ``turn``, ``deadline``: ``adjudicator resume`` (the deadline moved by the pause)
``replaced``    ``player``, ``key``, ``was_key``, ``addresses`` (the file that holds ``email`` and
                ``was_email``; older journals have them in the line): ``adjudicator replace``;
                ``welcome``: true when the seat has a new address (a new player), who is sent
                the welcome mail
``resigned``    ``player``, ``turn``: ``adjudicator resign`` (the seat plays default orders)
``rolled-back`` ``turn``, ``superseded``: the adjudication of ``turn`` undone, its results kept
                as superseded copy number ``superseded``
``reminded``    ``turn``, ``deadline``, ``before``, ``players``: reminders queued
``waiting``     ``turn``, ``deadline``, ``players``: past the deadline under ``nmr: wait``, the
                game master told
==============  ===============================================================================

Every line has ``at``, the UTC time it was written, and ``prev``, the SHA-256 of the line before
it (64 zeros for the first): the journal is a hash chain. A line also names what its step did to
the game directory: ``files`` (each new file's path and digest, docs/archive.md) and ``moved``
(each file moved, old path to new). The ``created`` line also holds the seed ``commitment`` and
the game's ``public`` header (game, id, players without addresses, options; ``shares``: ``ask``
when the deal waits for the players' shares, whose ``created`` line has ``turn`` 0 and whose
``submitted`` or ``mail`` line that took the last share holds ``dealt``: ``turn`` 1 and
``deadline``), and ``welcome``:
true, each player is sent the welcome mail (games made before it have none). Steps of the engine
and of mail add these lines:

==============  ===============================================================================
``submitted``   ``orders``: the orders ``submit`` accepted (each ``turn``, ``player``, ``file``,
                ``digest``, ``replaces``; older journals have ``sha256`` for ``digest`` and one
                ``accepted`` line per order)
``mail``        ``message_id`` (keyed: the HMAC-SHA-256 of the Message-ID under the game's file
                key; as received in older journals), ``orders``: one message's orders for this
                game, its receipts
``queued``      ``turns`` whose reports were queued, ``announced``: the journal lines announced,
                ``welcomed``: the journal lines whose welcome mails were queued,
                ``asked_shares``: each player was asked for a share (``shares: ask``)
``sent``        ``sent``, ``in_doubt``, ``refused``: what one delivery did (file names: no
                server's words, which often name the recipient; older lines: ``failed``)
``recovered``   ``kind``: a step cut short, finished or discarded by the next command
``revealing``   ``reveal``: the reveal of ``sealing: commit-reveal`` opened by the clock or the
                game master (below)
==============  ===============================================================================

A ``submitted`` or ``mail`` line may also name ``notices``: the press, absences and votes it
accepted (:mod:`adjudicator.engine.notices`); a line without any has no such key. Under ``absence:
extend``, a line whose absences move the current turn's deadline also holds ``deadline_moved``:
``turn``, ``deadline`` (the new one) and ``was`` (:mod:`adjudicator.engine.absences`).

A line that takes the current turn's last report out of ``mail/queue/`` (handed to the server,
written to ``outbox/``, refused for good, or left in doubt: a ``sent`` line, or the
``recovered`` line of a send cut short) also holds ``mailed``: ``turn``, ``deadline`` (the new
one), ``was`` and ``since`` (when the wait began: the turn's opening, or for reports of the
turn queued again after others left, their queuing), when the wait moved the deadline
(by its whole minutes). While a player's report of the current turn is queued the clock stands
still (:attr:`Clock.mail_since`), and the deadline moves by the time the reports waited, as
under ``paused`` (:func:`mailed`); a span both counted moves it once (:attr:`Clock.stood`).

Under ``sealing: commit-reveal`` an accepted commitment is an order entry with ``kind:
commitment``; the line that opens a turn's reveal (the ``submitted`` or ``mail`` line that
stored the last owed commitment, or a ``revealing`` line) holds ``reveal``: ``turn``,
``deadline`` and ``without`` (who made no commitment).

This module reads the log into facts (the current turn, the orders in effect, the known files,
the clock of the current turn); it never reads a file or a clock itself.
"""

from __future__ import annotations

import copy
import json
import marshal
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator.rules.contract import msg
from adjudicator.rules.errors import NotNow
from adjudicator.rules.schedule import ScheduleError, duration, later


def parsed_line(root: Path, data: bytes, start: int, line: bytes) -> Any:
    """``line``, which starts at byte ``start`` of the journal ``data`` of the game at
    ``root``, parsed: NotNow, naming its number, when it is not JSON (the journal was changed
    by hand: a line cut, a byte that is not UTF-8, which no line written here holds)."""
    try:
        entry = parse(line.decode("utf-8"))
    except ValueError:
        entry = None
    if not isinstance(entry, dict):  # JSON, but no line of ours: a list, a number
        raise misfit(root, data.count(b"\n", 0, start) + 1) from None
    return entry


def parsed_lines(root: Path, data: bytes, start: int, end: int) -> list[Any]:
    """The lines of the journal ``data`` from byte ``start`` to ``end`` (a line's end), parsed
    as :func:`parsed_line` parses each; blank ones are skipped."""
    return [entry for _, entry in numbered_lines(root, data, start, end)]


def numbered_lines(root: Path, data: bytes, start: int, end: int) -> list[tuple[int, Any]]:
    """:func:`parsed_lines`, each with its number in the journal (1: the first)."""
    found = []
    number = data.count(b"\n", 0, start)
    for line in data[start:end].splitlines(keepends=True):
        number += 1
        if line.strip():
            found.append((number, parsed_line(root, data, start, line)))
        start += len(line)
    return found


def misfit(root: Path, number: int) -> NotNow:
    """The line ``number`` of the journal of the game at ``root`` does not fit its type (its
    fields were changed by hand: a turn in quotes, say): named, and the game master sent to
    ``doctor``, which says what does not fit."""
    return NotNow(msg("journal-line-damaged", game=str(root), line=number))


def parse(text: str | bytes) -> Any:
    """JSON as the game keeps it (a journal line, a state, a view): standard JSON only, and no
    number a float cannot hold. Python's ``json`` also reads ``NaN`` and ``Infinity``, and reads
    ``1e400`` as infinity, which no writer of ours makes; a line holding one was made by hand,
    and a turn of infinity would end a command in a traceback."""
    if isinstance(text, bytes):  # as json.loads reads bytes
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    try:
        return _DECODER.decode(text)
    except RecursionError:  # arrays in arrays, deeper than Python's stack
        raise ValueError("JSON nested deeper than any file of ours") from None


def refused(name: str) -> Any:
    """For ``json``'s ``parse_constant``: ``NaN``, ``Infinity`` and ``-Infinity`` are refused."""
    raise ValueError(f"{name} is not standard JSON")


def finite(text: str) -> float:
    """For ``json``'s ``parse_float``: a number too large for a float is refused."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


_DECODER = json.JSONDecoder(parse_constant=refused, parse_float=finite)
"""One decoder for every line (``json.loads`` with an argument makes a new one per call)."""


def parse_again(data: bytes) -> Any:
    """``parse(data)`` for a document one process reads again and again (a turn's state, which
    every order, view and adjudication of the turn reads): the same bytes are parsed once, and
    each call gets its own copy (its caller may change it), made in about a third of a parse."""
    kept = _PARSED.get(data)
    if kept is not None:
        return marshal.loads(kept)
    value = parse(data)
    try:
        kept = marshal.dumps(value)
    except ValueError:  # nested deeper than marshal goes (no state of ours is): not kept
        return value
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.pop(next(iter(_PARSED), b""), None)  # the oldest
    _PARSED[data] = kept
    return value


_PARSED: dict[bytes, bytes] = {}
"""The documents :func:`parse_again` parsed, by their bytes: what ``marshal`` makes of each
parse (plain data: what JSON holds)."""
_PARSED_KEPT = 8


GM_ACTIONS = ("extended", "paused", "resumed", "replaced", "resigned", "rolled-back")
"""The entries players are told of by mail."""


@dataclass
class Clock:
    """The current turn as the journal leaves it."""

    turn: int
    opened: datetime | None = None
    deadline: datetime | None = None
    paused_since: datetime | None = None
    rolled_back: bool = False
    """The adjudication of this turn was rolled back: its orders are fixed."""
    reminded: list[tuple[datetime, int]] = field(default_factory=list)
    """(deadline, seconds before it) of every reminder queued for this turn."""
    waited: list[datetime] = field(default_factory=list)
    """Deadlines past which the game master was told the game waits (nmr: wait)."""
    mail_since: datetime | None = None
    """When this turn's reports were queued, while one of them still is: the clock stands
    still until the last one leaves."""
    mail_held: set[str] = field(default_factory=set)
    """This turn's reports still queued (paths in the game)."""
    stood: list[tuple[datetime, datetime]] = field(default_factory=list)
    """The spans of this turn by which a move of the deadline has counted already (a pause that
    was resumed, a wait for the mail): a span counts once, whichever moved it."""

    def copy(self) -> Clock:
        """A copy whose lists and set are its own (what they hold cannot change): a sixteenth
        of the time ``copy.deepcopy`` took, for a copy made for every order judged. A field
        added is copied here too (a test names those this copies)."""
        return replace(
            self,
            reminded=list(self.reminded),
            waited=list(self.waited),
            mail_held=set(self.mail_held),
            stood=list(self.stood),
        )

    def uncounted(self, start: datetime, end: datetime) -> timedelta:
        """How much of ``start`` to ``end`` no move of the deadline has counted yet."""
        left, cursor = timedelta(0), start
        for begin, finish in sorted(self.stood):
            if finish <= cursor or begin >= end:
                continue
            left += max(begin - cursor, timedelta(0))
            cursor = max(cursor, finish)
        return left + max(end - cursor, timedelta(0))

    def standing(self) -> bool:
        """Whether the clock stands still: paused, or the turn's reports wait to be sent."""
        return self.paused_since is not None or self.mail_since is not None

    def deadline_if_sent(self, now: datetime) -> datetime | None:
        """The deadline as it would be if the reports still queued left at ``now``."""
        if self.deadline is None or self.mail_since is None:
            return self.deadline
        return moved_by(self.deadline, self.uncounted(self.mail_since, now))

    def reminded_for(self, deadline: datetime, before: int) -> bool:
        """Whether a reminder this close to ``deadline`` (or closer) was queued: for it, or for
        a deadline that the clock's standing still alone (a pause, the reports' wait) has
        moved to it since. The players keep the time they had, and were reminded of it; an
        ``extend`` makes a deadline reminded anew."""
        for was, sent in self.reminded:
            if sent > before or was > deadline:
                continue
            if deadline - was <= self._stood_after(was - timedelta(seconds=sent)) + _MINUTE:
                return True
        return False

    def _stood_after(self, moment: datetime) -> timedelta:
        """How long the clock stood still after ``moment`` (spans counted once)."""
        total, cursor = timedelta(0), moment
        for begin, finish in sorted(self.stood):
            begin = max(begin, cursor)
            if finish > begin:
                total += finish - begin
                cursor = finish
        return total


_MINUTE = timedelta(minutes=1)
"""A deadline moves by whole minutes: what it moved by, to within one."""


def _time(text: str) -> datetime:
    """A time a line gives, as the program writes one: ISO 8601 with its offset (ValueError
    else: a time without one cannot be compared with the clock's)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"the time {text!r} has no offset")
    return moment


_HOLDING = ("report-", "reveal-")
"""The queued mail that holds its turn's clock: a player's report, and the notice that opens
the turn's reveal (``sealing: commit-reveal``), by which alone its players are told to reveal."""


def is_report(path: str, turn: int) -> bool:
    """Whether ``path`` is a player's queued report of ``turn``
    (``mail/queue/000007-report-2-bob.eml``; the game master's copy, ``-gm``, holds no clock),
    or the notice that opens its reveal (``mail/queue/000009-reveal-2-bob.eml``)."""
    if not path.startswith("mail/queue/"):
        return False  # most files of a game: at once
    folder, _, name = path.rpartition("/")
    number, _, rest = name.partition("-")
    return (
        folder == "mail/queue"
        and number.isdigit()
        and any(rest.startswith(f"{kind}{turn}-") for kind in _HOLDING)
        and rest != f"report-{turn}-gm.eml"
    )


def report_turn(path: str) -> int | None:
    """The turn of a player's queued report (or reveal notice) at ``path``
    (:func:`is_report`), or None."""
    if not path.startswith("mail/queue/"):
        return None  # most files of a game: at once
    rest = path.rpartition("/")[2].partition("-")[2]
    kind = next((kind for kind in _HOLDING if rest.startswith(kind)), None)
    if kind is None:
        return None
    number = rest.removeprefix(kind).partition("-")[0]
    digits = number.isascii() and number.isdigit()  # "²" is a digit that int() refuses
    if not digits or str(int(number)) != number:
        return None
    turn = int(number)
    return turn if is_report(path, turn) else None


def moved_by(deadline: datetime, wait: timedelta) -> datetime:
    """``deadline`` moved on by the whole minutes of ``wait`` (a deadline is shown to the minute;
    it stays at the end of the calendar)."""
    try:
        return later(deadline, timedelta(minutes=max(int(wait.total_seconds()) // 60, 0)))
    except ScheduleError:
        return deadline


class ClockFold:
    """The clock of every turn, read line by line (:func:`clock`); it can go on from where it
    stopped (:mod:`adjudicator.store.summary` keeps it between commands). A line changes only
    the turns it names, and a queued report only its own turn's wait, so each turn's clock is
    the one a reading of the whole log for that turn alone gives."""

    def __init__(self) -> None:
        self.states: dict[int, Clock] = {}
        self.paused: datetime | None = None
        self.resumed_from: datetime | None = None
        self.held: dict[int, set[str]] = {}
        """Per turn, its reports still queued."""
        self.since: dict[int, datetime] = {}
        """Per turn, when its reports were last queued after none was."""
        self.again: set[int] = set()
        """The turns whose reports were queued before, since the turn opened: a later batch
        waits from its queuing, the first from the turn's opening."""

    def feed(self, entry: dict[str, Any]) -> None:
        """Read one more line."""
        kind = entry["type"]
        if entry.get("files") or entry.get("moved"):
            self._hold(entry)
        if kind == "paused":
            self.paused = _time(entry["at"])
        elif kind == "resumed":
            self.resumed_from, self.paused = self.paused, None
        for turn in _named_turns(entry):
            self._feed_turn(entry, kind, turn)

    def _hold(self, entry: dict[str, Any]) -> None:
        at = entry["at"]
        for path in entry.get("files") or {}:
            turn = report_turn(path)
            if turn is not None:
                held = self.held.setdefault(turn, set())
                if not held:
                    if turn in self.since:
                        self.again.add(turn)
                    self.since[turn] = _time(at)
                held.add(path)
        for source in entry.get("moved") or {}:
            turn = report_turn(source)
            if turn is not None:
                self.held.get(turn, set()).discard(source)

    def _feed_turn(self, entry: dict[str, Any], kind: str, turn: int) -> None:
        state = self.states.setdefault(turn, Clock(turn))
        opens = (kind == "created" and entry["turn"] == turn) or (
            kind == "adjudicated" and entry["turn"] == turn - 1
        )
        reveal, dealt = entry.get("reveal"), entry.get("dealt")
        if opens:  # a turn opened again after a rollback starts afresh
            self.states[turn] = Clock(turn, opened=_time(entry["at"]))
            self.since.pop(turn, None)
            self.again.discard(turn)
            if entry.get("deadline"):
                self.states[turn].deadline = _time(entry["deadline"])
        elif dealt and dealt["turn"] == turn:  # the step that took the last share dealt
            self.states[turn] = Clock(turn, opened=_time(entry["at"]))
            if dealt.get("deadline"):
                self.states[turn].deadline = _time(dealt["deadline"])
        elif reveal and reveal["turn"] == turn:  # the reveal is a phase with its own clock
            self.states[turn] = Clock(turn, opened=_time(entry["at"]))
            if reveal.get("deadline"):
                self.states[turn].deadline = _time(reveal["deadline"])
        elif (
            entry.get("deadline_moved") and entry["deadline_moved"]["turn"] == turn
        ):  # an absence (extend)
            state.deadline = _time(entry["deadline_moved"]["deadline"])
        elif entry.get("mailed") and entry["mailed"]["turn"] == turn:  # the reports left
            state.deadline = _time(entry["mailed"]["deadline"])
            state.stood.append((_time(entry["mailed"]["since"]), _time(entry["at"])))
        elif entry.get("turn") != turn:
            return
        elif kind == "resumed":
            if entry.get("deadline"):
                state.deadline = _time(entry["deadline"])
            if self.resumed_from is not None and state.opened is not None:
                state.stood.append((max(self.resumed_from, state.opened), _time(entry["at"])))
        elif kind in ("deadline", "extended") and entry.get("deadline"):
            state.deadline = _time(entry["deadline"])
        elif kind == "rolled-back":
            state.rolled_back = True
        elif kind == "reminded":
            state.reminded.append(
                (_time(entry["deadline"]), int(duration(entry["before"]).total_seconds()))
            )
        elif kind == "waiting":
            state.waited.append(_time(entry["deadline"]))

    def result(self, turn: int) -> Clock:
        """The clock of ``turn`` as the lines read so far leave it (a copy: reading on changes
        nothing)."""
        state = self.states.get(turn, Clock(turn)).copy()
        state.paused_since = self.paused
        held, since = self.held.get(turn), self.since.get(turn)
        if held and state.opened is not None and since is not None:
            # the players wait for their reports from the moment the turn opened: a game
            # master's adjudicate, or an outage that kept tick from queuing them, counts
            waits = max(since, state.opened) if turn in self.again else state.opened
            state.mail_since, state.mail_held = waits, set(held)
        return state


def _named_turns(entry: dict[str, Any]) -> set[int]:
    """The turns whose clock a line may change: the one it names, opens, deals, reveals, or
    whose deadline it moves."""
    named = {entry.get("turn")}
    if entry["type"] == "adjudicated":
        named.add(entry["turn"] + 1)
    for key in ("dealt", "reveal", "deadline_moved", "mailed"):
        if entry.get(key):
            named.add(entry[key]["turn"])
    return {turn for turn in named if isinstance(turn, int)}


def clock(log: list[dict[str, Any]], turn: int) -> Clock:
    """The clock of ``turn`` (the current one) from the whole log, read in order."""
    fold = ClockFold()
    for entry in log:
        fold.feed(entry)
    return fold.result(turn)


def mailed(times: Clock, moved: dict[str, str], at: datetime) -> dict[str, Any] | None:
    """The ``mailed`` entry of a line written ``at`` that moves ``moved``, the clock of the
    current turn being ``times``: when it takes the turn's last queued report out of the queue
    and the wait moved the deadline."""
    if not times.mail_held or times.mail_held - set(moved) or times.mail_since is None:
        return None
    if times.deadline is None:
        return None
    deadline = moved_by(times.deadline, times.uncounted(times.mail_since, at))
    if deadline == times.deadline:
        return None  # sent within the minute (or past the calendar's end): nothing moves
    return {
        "turn": times.turn,
        "deadline": _stamp(deadline),
        "was": _stamp(times.deadline),
        "since": _stamp(times.mail_since),
    }


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


@dataclass
class Facts:
    """What the journal says of the game: everything else is derived from these."""

    turn: int = 0
    """The current turn (0 before ``created``, and while the deal waits for the shares)."""
    lines: int = 0
    files: dict[str, str] = field(default_factory=dict)
    """Every file the journal names, where it is now, with its digest (docs/archive.md)."""
    in_effect: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per turn, each player's order in effect (``file``, ``sha256``, ...)."""
    committed: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per turn, each player's commitment in effect (``sealing: commit-reveal``)."""
    revealing: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The turns whose reveal has opened: ``deadline``, and ``without``, who made no
    commitment (their seats play the default orders)."""
    accepted: dict[str, int] = field(default_factory=dict)
    """The digest of every order and notice accepted in this game, with its turn (for
    replays)."""
    notices: list[dict[str, Any]] = field(default_factory=list)
    """Every notice accepted (press, absence, vote), in the order they came."""
    processed: set[str] = field(default_factory=set)
    """The Message-IDs of mail processed for this game, as the journal keeps them (keyed;
    older journals and ``adopted`` lines: as received)."""
    queued: set[int] = field(default_factory=set)
    """The turns whose reports were queued for mail."""
    announced: int = 0
    """The journal lines before this index were announced to the players."""
    welcomed: int = 0
    """The journal lines before this index had their welcome mails queued (a ``created`` or
    ``replaced`` line with ``welcome``)."""
    ended: dict[str, Any] | None = None
    """How the players' votes ended the game (a draw, or by concession), if they did."""
    asked_shares: bool = False
    """Each player was asked for their share of the deal by mail (``shares: ask``)."""
    signup: dict[str, Any] | None = None
    """An open game's sign-up (``seats``, ``seating``, ``until``: docs/signup.md), or None."""
    started: bool = False
    """The open game started: its seats are fixed."""
    closed: bool = False
    """The open game did not start: too few players at the sign-up deadline."""
    signup_told: int = 0
    """The journal lines before this index had the mail of their sign-up queued (confirmation
    requests, seats taken and refused, a game that did not start)."""
    names_files: bool = False
    """A line names the files its step made (journals written before they were have none: the
    next step adopts the game's files)."""

    def feed(self, entry: dict[str, Any]) -> None:
        """Read one more line of the journal."""
        self.lines += 1
        self.names_files = self.names_files or "files" in entry
        kind = entry["type"]
        _paths_as_written(entry)
        self.files.update(entry.get("files") or {})
        for source, target in (entry.get("moved") or {}).items():
            if source in self.files:
                self.files[target] = self.files.pop(source)
        if kind == "created":
            self.signup = entry.get("signup")
        self.started = self.started or bool(entry.get("started"))
        self.closed = self.closed or bool(entry.get("closed"))
        if kind == "created" or entry.get("dealt"):
            waits = kind == "created" and entry.get("turn") == 0  # the deal waits for shares
            self.turn = 0 if waits else 1
            self.in_effect[1] = {}
        elif kind == "adjudicated":
            if type(entry["turn"]) is not int or entry["turn"] != self.turn:
                raise ValueError(f"adjudicates turn {entry['turn']!r}, where {self.turn} is open")
            self.turn = entry["turn"] + 1
            self.ended = entry.get("ended")
            self.in_effect[self.turn] = {}
            self.committed[self.turn] = {}  # a turn opened again after a rollback: afresh
            self.revealing.pop(self.turn, None)
        elif kind == "rolled-back":
            if type(entry["turn"]) is not int or not 0 < entry["turn"] == self.turn - 1:
                played = self.turn - 1
                raise ValueError(
                    f"rolls back turn {entry['turn']!r}, where {played} was played last"
                )
            self.turn = entry["turn"]
            self.ended = None
            self.queued.discard(entry["turn"] + 1)
        elif kind in ("queued", "adopted"):
            self.queued.update(entry.get("turns") or [])
            self.announced = max(self.announced, entry.get("announced") or 0)
            self.welcomed = max(self.welcomed, entry.get("welcomed") or 0)
            self.asked_shares = self.asked_shares or bool(entry.get("asked_shares"))
            self.signup_told = max(self.signup_told, entry.get("signup_told") or 0)
        taken = order_entries(entry)
        if (taken or entry.get("notices")) and kind in ("adjudicated", "rolled-back"):
            raise ValueError(f"a {kind} line takes no order or notice")
        for order in taken:
            _taken_as_written(order)
            kept = self.committed if order.get("kind") == "commitment" else self.in_effect
            kept.setdefault(order["turn"], {})[order["player"]] = order
            self.accepted[order_digest(order)] = order["turn"]
        for notice in entry.get("notices") or []:
            _taken_as_written(notice, notice=True)
            self.notices.append(notice)
            self.accepted[notice["digest"]] = notice["turn"]
        for seat in [entry, *(entry.get("joins") or [])] if kind != "created" else []:
            if "addresses" in seat:
                named_file(seat["addresses"])
        if entry.get("reveal"):
            self.revealing[entry["reveal"]["turn"]] = entry["reveal"]
        if entry.get("message_id"):
            self.processed.add(entry["message_id"])
        self.processed.update(entry.get("processed") or [])


def _paths_as_written(entry: dict[str, Any]) -> None:
    """A line's ``files`` (each path with its digest) and ``moved`` (each path to another),
    each an object of strings, and a seat's line (``replaced``, ``resigned``) naming its player
    (and a new key), as the program writes them. ValueError else."""
    for key in ("files", "moved"):
        named = entry.get(key)
        if named is not None and not (
            isinstance(named, dict) and all(isinstance(v, str) for v in named.values())
        ):
            raise ValueError(f"the line's {key} is not an object of paths")
    if entry["type"] in ("replaced", "resigned") and not isinstance(entry["player"], str):
        raise ValueError(f"the player {entry['player']!r} is no name")
    if entry["type"] == "replaced" and not isinstance(entry["key"], str):
        raise ValueError(f"the new key {entry['key']!r} is no key line")


def _taken_as_written(taken: dict[str, Any], notice: bool = False) -> None:
    """An order or notice a line took, as the program writes one: its turn an integer, its
    file a name in its folder (the turn's orders, the notices of its kind), its kind a name and
    its time with its offset (a notice has both). ValueError or KeyError else:
    a turn written ``"2"`` would file an order apart from the turn's, and a file ``x/a.yaml``
    would be judged where the turn plays another."""
    if type(taken["turn"]) is not int:
        raise ValueError(f"the turn {taken['turn']!r} of a file taken is no integer")
    name = taken["file"]
    if not isinstance(name, str) or "/" in name or not plain(name):
        raise ValueError(f"the file {name!r} taken is no name of a file")
    digest = taken.get("digest") or taken.get("sha256")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise ValueError(f"the digest {digest!r} of a file taken is no SHA-256 in lowercase hex")
    if (notice or "kind" in taken) and not isinstance(taken["kind"], str):
        raise ValueError(f"the kind {taken['kind']!r} of a file taken is no name")
    if notice or "at" in taken:
        _time(str(taken["at"]))


_DIGEST = re.compile(r"[0-9a-f]{64}")


def named_file(rel: Any) -> str:
    """A file of the game a line names (where a ``replaced`` line or a join keeps its
    addresses), as the program writes one: a plain path inside the game. ValueError else (a
    number, or ``../x``, which would read a file outside the game)."""
    if not isinstance(rel, str) or not plain(rel):
        raise ValueError(f"{rel!r} is no path of a file inside the game")
    return rel


def plain(rel: str) -> bool:
    """Whether ``rel`` is a plain path inside the game, as the program writes them: parts
    joined by ``/``, none empty, ``.`` or ``..``, no backslash (a tool that unpacks an archive
    would read ``./a``, ``a//b``, ``a/`` or ``/a`` as another file's path)."""
    return "\\" not in rel and all(part not in ("", ".", "..") for part in rel.split("/"))


def order_entries(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The orders a journal line accepted."""
    if entry["type"] == "accepted":
        return [entry]
    orders: list[dict[str, Any]] = entry.get("orders") or []
    return orders


def order_digest(order: dict[str, Any]) -> str:
    """The digest of an accepted order's bytes as signed (``digest``; journals made before seeds
    were committed say ``sha256``)."""
    digest: str = order.get("digest") or order["sha256"]
    return digest


def facts(log: list[dict[str, Any]]) -> Facts:
    """The facts of the journal ``log``, read in order."""
    result = Facts()
    for entry in log:
        result.feed(entry)
    return result


MISFITS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What a fold raises for a line whose fields do not fit its type."""


def facts_of(root: Path, lines: list[tuple[int, Any]]) -> Facts:
    """:func:`facts` of the numbered lines of the journal of the game at ``root``
    (:func:`numbered_lines`): a line that does not fit its type is named (:func:`misfit`)."""
    result = Facts()
    read_through(root, lines, result.feed)
    return result


def read_through(root: Path, lines: list[tuple[int, Any]], *feeds: Callable[[Any], Any]) -> None:
    """Each of the numbered lines of the whole journal of the game at ``root``
    (:func:`numbered_lines`, from the first) fed to each fold's ``feeds``: a line one of them
    cannot read is named (:func:`misfit`)."""
    for number, entry in lines:
        try:
            for feed in feeds:
                feed(entry)
        except MISFITS:
            raise misfit(root, number) from None


def addresses(entry: dict[str, Any], read: Callable[[str], Any]) -> tuple[str, str]:
    """The new and the old address of a ``replaced`` line: in the hidden file it names
    (``addresses``), so that the journal, which a public archive holds, names no address;
    older journals have them in the line."""
    if "addresses" in entry:
        found = _addresses(entry["addresses"], read)
        return str(found["email"]), str(found["was_email"])
    return str(entry["email"]), str(entry["was_email"])


def _addresses(rel: Any, read: Callable[[str], Any]) -> Any:
    """The addresses file a line names, read (ValueError when no such file is there: the line,
    or the game's folder, was changed by hand)."""
    try:
        return read(named_file(rel))
    except FileNotFoundError:
        raise ValueError(f"the file {rel!r} the line names is not there") from None


def former_keys(created: dict[str, Any], log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each key a seat held before a ``replaced`` line gave it another, in the order they gave
    way: ``player``, ``key``, and the ``turn`` and time (``at``) of the replacement."""
    keys = {str(p["name"]): p.get("key") for p in created["players"]}
    turn, found = 1, []
    for entry in log:
        kind = entry.get("type")
        if kind == "adjudicated":
            turn = int(entry["turn"]) + 1
        elif kind == "rolled-back":
            turn = int(entry["turn"])
        elif kind == "replaced" and entry.get("player") in keys:
            player = str(entry["player"])
            found.append(
                {"player": player, "key": keys[player], "turn": turn, "at": entry.get("at")}
            )
            keys[player] = entry["key"]
    return found


class SeatsFold:
    """The seats as the journal changes them, read line by line (:func:`seats`); it can go on
    from where it stopped (:mod:`adjudicator.store.summary` keeps it between commands)."""

    def __init__(self, meta: dict[str, Any], joins: dict[str, dict[str, Any]]) -> None:
        self.meta = meta
        self.joins = joins
        self.by_name = {seat["name"]: seat for seat in meta["players"]}

    def feed(self, entry: dict[str, Any], read: Callable[[str], Any]) -> None:
        """Read one more line; ``read`` reads a file of the game."""
        if "signup" in self.meta:
            _signup_seats(entry, self.meta, self.by_name, self.joins, read)
        seat = self.by_name.get(entry.get("player", ""))
        if seat is None:
            if entry["type"] in ("replaced", "resigned"):  # the game master's: of a seat
                raise ValueError(f"{entry['player']!r} has no seat in the game")
            return
        if entry["type"] == "replaced":
            seat["email"], seat["key"] = addresses(entry, read)[0], entry["key"]
            if "lang" in entry:
                seat["lang"] = entry["lang"]
            seat.pop("resigned", None)
        elif entry["type"] == "resigned":
            seat["resigned"] = entry["turn"]


def seats(
    created: dict[str, Any], log: list[dict[str, Any]], read: Callable[[str], Any]
) -> dict[str, Any]:
    """The game as ``new`` made it (``game.json``) with the seats the journal changed since:
    ``replaced`` (address, key, language; a resigned seat plays again) and ``resigned``;
    ``read`` reads a file of the game (the addresses a ``replaced`` line names)."""
    fold = SeatsFold(copy.deepcopy(created), {})
    for entry in log:
        fold.feed(entry, read)
    return fold.meta


def joins(log: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """An open game's joins taken and not yet seated, refused or left, by name, in the order
    they were taken; each as its line gave it, with ``confirmed`` when its address confirmed."""
    found: dict[str, dict[str, Any]] = {}
    for entry in log:
        for name in entry.get("replaced") or []:  # a squat, before the join that replaces it
            found.pop(name, None)
        for join in entry.get("joins") or []:
            found[join["name"]] = dict(join)
        for name in entry.get("confirmed") or []:
            if name in found:
                found[name]["confirmed"] = True
        gone = [*(entry.get("seated") or []), *(entry.get("left") or [])]
        gone += [t["name"] for t in entry.get("turned_away") or []]
        for name in gone:
            found.pop(name, None)
        if entry.get("started") or entry.get("closed"):
            found.clear()
    return found


def join_order(first: list[str], log: list[dict[str, Any]], seated: list[str]) -> list[str]:
    """The ``seated`` names in join order, as an open game starts: the setup's players
    (``first``) first, then each join as ``log`` took it (a name that joined again: its last
    join)."""
    taken = [j["name"] for entry in log for j in entry.get("joins") or []]
    rank = {name: i for i, name in enumerate([*first, *taken])}
    return sorted(seated, key=lambda name: rank.get(name, len(rank)))


def joined_shares(log: list[dict[str, Any]]) -> dict[str, str]:
    """The share each join carried, by name (the last join of a name)."""
    return {j["name"]: j["share"] for e in log for j in e.get("joins") or []}


def _signup_seats(
    entry: dict[str, Any],
    meta: dict[str, Any],
    by_name: dict[str, dict[str, Any]],
    joins: dict[str, dict[str, Any]],
    read: Callable[[str], Any],
) -> None:
    """The seats one line of an open game changes: a join taken (``joins``), seated
    (``seated``), leaving (``left``), and the seat order the start fixed (``started``)."""
    for name in entry.get("replaced") or []:
        joins.pop(name, None)
    for join in entry.get("joins") or []:
        joins[join["name"]] = join
    for name in entry.get("seated") or []:
        join = joins.pop(name)
        email = str(_addresses(join["addresses"], read)["email"])
        seat = {"name": name, "email": email, "key": join["key"]}
        seat.update({k: join[k] for k in ("tz",) if k in join})
        seat["lang"] = join["lang"]
        meta["players"].append(seat)
        by_name[name] = seat
    for name in entry.get("left") or []:
        joins.pop(name, None)
        if name in by_name:
            meta["players"].remove(by_name.pop(name))
    started = entry.get("started")
    if started:
        order = {name: index for index, name in enumerate(started["players"])}
        meta["players"].sort(key=lambda seat: order[seat["name"]])
