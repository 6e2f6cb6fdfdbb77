"""The one place the engine reads the time.

``ADJUDICATOR_NOW`` (an ISO 8601 time with its offset, e.g. ``2026-11-23T20:00:00+01:00``)
makes every command act as if it were that moment: for trying out a schedule, for the tests, and
for re-running a cron job that was missed. Unset, the time is the system's, in UTC.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from adjudicator.rules.errors import UsageProblem

ENV_VAR = "ADJUDICATOR_NOW"


def now() -> datetime:
    """The current time, aware, in UTC (``ADJUDICATOR_NOW`` when set)."""
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
    return moment.astimezone(UTC)


def stamp(moment: datetime | None = None) -> str:
    """``moment`` (default: now) as the log writes it: ISO 8601 in UTC, to the second."""
    return (moment or now()).astimezone(UTC).isoformat(timespec="seconds")
