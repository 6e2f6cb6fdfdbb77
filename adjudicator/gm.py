"""The game master's commands: extend, pause, resume, replace, resign, rollback.

Each holds the game's lock, checks everything first (a refusal changes nothing), then changes
the game and writes one journal line (see :mod:`adjudicator.journal`). Nothing is deleted: a
rolled-back turn's results are kept as a superseded copy.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator import clock, keys, schedule
from adjudicator.engine import OpenGame
from adjudicator.errors import InputRefused, NotNow, UsageProblem
from adjudicator.setupfile import EMAIL
from adjudicator.store import fsync_dir


def _running(handle: OpenGame) -> None:
    if handle.game.is_over(handle.state()):
        raise NotNow(f"game {handle.meta['id']} is over")


def _journal(handle: OpenGame, kind: str, **fields: Any) -> None:
    handle.dir.append_log({"type": kind, "at": clock.stamp(), **fields})


def extend(root: Path, by: str | None = None, to: str | None = None) -> datetime:
    """Move the current turn's deadline: ``by`` a duration (from the deadline, or from now when
    the turn has none) or ``to`` a time; the new deadline."""
    if (by is None) == (to is None):
        raise UsageProblem("give exactly one of --by and --to")
    handle = OpenGame(root)
    with handle.dir.locked():
        _running(handle)
        now = clock.now()
        times = handle.clock()
        try:
            if by is not None:
                new = schedule.later(times.deadline or now, schedule.duration(by))
            else:
                assert to is not None
                new = schedule.moment(to, schedule.game_zone(handle.meta))
        except schedule.PastTheCalendar as error:  # well formed, but unusable: exit 3
            raise InputRefused(
                f"{'--by' if by is not None else '--to'} {by or to}: {error}"
            ) from None
        except schedule.ScheduleError as error:
            raise UsageProblem(str(error)) from None
        if new <= now:
            raise UsageProblem(
                f"the new deadline {schedule.shown(new, schedule.game_zone(handle.meta))} "
                "is not in the future"
            )
        was = None if times.deadline is None else clock.stamp(times.deadline)
        _journal(handle, "extended", turn=handle.turn(), deadline=clock.stamp(new), was=was)
    return new


def pause(root: Path) -> None:
    """Stop the clock: no deadline passes, no reminder goes, ``tick`` adjudicates nothing."""
    handle = OpenGame(root)
    with handle.dir.locked():
        _running(handle)
        if handle.clock().paused_since is not None:
            raise NotNow(f"game {handle.meta['id']} is paused already")
        _journal(handle, "paused", turn=handle.turn())


def resume(root: Path) -> datetime | None:
    """Start the clock again; the deadline moves by the time the turn stood paused."""
    handle = OpenGame(root)
    with handle.dir.locked():
        times = handle.clock()
        if times.paused_since is None:
            raise NotNow(f"game {handle.meta['id']} is not paused")
        now = clock.now()
        new = None
        if times.deadline is not None:
            stood_from = max(times.paused_since, times.opened or times.paused_since)
            new = times.deadline + max(now - stood_from, timedelta(0))
        stamp = None if new is None else clock.stamp(new)
        _journal(handle, "resumed", turn=handle.turn(), deadline=stamp)
    return new


def replace(
    root: Path, player: str, email: str | None = None, key_line: str | None = None
) -> dict[str, Any]:
    """Give ``player``'s seat a new address or key (a new player, or a lost key).

    Orders already accepted stay in effect; a resigned seat is taken up again.
    """
    if email is None and key_line is None:
        raise UsageProblem("give --email, --key or --key-file (or several)")
    handle = OpenGame(root)
    handle.require_player(player)
    if email is not None and not EMAIL.match(email):
        raise InputRefused(f"{email!r} is not an email address")
    if key_line is not None:
        key_line = key_line.strip()
        try:
            blob = keys.parse_public_line(key_line)
        except keys.KeyProblem as error:
            raise InputRefused(f"the new key: {error.reason}") from None
    with handle.dir.locked():
        meta = handle.dir.meta()
        seat = next(p for p in meta["players"] if p["name"] == player)
        if key_line is not None:
            for other in meta["players"]:
                if other["name"] != player and keys.parse_public_line(other["key"]) == blob:
                    raise InputRefused(
                        f"the new key is {other['name']}'s: each player needs their own"
                    )
        change = {
            "player": player,
            "email": email or seat["email"],
            "key": key_line or seat["key"],
            "was_email": seat["email"],
            "was_key": seat["key"],
            "resigned_before": bool(seat.get("resigned")),
        }
        seat["email"], seat["key"] = change["email"], change["key"]
        seat.pop("resigned", None)
        handle.dir.write_json("game.json", meta)
        _journal(handle, "replaced", turn=handle.turn(), **change)
    return change


def resign(root: Path, player: str) -> None:
    """Record ``player``'s resignation: from now on the seat plays the default orders."""
    handle = OpenGame(root)
    handle.require_player(player)
    with handle.dir.locked():
        _running(handle)
        meta = handle.dir.meta()
        seat = next(p for p in meta["players"] if p["name"] == player)
        if seat.get("resigned"):
            raise NotNow(f"{player} resigned already (turn {seat['resigned']})")
        if all(p.get("resigned") or p is seat for p in meta["players"]):
            raise NotNow(f"{player} is the last player still playing; a game needs one")
        turn = handle.turn()
        seat["resigned"] = turn
        handle.dir.write_json("game.json", meta)
        _journal(handle, "resigned", turn=turn, player=player)


def rollback(root: Path) -> int:
    """Undo the last adjudication; the turn it resolved is current again, its orders fixed.

    The next turn's folder becomes ``turns/NNNN.superseded-K`` and the resolution
    ``resolution.superseded-K.json`` (K counts the rollbacks of that turn): nothing is deleted.
    Returns the turn that is current again.
    """
    handle = OpenGame(root)
    store = handle.dir
    with store.locked():
        later = handle.turn()
        turn = later - 1
        if turn < 1:
            raise NotNow(f"game {handle.meta['id']} has no adjudication to roll back")
        resolution = store.root / store.turn_dir(turn) / "resolution.json"
        copy = 1
        while (store.root / f"{store.turn_dir(later)}.superseded-{copy}").exists():
            copy += 1
        kept = resolution.with_name(f"resolution.superseded-{copy}.json")
        if not (resolution.exists() or kept.exists()):
            raise NotNow(f"game {handle.meta['id']} has no adjudication to roll back")
        if resolution.exists():  # else a rollback was cut short between its two moves
            os.replace(resolution, kept)
            fsync_dir(resolution.parent)
        os.replace(
            store.root / store.turn_dir(later),
            store.root / f"{store.turn_dir(later)}.superseded-{copy}",
        )
        fsync_dir(store.root / "turns")
        _journal(handle, "rolled-back", turn=turn, superseded=copy)
    return turn
