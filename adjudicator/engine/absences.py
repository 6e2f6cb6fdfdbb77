"""Absences: a player away, from and to a date, and what the game's option ``absence`` makes of
it (docs/notices.md).

An accepted absence notice (:mod:`adjudicator.engine.notice_intake`) names the player only in its
file; this module reads the files the journal names and derives everything from them and the
options:

- ``absence: none`` (the default, as for games made before): no absence is taken;
- ``absence: extend``: a turn whose deadline falls on a day a player who owes orders is away
  gets its deadline moved, for everyone, to the deadline's time of day on the day after the
  absence (:func:`moved_deadline`);
- ``absence: default``: a player away today is not waited for: their seat plays the default
  orders unless they sent orders (:func:`left_out`).

``absence_days`` caps the days honoured per player per game: each absence counts its days from
its first day (or the day it was accepted, when later) to its last, days already counted not
again, in the order the absences were accepted; the days beyond the cap are not honoured.
Everything here is a pure reading of the journal and the notice files: no state of its own.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from adjudicator.engine.open_game import OpenGame, deadline_of
from adjudicator.rules import schedule
from adjudicator.rules.contract import Msg
from adjudicator.rules.options import DEFAULT_DAYS
from adjudicator.store import clock


@dataclass(frozen=True)
class Away:
    """One honoured stretch of a player's absence: ``start`` to ``end``, both days included."""

    player: str
    start: dt.date
    end: dt.date

    def json(self) -> dict[str, str]:
        return {"player": self.player, "from": str(self.start), "to": str(self.end)}


def mode(meta: dict[str, Any]) -> str:
    """The game's ``absence`` option (``none`` for games made before it)."""
    return str(meta["options"].get("absence", "none"))


def limit(meta: dict[str, Any]) -> int:
    """The game's ``absence_days`` (:data:`DEFAULT_DAYS` for games made before it)."""
    return int(meta["options"].get("absence_days", DEFAULT_DAYS))


def _local_date(meta: dict[str, Any], moment: dt.datetime) -> dt.date:
    return moment.astimezone(schedule.game_zone(meta)).date()


def honoured(
    meta: dict[str, Any], taken: list[tuple[str, dict[str, Any], dt.datetime]]
) -> dict[str, set[dt.date]]:
    """The days each player is away, as honoured: ``taken`` holds each accepted absence
    (player, ``{from, to}``, when it was accepted) in the order accepted."""
    cap = limit(meta)
    days: dict[str, set[dt.date]] = {}
    for player, absence, at in taken:
        counted = days.setdefault(player, set())
        day = max(absence["from"], _local_date(meta, at))
        while day <= absence["to"] and len(counted) < cap:
            counted.add(day)
            day += dt.timedelta(days=1)
    return days


def taken(handle: OpenGame) -> list[tuple[str, dict[str, Any], dt.datetime]]:
    """Every accepted absence (this step's included): player, ``{from, to}``, accepted when."""
    found = []
    for entry in handle.notices():
        if entry["kind"] != "absence":
            continue
        data = handle.notice(entry)
        found.append((data["player"], data["absence"], dt.datetime.fromisoformat(entry["at"])))
    return found


def days_of(handle: OpenGame) -> dict[str, set[dt.date]]:
    """The days each player is away in the game at ``handle`` (nothing under ``none``)."""
    if mode(handle.meta) == "none":
        return {}
    return honoured(handle.meta, taken(handle))


def stretches(days: dict[str, set[dt.date]], players: list[str]) -> list[Away]:
    """Each player's honoured days as stretches of days in a row, in the players' order."""
    found: list[Away] = []
    for player in players:
        ordered = sorted(days.get(player, ()))
        for day in ordered:
            if found and found[-1].player == player and found[-1].end + dt.timedelta(1) == day:
                found[-1] = Away(player, found[-1].start, day)
            else:
                found.append(Away(player, day, day))
    return found


def ahead(handle: OpenGame, today: dt.date | None = None) -> list[Away]:
    """The stretches not over by ``today`` (default: today in the game's time zone): who is
    away, or will be, until when (nothing once the game is over). Absences are public: every
    reader is shown these."""
    if mode(handle.meta) == "none" or handle.over():
        return []
    today = today or _local_date(handle.meta, clock.now())
    every = stretches(days_of(handle), handle.players)
    gone = out_of_game(handle)
    return [a for a in every if a.end >= today and a.player not in gone]


def lines(handle: OpenGame) -> list[Msg]:
    """What a report says of absences now: one line per stretch not over."""
    return [
        Msg("absence-away", {"player": a.player, "start": str(a.start), "end": str(a.end)})
        for a in ahead(handle)
    ]


