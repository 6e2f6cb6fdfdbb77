"""Deadlines as time arithmetic: pure functions, no clock and no files.

A setup's ``deadline`` is a duration (``48h``: that long after the turn opens) or a daily time
(``20:00 Europe/Berlin``: the first such moment at least 24 hours after the turn opens). Times
are aware datetimes; the log keeps them in UTC.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from adjudicator.rules.contract import Msg, msg
from adjudicator.rules.errors import AdjudicatorError

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

DURATION = re.compile(r"^(\d+)([mhd])\Z")
DAILY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?: (\S+))?\Z")
MIN_NOTICE = timedelta(hours=24)
"""A daily deadline falls at least this long after the turn opens."""

LAST_DEADLINE = datetime.max.replace(tzinfo=UTC) - timedelta(hours=14)
"""9999-12-31 09:59 UTC: the last moment still in the year 9999 in every time zone (UTC+14 the
furthest east), so that every reader can be shown it in their own (E15); a later deadline or
time is past the calendar."""
_PAST_LAST = f"past {LAST_DEADLINE:%Y-%m-%d %H:%M} UTC, the last deadline every time zone can show"
FIRST_MOMENT = datetime.min.replace(tzinfo=UTC) + timedelta(hours=12)
"""0001-01-01 12:00 UTC: the first moment in the year 1 in every time zone (UTC-12 the furthest
west); a time before it is before the calendar."""

_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
_LOCAL = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?: (\S+))?$")


class ScheduleError(ValueError):
    """A duration, time or zone that cannot be read; the message says what is expected."""


class PastTheCalendar(ScheduleError):
    """A well-formed duration or time that leads past the year 9999 (or before the year 1),
    where Python's dates end: the value is unusable rather than malformed."""


def _compact(delta: timedelta) -> str:
    """``99999999d``, ``2d 3h``, ``30m``: a duration as the setup writes it, zero units left out."""
    minutes = int(delta.total_seconds()) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{n}{unit}" for n, unit in ((days, "d"), (hours, "h"), (mins, "m")) if n]
    return " ".join(parts) or "0m"


def later(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``; PastTheCalendar past :data:`LAST_DEADLINE` (instead of an
    OverflowError past the year 9999)."""
    try:
        moved = moment + delta
    except OverflowError:
        raise PastTheCalendar(
            f"{_compact(delta)} after {utc_text(moment)} is past the year 9999"
        ) from None
    if moved > LAST_DEADLINE:
        raise PastTheCalendar(f"{_compact(delta)} after {utc_text(moment)} is {_PAST_LAST}")
    return moved


def earlier(moment: datetime, delta: timedelta) -> datetime:
    """``moment - delta``; PastTheCalendar before :data:`FIRST_MOMENT` (instead of an
    OverflowError before the year 1)."""
    try:
        moved = moment - delta
    except OverflowError:
        moved = None
    if moved is None or moved < FIRST_MOMENT:
        raise PastTheCalendar(f"{_compact(delta)} before {utc_text(moment)} is before the year 1")
    return moved


def reminder_at(deadline: datetime, reminder: str) -> datetime:
    """When ``reminder`` (a duration before ``deadline``) falls: the calendar's first moment
    for one that would fall before it (a deadline ``extend`` moved earlier: long past)."""
    try:
        return earlier(deadline, duration(reminder))
    except PastTheCalendar:
        return datetime.min.replace(tzinfo=UTC)


def duration(text: str) -> timedelta:
    """``30m``, ``48h`` or ``2d`` as a timedelta."""
    match = DURATION.match(text)
    if match is None:
        raise ScheduleError(f"{text!r} is not a duration such as '30m', '48h' or '2d'")
    try:
        return int(match.group(1)) * _UNITS[match.group(2)]
    except (OverflowError, ValueError):  # over 999999999 days, or digits past int()'s limit
        raise PastTheCalendar(f"{text!r} is so long it ends past the year 9999") from None


def zone(name: str | None) -> ZoneInfo:
    """The IANA time zone ``name`` (UTC for None). ``zoneinfo`` is imported here: a command
    of a game without deadlines or zones does not load it."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(
            f"unknown time zone {name!r}: write an IANA time zone name, such as Europe/Berlin; "
            f"one that this machine's time zone data lacks is unknown here too ({GET_ZONES})"
        ) from None


GET_ZONES = (
    "install or update the system's time zone data (tzdata), or Python's: pip install tzdata"
)
"""How to get a zone this machine's time zone data lacks."""


class ZoneUnknownHere(AdjudicatorError):
    """A zone of a game (checked when it was made) that this machine's time zone data does not
    hold: a zone newer than the data, or no data at all (exit 4, as for a game that cannot be
    worked on now; not a ``NotNow``, which callers take for a turn that waits)."""

    exit_code = 4


def known_here(name: str, whose: str = "the game's") -> ZoneInfo:
    """The zone ``name`` of a game (``whose``: a player's own, "alice's"), or
    :class:`ZoneUnknownHere` saying which zone to get and how."""
    try:
        return zone(name)
    except ScheduleError:
        raise ZoneUnknownHere(
            f"{whose} time zone {name!r} is not in this machine's time zone data: {GET_ZONES}"
        ) from None


