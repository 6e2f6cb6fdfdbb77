"""The engine's own intake, run again over an archive: every order and notice a journal line
says its step took is judged once more by :func:`adjudicator.engine.intake.assess` (or
:func:`~adjudicator.engine.notice_intake.assess_notice`) as the game stood before that line, at
the time the journal gives it. So ``verify`` holds no second copy of what an order must be (its
signature under the key its seat held then, its turn and phase, no replay of bytes taken before,
valid for its player's hand); it asks the code that took it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator.engine.intake import assess, took
from adjudicator.engine.notices import path as notice_path
from adjudicator.engine.open_game import OpenGame
from adjudicator.rules.contract import Msg, msg
from adjudicator.rules.digests import Digester
from adjudicator.rules.verdict import Verdict
from adjudicator.store import clock, journal
from adjudicator.store.gamedir import GameDir

WITHHELD = "(withheld)"
"""A seat's address where a public archive withholds it: judging an order needs none."""
UNKNOWN_ZONE = timedelta(hours=14)
"""How far a day in the game's time zone can run behind UTC's, at most (UTC-12 to UTC+14)."""


Place = Callable[[str, int], str]
"""Where the file a path held after a journal line (1: the first) is in the archive."""


class ArchiveDir(GameDir):
    """An archive's files read as a game directory is, each path as it stood after the line
    the replay is at (``line``: a rollback moves a turn's files aside, and a later line may
    name the same paths again); the states are the replay's own; nothing is ever written."""

    def __init__(
        self,
        files: dict[str, bytes],
        place: Place,
        created: dict[str, Any],
        states: dict[int, bytes],
        digester: Digester,
        withheld: set[str],
    ) -> None:
        super().__init__(Path(str(created["id"])))
        self.files, self.place, self.states = files, place, states
        self.line = 1
        self._created = created
        self._digester = digester
        self.withheld = withheld

    def where(self, rel: str) -> str:
        """Where the file at ``rel`` as the game stood after line :attr:`line` is held."""
        return self.place(rel, self.line)

    def read_bytes(self, rel: str) -> bytes:
        try:
            return self.files[self.where(rel)]
        except KeyError:
            raise FileNotFoundError(rel) from None

    def read_json(self, rel: str) -> Any:
        if rel in self.withheld and self.where(rel) not in self.files:
            return {"email": WITHHELD, "was_email": WITHHELD}
        return super().read_json(rel)

    def created(self) -> dict[str, Any]:
        return self._created

    def log(self) -> list[dict[str, Any]]:
        return []  # a replica is always opened with the journal as it stood at a line

    def state(self, turn: int, files: Mapping[str, str]) -> dict[str, Any]:
        # parsed from its bytes at each reading: a copy of its own, as a game directory's is
        # (a tenth of what copy.deepcopy of the parsed state took, most of a verify's time)
        state: dict[str, Any] = json.loads(self.states[turn])
        return state

    def write_bytes(self, rel: str, data: bytes) -> None:
        raise AssertionError(f"an archive is read, never written ({rel})")


def archive_dir(
    files: dict[str, bytes],
    place: Place,
    entries: list[dict[str, Any]],
    meta: dict[str, Any],
    states: dict[int, bytes],
    digester: Digester,
) -> ArchiveDir:
    """The archive as the engine reads a game: ``meta`` is ``game.json`` when the archive holds
    it (a full archive), else the journal's header with the revealed seed."""
    withheld = {
        str(e["addresses"]) for e in entries if e.get("type") == "replaced" and "addresses" in e
    }
    withheld |= {str(j["addresses"]) for e in entries for j in e.get("joins") or []}
    return ArchiveDir(files, place, meta, states, digester, withheld)


def judged_again(
    store: ArchiveDir, before: list[dict[str, Any]], entry: dict[str, Any], zone_known: bool
) -> tuple[str, Msg] | None:
    """Judge each order and notice ``entry`` took, in turn, as the game stood after ``before``
    (the journal lines before it): None when the engine takes each as the line says, else the
    file and why not. A notice a public archive does not hold (press) is not judged.
    ``zone_known``: the archive says the game's time zone; without it, a date is judged by the
    earliest day it may have been anywhere, so that a notice taken that day is never refused."""
    handle = OpenGame(store, log=before)
    if handle.over():
        return "log.jsonl", msg("verify-not-taken", why=msg("game-over", game=handle.meta["id"]))
    for order in journal.order_entries(entry):
        rel = f"{store.turn_dir(int(order['turn']))}/orders/{order['file']}"
        if store.where(rel) not in store.files:
            return rel, msg("verify-file-missing")
        with taken_at(order, zone_known):
            found = assess(handle, rel, store.read_bytes(rel), _signature(store, rel))
        if isinstance(found, Verdict):
            return rel, _refused(found)
        said = (int(order["turn"]), str(order["player"]), journal.order_digest(order))
        sealed = (order.get("kind") == "commitment") == (found.kind == "commitment")
        if (found.turn, found.player, found.digest) != said or not sealed:
            return rel, msg("verify-taken-otherwise")
        took(handle, order)
    for notice in entry.get("notices") or []:
        rel = notice_path(str(notice["kind"]), str(notice["file"]))
        if store.where(rel) not in store.files:
            continue  # press: never in a public archive (a full one names it missing)
        from adjudicator.engine.notice_intake import assess_notice

        with taken_at(notice, zone_known):
            taken = assess_notice(handle, rel, store.read_bytes(rel), _signature(store, rel), None)
        if isinstance(taken, Verdict):
            return rel, _refused(taken)
        as_said = (notice["kind"], notice["digest"], notice.get("turn"))
        if (taken.kind, taken.digest, handle.turn()) != as_said:  # press is listed by turn
            return rel, msg("verify-taken-otherwise")
        handle.noticed.append(notice)
    opened, journaled = handle.opening().get("reveal"), entry.get("reveal")
    if opening(opened) != opening(journaled):
        return "log.jsonl", msg("verify-reveal-opened", turn=opening(journaled or opened)[0])
    return None


def _signature(store: ArchiveDir, rel: str) -> bytes | None:
    try:
        return store.read_bytes(rel + ".sig")
    except FileNotFoundError:
        return None


def _refused(verdict: Verdict) -> Msg:
    """Why the engine refuses what the journal says it took: the first reason."""
    why = verdict.reasons[0].msg if verdict.reasons else msg("verify-taken-otherwise")
    return msg("verify-not-taken", why=why)


def opening(reveal: Any) -> tuple[int | None, list[str]]:
    """A reveal opened, by what a replay can judge: its turn and who made no commitment (its
    deadline is counted from the moment it opened)."""
    if not isinstance(reveal, dict):
        return None, []
    return int(reveal["turn"]), sorted(reveal.get("without") or [])


def taken_at(taken: dict[str, Any], zone_known: bool) -> Any:
    """Judge at the time the journal says a file was taken."""
    try:
        moment = datetime.fromisoformat(str(taken["at"]))
    except (KeyError, ValueError):
        moment = clock.now()
    if moment.tzinfo is None:
        raise ValueError(f"a time without its offset: {taken.get('at')!r}")
    return clock.fixed(moment if zone_known else moment - UNKNOWN_ZONE)
