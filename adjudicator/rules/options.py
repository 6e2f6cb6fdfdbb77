"""The engine's own options, beside every game's: their values, defaults and bounds.

The setup file checks them (:mod:`adjudicator.engine.setup`); the game module never sees them.
"""

from __future__ import annotations

import datetime as dt

ENGINE_OPTIONS = {
    "nmr": ("default", "wait"),
    "sealing": ("plain", "commit-reveal"),
    "press": ("none", "public", "private", "grey"),
    "absence": ("none", "extend", "default"),
}
"""Each option the engine keeps for itself and its values, the default first."""
DEFAULT_DAYS = 14
"""``absence_days`` when the setup names none: two weeks per player per game."""
MAX_DAYS = 366
NUMBER_OPTIONS = {"absence_days": (DEFAULT_DAYS, MAX_DAYS)}
"""The engine's whole-number options: each one's default and highest value (the lowest is 0)."""
LAST_DAY = dt.date.max - dt.timedelta(days=3)
"""The last day an absence may end on: the day after it, at any time in any time zone (UTC-12
to UTC+14), must still be a deadline every zone can show, before the calendar ends with the
year 9999 (E15): 9999-12-29 23:59 at UTC-12 is 9999-12-31 01:59 at UTC+14."""
