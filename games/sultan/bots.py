"""A simple bot: values jewels by colour and its own collection, bids to match, sometimes bluffs.

It reads only the player's view and its random stream, so the same stream gives the same order.
"""

from __future__ import annotations

import functools
from typing import Any

from adjudicator.rules.contract import Order, View
from adjudicator.rules.rng import Stream

from .rules import VALUES, bonus_for


def jewel_worth(view: View, colour: str) -> float:
    """What one more jewel of ``colour`` is worth to this player (points and bonus to come)."""
    return _worth(colour, int(view.get("collection", {}).get(colour, 0)), len(view["players"]))


@functools.lru_cache(maxsize=1024)
def _worth(colour: str, have: int, players: int) -> float:
    """``jewel_worth`` for ``have`` jewels of ``colour`` already, worked out once for each (five
    colours, a few counts, four player counts: a few hundred at most)."""
    gain = VALUES[colour] + bonus_for(have + 1, players) - bonus_for(have, players)
    near = bonus_for(have + 2, players) - bonus_for(have + 1, players)
    return gain + near / 3


def bot_order(view: View, stream: Stream) -> Order:
    to_do = view.get("to_do")
    if to_do == "return":
        return {"return": _choose_return(view, stream)}
    if to_do == "bid":
        return {"bid": _choose_bids(view, stream, 1)[0]}
    if to_do == "bids":
        return {"bids": _choose_bids(view, stream, 2)}
    raise ValueError("this player owes no order now")


def _choose_return(view: View, stream: Stream) -> str:
    """Send back the jewel least worth to us, now and then one at random to keep others guessing."""
    drawn: list[str] = view["drawn"]
    if stream.below(6) == 0:
        return stream.choice(drawn)
    return min(drawn, key=lambda c: (jewel_worth(view, c), drawn.index(c)))


def _choose_bids(view: View, stream: Stream, count: int) -> list[dict[str, Any]]:
    """``count`` placements on different cushions: better jewels get higher cards."""
    offered: list[str] = view["offered"]
    me = view["player"]
    used: set[int] = set()
    crowd: dict[int, int] = {}  # cards on each cushion
    for p in view.get("placements", []):
        crowd[p["cushion"]] = crowd.get(p["cushion"], 0) + 1
        if p["player"] == me:
            used.add(p["cushion"])
    collection = view.get("collection", {})
    players = len(view["players"])
    below = stream.below
    scored = []
    for cushion, colour in enumerate(offered, start=1):
        if cushion in used:
            continue
        noise = below(100) / 60
        worth = _worth(colour, int(collection.get(colour, 0)), players)  # jewel_worth(view, colour)
        scored.append((worth - 0.8 * crowd.get(cushion, 0) + noise, cushion))
    scored.sort(reverse=True)
    if count == 1 and len(scored) > 1 and below(5) == 0:
        scored[0], scored[1] = scored[1], scored[0]  # bluff: go for the second best
    hand: list[int] = sorted(view["hand"])
    free = list(range(len(hand)))  # indices into the hand still unplayed by this order
    bids = []
    for score, cushion in scored[:count]:
        strength = score / 7
        strength = 0.0 if strength < 0.0 else 1.0 if strength > 1.0 else strength  # 0 to 1
        if below(6) == 0:
            strength = 0.0 if strength > 0.5 else 1.0  # bluff: cheap on the best, dear on the rest
        index = free.pop(round(strength * (len(free) - 1)))
        bids.append({"cushion": cushion, "card": hand[index]})
    return bids
