"""The journal: the game master's actions and the clock's, kept as lines of ``log.jsonl``.

Besides the engine's ``created``, ``accepted`` and ``adjudicated`` lines (the last with the
players ``defaulted`` and ``why``: ``complete``, ``deadline`` or ``gm``), the log holds:

==============  ===============================================================================
``deadline``    ``turn``, ``deadline``: the turn's deadline, set as the turn opens
``extended``    ``turn``, ``deadline``, ``was``: ``adjudicator extend``
``paused``      ``turn``: ``adjudicator pause`` (the clock stops)
``resumed``     ``turn``, ``deadline``: ``adjudicator resume`` (the deadline moved by the pause)
``replaced``    ``player``, ``email``, ``key``, ``was_email``, ``was_key``: ``adjudicator replace``
``resigned``    ``player``, ``turn``: ``adjudicator resign`` (the seat plays default orders)
``rolled-back`` ``turn``, ``superseded``: the adjudication of ``turn`` undone, its results kept
                as superseded copy number ``superseded``
``reminded``    ``turn``, ``deadline``, ``before``, ``players``: reminders queued
``waiting``     ``turn``, ``deadline``, ``players``: past the deadline under ``nmr: wait``, the
                game master told
==============  ===============================================================================

Every line has ``at``, the UTC time it was written. This module reads the log into the state
of the current turn's clock; it never reads a clock itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adjudicator.schedule import duration

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

    def reminded_for(self, deadline: datetime, before: int) -> bool:
        """Whether a reminder this close to ``deadline`` (or closer) was queued."""
        return any(d == deadline and b <= before for d, b in self.reminded)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def clock(log: list[dict[str, Any]], turn: int) -> Clock:
    """The clock of ``turn`` (the current one) from the whole log, read in order."""
    state = Clock(turn)
    paused: datetime | None = None
    for entry in log:
        kind = entry["type"]
        if kind == "paused":
            paused = _time(entry["at"])
        elif kind == "resumed":
            paused = None
        opens = (kind == "created" and entry["turn"] == turn) or (
            kind == "adjudicated" and entry["turn"] == turn - 1
        )
        if opens:  # a turn opened again after a rollback starts afresh
            state = Clock(turn, opened=_time(entry["at"]))
        elif entry.get("turn") != turn:
            continue
        elif kind in ("deadline", "extended", "resumed") and entry.get("deadline"):
            state.deadline = _time(entry["deadline"])
        elif kind == "rolled-back":
            state.rolled_back = True
        elif kind == "reminded":
            state.reminded.append(
                (_time(entry["deadline"]), int(duration(entry["before"]).total_seconds()))
            )
        elif kind == "waiting":
            state.waited.append(_time(entry["deadline"]))
    state.paused_since = paused
    return state
