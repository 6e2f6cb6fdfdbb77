"""The one place the engine reads the time.

``ADJUDICATOR_NOW`` (an ISO 8601 time with its offset, e.g. ``2026-11-23T20:00:00+01:00``)
makes every command act as if it were that moment: for trying out a schedule, for the tests, and
for re-running a cron job that was missed. Unset, the time is the system's, in UTC.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

from adjudicator.rules.errors import UsageProblem

ENV_VAR = "ADJUDICATOR_NOW"
_fixed: ContextVar[datetime | None] = ContextVar("fixed", default=None)


@contextmanager
def fixed(moment: datetime) -> Iterator[None]:
    """Within: :func:`now` is ``moment`` (``verify`` judges each order again at the time the
    journal says it was taken)."""
    token = _fixed.set(moment.astimezone(UTC))
    try:
        yield
    finally:
        _fixed.reset(token)


def now() -> datetime:
    """The current time, aware, in UTC (``ADJUDICATOR_NOW`` when set)."""
    moment = _fixed.get()
    if moment is not None:
        return moment
    given = os.environ.get(ENV_VAR)
    if not given:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        moment = datetime.fromisoformat(given)
    except ValueError:
        raise UsageProblem(
            f"{ENV_VAR}={given!r} is not an ISO 8601 time (e.g. 2026-11-23T20:00:00+01:00)"
        ) from None
    if moment.tzinfo is None:
        raise UsageProblem(f"{ENV_VAR}={given!r} has no offset (add Z or +01:00)")
    from adjudicator.rules import schedule

    try:
        return schedule.in_utc(f"{ENV_VAR}={given}", moment)
    except schedule.PastTheCalendar as error:
        first, last = schedule.FIRST_MOMENT, schedule.LAST_DEADLINE
        raise UsageProblem(
            f"{error}: give a time from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"
        ) from None


def stamp(moment: datetime | None = None) -> str:
    """``moment`` (default: now) as the log writes it: ISO 8601 in UTC, to the second."""
    return (moment or now()).astimezone(UTC).isoformat(timespec="seconds")
