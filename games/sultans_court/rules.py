"""The round of At the Sultan's Court: who owes, the context of a check, and ``resolve``.

Phases in order (rulebook and docs/rulings.md C5–C14): turn order, trades, travel, collecting and
the seat-1 demand, banishment and the dungeons, pardons, changing places. Victory (C13) is checked
after every single step; a victory ends the round and the game there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.rules.contract import Event, Order, Resolution, State
from adjudicator.rules.plain import clone
from adjudicator.rules.rng import Rng

from .banish import banish, pardon
from .board import (
    KINDS,
    POSITIONS,
    Victory,
    at_court,
    check_victory,
    nobody_can_win,
    seat_of,
    vizir_name,
)
from .collect import collect, demand
from .trades import trades
from .travel import travel, turn_order


def owed(state: State) -> dict[str, str]:
    """C6: every player owes orders each round until the game is over."""
    if state["over"]:
        return {}
    return dict.fromkeys(state["players"], "orders")


def own_vizirs(state: Mapping[str, Any], player: str) -> dict[str, dict[str, Any]]:
    """``{kind: {"place": place, "seat": seat or None}}`` of the player's three vizirs."""
    result = {}
    for kind in KINDS:
        place = state["vizirs"][vizir_name(player, kind)]
        result[kind] = {"place": place, "seat": seat_of(state, place)}
    return result


def context_for(state: State, player: str) -> dict[str, Any]:
    """What ``validate`` needs of a player's position (the same as ``context(view)``)."""
    return {
        "player": player,
        "players": list(state["players"]),
        "round": state["round"],
        "to_do": owed(state).get(player),
        "first_round_all_travel": bool(state["options"]["first_round_all_travel"]),
        "vizirs": own_vizirs(state, player),
    }


def rotate(state: State, events: list[Event]) -> None:
    """C12: every vizir at court moves one position clockwise (11 -> 0)."""
    moved = {}
    for vizir, place in state["vizirs"].items():
        if at_court(place):
            state["vizirs"][vizir] = (place + 1) % POSITIONS
            moved[vizir] = state["vizirs"][vizir]
    events.append({"type": "rotated", "round": state["round"], "positions": moved})
    check_victory(state)


def snapshot(state: State) -> dict[str, Any]:
    return {
        "vizirs": dict(state["vizirs"]),
        "cities": clone(state["cities"]),
        "hands": clone(state["hands"]),
    }


def resolve(state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
    """Resolve one round; ``None`` orders are missing and get the default (C16)."""
    from .orders import default_order, normalise, validate  # the schemas load here

    del rng  # the round draws nothing at random
    if state["over"]:
        raise ValueError("the game is over: nothing to resolve")
    new = clone(state)
    rnd: int = new["round"]
    events: list[Event] = []
    used: dict[str, Order] = {}
    given: dict[str, Order | None] = {}
    for player in new["players"]:
        order = orders.get(player)
        if order is None:
            places = {k: v["place"] for k, v in own_vizirs(new, player).items()}
            used[player] = default_order(places)
            given[player] = None
            events.append({"type": "default", "round": rnd, "player": player})
            continue
        problems = validate(context_for(state, player), order)
        if problems:
            details = "; ".join(f"{p.code} at {list(p.path)} {dict(p.params)}" for p in problems)
            raise ValueError(f"{player}'s order for round {rnd} is not valid: {details}")
        used[player] = normalise(order)
        given[player] = clone(used[player])
    order_, seat = turn_order(new)
    new["start_player"] = order_[0]
    events.append(
        {
            "type": "turn_order",
            "round": rnd,
            "order": order_,
            "start_player": order_[0],
            "seat": seat,
        }
    )
    winner: str | None = None
    try:
        trades(new, order_, used, events)
        travel(new, order_, used, events)
        collect(new, order_, used, events)
        demand(new, order_, used, events)
        banish(new, order_, used, events)
        pardon(new, order_, used, events)
        rotate(new, events)
    except Victory as victory:
        winner = victory.player
        events.append({"type": "victory", "round": rnd, "player": winner})
    limit = new["options"]["max_rounds"]
    if winner is not None:
        new["over"] = True
        new["result"] = {"winner": winner, "draw": False, "rounds": rnd}
    elif limit is not None and rnd >= limit:
        new["over"] = True
        new["result"] = {"winner": None, "draw": True, "rounds": rnd}
        events.append({"type": "draw", "round": rnd, "max_rounds": limit})
    elif nobody_can_win(new):  # P23: the court can never change again
        new["over"] = True
        new["result"] = {"winner": None, "draw": True, "rounds": rnd, "stalemate": True}
        events.append({"type": "stalemate", "round": rnd})
    for event in events:
        event.setdefault("round", rnd)  # every event says its round, a skipped one too
    new["rounds"].append(
        {
            "round": rnd,
            "turn": new["turn"],
            "start_player": order_[0],
            "orders": given,
            "events": clone(events),
            "after": snapshot(new),
        }
    )
    new["turn"] += 1
    new["round"] += 1
    return Resolution(new, clone(events))
