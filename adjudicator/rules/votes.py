"""Draw votes and concessions (docs/notices.md, docs/rulings.md V1 to V6).

A player's ``vote: draw`` stands until they send ``vote: none`` or the game ends; ``vote:
concede`` is final. A player who conceded is out of the game: their seat plays the default
orders from then on, and they send nothing more. The remaining players are those who have not
conceded; those who may vote are the remaining who have not resigned (a resigned seat has no
player to vote).

At each adjudication the votes as they stand decide, before any order is played:

- a draw, when every player who may vote has a standing draw vote (and there is one);
- an end by concession, when at most one player remains: that player wins (none: nobody does).

Either ends the game at that adjudication: the turn's orders are not played, and the final
views say how it ended. A draw agreed, or one player left, makes an adjudication due at once.
This module is pure: the engine and ``verify`` read the votes from the notices and pass them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tally:
    """The votes as they stand."""

    draw: set[str] = field(default_factory=set)
    """The players with a standing draw vote (secret until the game ends)."""
    conceded: list[str] = field(default_factory=list)
    """The players who conceded, in the order they did (public)."""


def tally(votes: Iterable[tuple[str, str]]) -> Tally:
    """The standing of ``votes``, each ``(player, vote)`` in the order they came."""
    result = Tally()
    for player, vote in votes:
        if player in result.conceded:
            continue  # a concession is final (later votes are refused; an old journal's too)
        if vote == "concede":
            result.conceded.append(player)
            result.draw.discard(player)
        elif vote == "draw":
            result.draw.add(player)
        else:
            result.draw.discard(player)
    return result


def ending(
    counted: Tally, players: Sequence[str], resigned: Sequence[str], turn: int
) -> dict[str, Any] | None:
    """How the game ends at the adjudication of ``turn`` by the votes ``counted`` (None: it
    does not): ``by`` (``draw`` or ``concession``), ``turn``, ``players`` (who agreed to the
    draw) or ``winner`` (None when nobody remains), and ``conceded``."""
    remaining = [p for p in players if p not in counted.conceded]
    voters = [p for p in remaining if p not in resigned]
    conceded = [p for p in players if p in counted.conceded]
    if counted.conceded and len(remaining) <= 1:
        winner = remaining[0] if remaining else None
        return {"by": "concession", "turn": turn, "winner": winner, "conceded": conceded}
    if voters and all(p in counted.draw for p in voters):
        return {"by": "draw", "turn": turn, "players": voters, "conceded": conceded}
    return None
