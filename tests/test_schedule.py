"""Deadline arithmetic (pure): durations, daily times in a zone, times the game master gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.present.words import say
from adjudicator.rules import schedule
from adjudicator.store.journal import clock

OPENED = datetime(2026, 11, 23, 16, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("48h", "2026-11-25T16:30:00+00:00"),
        ("30m", "2026-11-23T17:00:00+00:00"),
        ("2d", "2026-11-25T16:30:00+00:00"),
        # the first 20:00 in Berlin (19:00 UTC in winter) at least 24 h later
        ("20:00 Europe/Berlin", "2026-11-24T19:00:00+00:00"),
        # 17:00 Berlin on the 24th is under 24 h away: the 25th
        ("17:00 Europe/Berlin", "2026-11-25T16:00:00+00:00"),
        ("16:30", "2026-11-24T16:30:00+00:00"),
    ],
)
def test_a_turns_deadline(spec: str, expected: str) -> None:
    assert schedule.deadline_after(spec, OPENED, {}).isoformat() == expected


def test_a_daily_time_without_a_zone_is_in_the_games_zone() -> None:
    meta = {"timezone": "America/New_York"}
    assert schedule.deadline_after("20:00", OPENED, meta).isoformat() == (
        "2026-11-25T01:00:00+00:00"
    )


def test_a_daily_deadline_across_the_change_to_summer_time() -> None:
    opened = datetime(2026, 3, 28, 18, 0, tzinfo=UTC)  # Berlin moves its clocks on the 29th
    deadline = schedule.deadline_after("21:00 Europe/Berlin", opened, {})
    assert deadline.isoformat() == "2026-03-29T19:00:00+00:00"  # 21:00 CEST


@pytest.mark.parametrize(
    ("spec_or_time", "expected"),
    [
        # 02:30 does not happen in Berlin on 29 March 2026 (02:00 CET is 03:00 CEST): the time is
        # read with the offset before the change, as iCalendar does (RFC 5545, 3.3.5)
        ("02:30 Europe/Berlin", "2026-03-29T01:30:00+00:00"),  # 03:30 CEST
        ("2026-03-29 02:30 Europe/Berlin", "2026-03-29T01:30:00+00:00"),
        # 02:30 happens twice on 25 October 2026 (03:00 CEST is 02:00 CET): the first
        ("02:30 Europe/Berlin", "2026-10-25T00:30:00+00:00"),  # 02:30 CEST
        ("2026-10-25 02:30 Europe/Berlin", "2026-10-25T00:30:00+00:00"),
    ],
)
def test_a_time_the_clocks_skip_or_repeat(spec_or_time: str, expected: str) -> None:
    """A daily deadline or a time the game master gives that falls in the hour the clocks skip
    is that time by the offset before the change (an hour later on the clock); one that comes
    twice is the first (docs/rulings.md, E24)."""
    if " " not in spec_or_time.split(" Europe")[0]:  # a daily time: the day it falls on
        day = datetime.fromisoformat(expected).date()
        opened = datetime(day.year, day.month, day.day, tzinfo=UTC) - timedelta(days=1)
        found = schedule.deadline_after(spec_or_time, opened, {})
    else:
        found = schedule.moment(spec_or_time, lambda: schedule.zone("UTC"))
    assert found.isoformat() == expected


@pytest.mark.seconds
@given(
    opened=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1), timezones=st.just(UTC)
    ),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    where=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]),
)
def test_a_daily_deadline_is_the_first_such_time_at_least_24_hours_on(
    opened: datetime, hour: int, minute: int, where: str
) -> None:
    deadline = schedule.deadline_after(f"{hour:02d}:{minute:02d} {where}", opened, {})
    assert deadline - opened >= timedelta(hours=24)
    assert deadline - opened < timedelta(hours=49)
    local = deadline.astimezone(schedule.zone(where))
    if local.utcoffset() == (local - timedelta(days=1)).utcoffset():  # not a day the clocks moved
        assert (local.hour, local.minute) == (hour, minute)
        assert deadline - opened < timedelta(hours=48)


def test_times_the_game_master_gives() -> None:
    def berlin() -> ZoneInfo:
        return schedule.zone("Europe/Berlin")

    assert schedule.moment("2026-11-25 20:00", berlin).isoformat() == "2026-11-25T19:00:00+00:00"
    assert schedule.moment("2026-11-25 20:00 UTC", berlin).isoformat() == (
        "2026-11-25T20:00:00+00:00"
    )
    assert schedule.moment("2026-11-25T20:00:00-05:00", berlin).isoformat() == (
        "2026-11-26T01:00:00+00:00"
    )
    for wrong in ["tomorrow", "2026-02-30 20:00", "2026-11-25 20:00 Mars/Olympus"]:
        with pytest.raises(schedule.ScheduleError):
            schedule.moment(wrong, berlin)


def test_how_a_deadline_is_shown() -> None:
    deadline = datetime(2026, 11, 24, 19, 0, tzinfo=UTC)
    berlin = schedule.zone("Europe/Berlin")
    assert schedule.shown(deadline, berlin) == (
        "2026-11-24 19:00 UTC (2026-11-24 20:00 CET, Europe/Berlin)"
    )
    assert schedule.shown(deadline, schedule.zone(None)) == "2026-11-24 19:00 UTC"
    assert say(schedule.left(deadline, OPENED)) == "1d 2h 30m left"
    assert say(schedule.left(deadline, deadline + timedelta(minutes=5))) == "passed 5m ago"


def test_durations() -> None:
    assert schedule.duration("90m") == timedelta(minutes=90)
    for wrong in ["48", "h", "1.5h", "-2h", "2w"]:
        with pytest.raises(schedule.ScheduleError):
            schedule.duration(wrong)


def test_the_clock_of_a_turn_opened_again_after_a_rollback_starts_afresh() -> None:
    log = [
        {"type": "created", "at": "2026-11-23T10:00:00+00:00", "turn": 1},
        {"type": "deadline", "at": "2026-11-23T10:00:00+00:00", "turn": 1,
         "deadline": "2026-11-25T10:00:00+00:00"},
        {"type": "adjudicated", "at": "2026-11-24T10:00:00+00:00", "turn": 1},
        {"type": "deadline", "at": "2026-11-24T10:00:00+00:00", "turn": 2,
         "deadline": "2026-11-26T10:00:00+00:00"},
        {"type": "reminded", "at": "2026-11-25T10:00:00+00:00", "turn": 2,
         "deadline": "2026-11-26T10:00:00+00:00", "before": "24h", "players": ["bob"]},
        {"type": "rolled-back", "at": "2026-11-25T11:00:00+00:00", "turn": 1, "superseded": 1},
    ]  # fmt: skip
    turn1 = clock(log, 1)
    assert turn1.rolled_back and turn1.deadline == datetime(2026, 11, 25, 10, tzinfo=UTC)
    log += [
        {"type": "adjudicated", "at": "2026-11-25T12:00:00+00:00", "turn": 1},
        {"type": "deadline", "at": "2026-11-25T12:00:00+00:00", "turn": 2,
         "deadline": "2026-11-27T12:00:00+00:00"},
    ]  # fmt: skip
    turn2 = clock(log, 2)
    assert turn2.deadline == datetime(2026, 11, 27, 12, tzinfo=UTC)
    assert turn2.opened == datetime(2026, 11, 25, 12, tzinfo=UTC)
    assert turn2.reminded == [] and not turn2.rolled_back