def shown_in(when: datetime, name: str) -> str:
    """:func:`shown` in the game's zone ``name``; in UTC alone, saying why, where this machine's
    time zone data lacks the zone (a moment is shown whatever the machine)."""
    try:
        return shown(when, zone(name))
    except ScheduleError:
        unknown = f"the game's time zone {name!r} is not in this machine's time zone data"
        return f"{utc_text(when)} ({unknown})"


def game_zone(meta: dict[str, Any]) -> ZoneInfo:
    """The zone deadlines are shown in: ``timezone``, else the daily deadline's, else UTC."""
    return known_here(game_zone_name(meta))


def game_zone_name(meta: dict[str, Any]) -> str:
    """The name of :func:`game_zone`, as the setup gave it (checked when the game was made),
    without loading the zone."""
    if meta.get("timezone"):
        return str(meta["timezone"])
    daily = DAILY.match(meta.get("deadline") or "")
    return daily.group(3) if daily and daily.group(3) else "UTC"


def player_zone(meta: dict[str, Any], player: str) -> ZoneInfo:
    """The zone ``player``'s deadlines are shown in: their own ``tz`` (the setup's player
    entry), else the game's (:func:`game_zone`)."""
    for seat in meta["players"]:
        if seat["name"] == player and seat.get("tz"):
            return known_here(seat["tz"], f"{player}'s")
    return game_zone(meta)


def deadline_after(spec: str, opened: datetime, meta: dict[str, Any]) -> datetime:
    """The deadline of a turn that opened at ``opened``, by the setup's ``deadline`` ``spec``."""
    if DURATION.match(spec):
        deadline = later(opened, duration(spec))
        return in_utc(deadline.isoformat(), deadline)
    daily = DAILY.match(spec)
    if daily is None:
        raise ScheduleError(f"{spec!r} is neither a duration nor a daily time")
    where = known_here(daily.group(3)) if daily.group(3) else game_zone(meta)
    try:
        earliest = later(opened, MIN_NOTICE).astimezone(where)
        hour, minute = int(daily.group(1)), int(daily.group(2))
        day = earliest.date()
        while True:
            candidate = datetime(day.year, day.month, day.day, hour, minute, tzinfo=where)
            utc = candidate.astimezone(UTC)
            if utc > LAST_DEADLINE:
                raise PastTheCalendar(f"the next {spec} is {_PAST_LAST}")
            if utc >= earliest.astimezone(UTC):
                return utc
            day += timedelta(days=1)
    except OverflowError:
        raise PastTheCalendar(f"the next {spec} is past the year 9999") from None


def moment(text: str, default_zone: Callable[[], ZoneInfo]) -> datetime:
    """A time the game master gives: ISO 8601 with an offset, or ``YYYY-MM-DD HH:MM [Zone]``
    (in ``default_zone()`` when no zone is named; asked for only then)."""
    local = _LOCAL.match(text.strip())
    if local is not None:
        where = zone(local.group(3)) if local.group(3) else default_zone()
        try:
            naive = datetime.fromisoformat(f"{local.group(1)}T{local.group(2)}")
        except ValueError:
            raise ScheduleError(f"{text!r} is not a real date and time") from None
        return in_utc(text, naive.replace(tzinfo=where))
    try:
        given = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ScheduleError(
            f"{text!r} is not a time: write '2026-11-25 20:00', '2026-11-25 20:00 Europe/Berlin' "
            "or ISO 8601 with an offset"
        ) from None
    if given.tzinfo is None:
        given = given.replace(tzinfo=default_zone())
    return in_utc(text, given)


def in_utc(text: str, when: datetime) -> datetime:
    """``when`` (given as ``text``) in UTC (9999-12-31 23:30 at UTC-10 is in the year 10000
    there); PastTheCalendar past :data:`LAST_DEADLINE` or before :data:`FIRST_MOMENT` too."""
    try:
        utc = when.astimezone(UTC)
    except OverflowError:
        end = "past the year 9999" if when.year > 1 else "before the year 1"
        raise PastTheCalendar(f"{text!r} is {end} in UTC") from None
    if utc > LAST_DEADLINE:
        raise PastTheCalendar(f"{text!r} is {_PAST_LAST}")
    if utc < FIRST_MOMENT:
        raise PastTheCalendar(f"{text!r} is before the year 1 in some time zone")
    return utc


def span(delta: timedelta) -> Msg:
    """``2d 3h 5m`` in the reader's units (rounded down to the minute; ``0m`` under a
    minute): codes ``span-days``, ``span-hours``, ``span-minutes``."""
    minutes = int(abs(delta).total_seconds()) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return msg("span-days", days=days, hours=hours, minutes=mins)
    if hours:
        return msg("span-hours", hours=hours, minutes=mins)
    return msg("span-minutes", minutes=mins)


def utc_text(when: datetime) -> str:
    """``2026-11-25 19:00 UTC``."""
    return f"{when.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def shown(when: datetime, where: ZoneInfo) -> str:
    """``2026-11-25 19:00 UTC`` and, for another zone, ``(20:00 CET, Europe/Berlin)`` too."""
    text = utc_text(when)
    if where.key != "UTC":
        local = when.astimezone(where)
        text += f" ({local:%Y-%m-%d %H:%M} {local.tzname()}, {where.key})"
    return text


def left(deadline: datetime, now: datetime) -> Msg:
    """``1d 2h 5m left`` or ``passed 3h 0m ago`` (codes ``time-left``, ``time-passed``)."""
    if deadline > now:
        return msg("time-left", span=span(deadline - now))
    return msg("time-passed", span=span(now - deadline))
