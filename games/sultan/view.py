"""What each reader may see (docs/rulings.md S10), and the game's part of the record.

This is the only place hidden information is removed: other players' hands, every deck's order,
and the values of others' cards laid in sequential placement before the round's reveal (a
player always sees their own). Once the game is over,
every view shows everything.

A view is read, not changed: it shares with the state what no turn changes once made (the filed
rounds, each player's played cards, the last adjudication's events, placements and default
orders of the current round that the reader may see), so that a view does not copy the whole
history; its own lists and dicts at the top are new, and a card hidden from the reader is hidden
in a new copy.
"""

from __future__ import annotations

from typing import Any

from adjudicator.rules.contract import Event, State, View
from adjudicator.rules.plain import clone

from .rules import owed, placement_order, standings


def build_view(state: State, player: str | None, gm: bool = False) -> View:
    """The view of ``player`` (None: a spectator); ``gm`` sees everything."""
    over = state["phase"] == "over"
    see_all = gm or over
    names: list[str] = state["players"]
    current = state["current"] or {}
    offered = current.get("offered")
    due = owed(state)
    size: int = state["hand_size"]
    dealt = state["stage"] * size
    hands, decks, played = state["hands"], state["decks"], state["played"]
    placements = current.get("placements", [])
    defaults = current.get("defaults", [])
    hand_counts: dict[str, int] = {}
    deck_counts: dict[str, int] = {}
    played_cards: dict[str, list[int]] = {}
    for p in names:  # one pass for the three
        hand_counts[p] = len(hands[p])
        left = len(decks[p]) - dealt
        deck_counts[p] = left if left > 0 else 0
        played_cards[p] = played[p]
    view: View = {
        "game": "sultan",
        "player": player,
        "turn": state["turn"],
        "over": over,
        "to_do": due.get(player) if player is not None else None,
        "owed": due,
        "players": list(names),
        "options": dict(state["options"]),
        "stages": state["stages"],
        "rounds_per_stage": state["rounds_per_stage"],
        "stage": state["stage"],
        "round": state["round"],
        "start_player": state["start_player"],
        "placement_order": [] if over else placement_order(state),
        "cushions": len(offered) if offered is not None else state["cushions"],
        "pouch": dict(state["pouch"]),
        "drawn": list(current.get("drawn", [])),
        "returned": current.get("returned"),
        "returned_by": current.get("returned_by"),
        "offered": list(offered) if offered is not None else None,
        "placements": [
            p
            if see_all or p["player"] == player
            else {
                "player": p["player"],
                "cushion": p["cushion"],
                "card": None,
                "default": p["default"],
            }
            for p in placements
        ]
        if placements
        else [],
        "defaults": [
            d if see_all or d.get("player") == player else _hide_cards(d) for d in defaults
        ]
        if defaults
        else [],
        "hand_counts": hand_counts,
        "deck_counts": deck_counts,
        "played": played_cards,
        "rounds": list(state["rounds"]),
        "last": _last(state, see_all, player),
    }
    if player is not None:
        view["hand"] = sorted(state["hands"][player])
        view["collection"] = dict(state["collections"][player])
    if see_all or not state["options"]["screens"]:
        view["collections"] = {p: dict(state["collections"][p]) for p in names}
    if see_all:
        view["hands"] = {p: sorted(state["hands"][p]) for p in names}
        view["decks"] = clone(state["decks"])
        view["decks_left"] = {p: list(state["decks"][p][dealt:]) for p in names}
    if over:
        view["result"] = clone(state["result"])
        view["standings"] = standings(state)
    return view


_SCALARS = frozenset({str, int, bool, float, type(None)})  # values with nothing inside


def _hide_cards(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with every card value inside set to None (sequential placement before the
    reveal): a copy where there is a card to hide, else ``item`` itself, shared."""
    hidden: dict[str, Any] = {}  # the values that change
    for key, value in item.items():
        if key == "card":
            if value is not None:
                hidden[key] = None
        elif type(value) in _SCALARS:
            continue
        elif isinstance(value, dict):
            inner = _hide_cards(value)
            if inner is not value:
                hidden[key] = inner
        elif isinstance(value, list):
            for inner in value:
                if isinstance(inner, dict):
                    break
            else:
                continue  # a list of plain values: nothing to hide in it
            items = [_hide_cards(v) if isinstance(v, dict) else v for v in value]
            if any(new is not old for new, old in zip(items, value, strict=True)):
                hidden[key] = items
    if not hidden:
        return item
    return {key: hidden.get(key, value) for key, value in item.items()}


def _last(state: State, see_all: bool, player: str | None) -> dict[str, Any] | None:
    """The latest adjudication's events; others' cards of the round being placed stay hidden."""
    last = state.get("last")
    if last is None:
        return None
    events: list[Event] = []
    # the round being placed, whose events may hold others' cards (None: no round open)
    placing = (state["stage"], state["round"]) if state["current"] is not None else None
    for event in last["events"]:
        hide = (
            placing is not None
            and not see_all
            and (event.get("stage"), event.get("round")) == placing
            and event.get("player") != player
        )
        events.append(_hide_cards(event) if hide else event)
    return {"turn": last["turn"], "events": events}


def record(state: State, complete: bool) -> dict[str, Any]:
    """The resolved rounds; once complete, the decks as shuffled (top first) and the result."""
    data: dict[str, Any] = {"rounds": clone(state["rounds"])}
    if complete:
        data["decks"] = clone(state["decks"])
        if state["result"] is not None:
            data["result"] = clone(state["result"])
    return data