def moved_deadline(
    meta: dict[str, Any],
    days: dict[str, set[dt.date]],
    deadline: dt.datetime | None,
    owing: list[str],
) -> dt.datetime | None:
    """Under ``extend``: ``deadline`` moved past every day one of ``owing`` is away on it, to
    the deadline's time of day (in the game's time zone) on the day after; else as it was."""
    if deadline is None or mode(meta) != "extend":
        return deadline
    where = schedule.game_zone(meta)
    while True:
        local = deadline.astimezone(where)
        away = [p for p in owing if local.date() in days.get(p, ())]
        if not away:
            return deadline
        end = max(_run_end(days[p], local.date()) for p in away)
        day = end + dt.timedelta(days=1)
        deadline = dt.datetime.combine(day, local.timetz().replace(tzinfo=None), tzinfo=where)


def _run_end(days: set[dt.date], day: dt.date) -> dt.date:
    while day + dt.timedelta(days=1) in days:
        day += dt.timedelta(days=1)
    return day


def reveal_of(handle: OpenGame, turn: int, without: list[str]) -> dict[str, Any]:
    """The reveal of ``turn`` opening now: its deadline (counted as a turn's is, and moved as
    :func:`opening_deadline` moves it) and who made no commitment. The step that takes the
    last commitment opens it, or else the adjudication."""
    deadline = deadline_of(handle.meta, clock.now())
    owing = [p for p in handle.players if p in handle.committed(turn) and p not in without]
    deadline = opening_deadline(handle, deadline, owing)
    return {"turn": turn, "deadline": deadline, "without": without}


def opening_deadline(handle: OpenGame, deadline: str | None, owing: list[str]) -> str | None:
    """The deadline of a turn opening now (``deadline``, as :func:`deadline_of` gives it),
    moved under ``extend`` when one of ``owing`` (a resigned or conceded seat left out) is away
    on its day."""
    if deadline is None or mode(handle.meta) != "extend":
        return deadline
    playing = [p for p in owing if p not in out_of_game(handle)]
    opened = dt.datetime.fromisoformat(deadline)
    return clock.stamp(moved_deadline(handle.meta, days_of(handle), opened, playing))


def moved_now(handle: OpenGame) -> dict[str, Any]:
    """What a step that accepted absences says of the current turn's deadline:
    ``{"deadline_moved": {turn, deadline, was}}`` when they move it (``extend``), else nothing.
    A step that opens a reveal counts its deadline afresh (:func:`reveal_of`), a paused clock
    moves no deadline (``resume`` sets it), nor does an absence taken once the deadline has
    passed: the turn is due, whether or not ``tick`` came first."""
    if not any(n["kind"] == "absence" for n in handle.noticed) or handle.opens:
        return {}
    if mode(handle.meta) != "extend":
        return {}
    times = handle.clock()
    if times.deadline is None or times.paused_since is not None or handle.over():
        return {}
    if times.deadline <= clock.now():
        return {}
    turn = handle.turn()
    gone = [*out_of_game(handle), *handle.without(turn)]  # no commitment: no reveal owed
    owing = [p for p in handle.game.owed(handle.state(turn)) if p not in gone]
    moved = moved_deadline(handle.meta, days_of(handle), times.deadline, owing)
    if moved is None or moved == times.deadline:
        return {}
    was = clock.stamp(times.deadline)
    return {"deadline_moved": {"turn": turn, "deadline": clock.stamp(moved), "was": was}}


def out_of_game(handle: OpenGame) -> list[str]:
    """The players whose absences no longer count: they resigned or conceded."""
    return [*handle.resigned(), *handle.votes().conceded]


def left_out(handle: OpenGame) -> list[str]:
    """Under ``default``: the players away today (in the game's time zone), whose seats the
    turn does not wait for. Not before their absence begins: until then they may still send
    orders (E21)."""
    if mode(handle.meta) != "default":
        return []
    days = days_of(handle)
    day = _local_date(handle.meta, clock.now())
    return [p for p in handle.players if day in days.get(p, ())]


def problems_of(handle: OpenGame, player: str, absence: dict[str, Any]) -> list[Any]:
    """Why an absence is refused by the game's options: none taken (``absence: none``), or the
    player's days all counted already. Called after the dates were found sound."""
    from adjudicator.rules.contract import Problem

    option = mode(handle.meta)
    if option == "none":
        return [Problem("absence-off", ("absence",), game=handle.meta["id"])]
    counted = days_of(handle).get(player, set())
    cap = limit(handle.meta)
    day = max(absence["from"], _local_date(handle.meta, clock.now()))
    new = any(day + dt.timedelta(n) not in counted for n in range((absence["to"] - day).days + 1))
    if len(counted) >= cap and new:
        return [Problem("absence-limit-spent", ("absence",), player=player, days=cap)]
    return []
