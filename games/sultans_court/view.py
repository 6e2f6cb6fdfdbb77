"""What each reader may see (docs/rulings.md C4, C17), and the game's part of the record.

This is the only place hidden information is removed. Hidden while the game runs: the city
stacks below their face-up tops, all of Kaffa's cards (except in a player's own
``kaffa_searched`` event), other players' standing instructions and skipped instructions
(events carrying ``seen_by``), and other players' whole orders (only their travel and accusation are
public). Once the game is over every view shows everything.

View keys: ``game``, ``player``, ``turn``, ``round``, ``over``, ``to_do`` (``"orders"`` or null),
``owed``, ``players`` (seating order), ``colours``, ``options``, ``markers`` (vote marker by court
position), ``favoured_seat`` (the seat number on position 0), ``court`` (12 rows: position, seat,
vizir, player), ``vizirs`` (every vizir's place), ``cities`` (``{city: {"size", "top"}}``; Kaffa's
top is always null), ``hands`` (every player's cards, public), ``types`` (different power types
held), ``votes`` (sum of seat numbers at court), ``dungeons`` (``dungeon1..3`` -> vizir or null),
``island``, ``reserve`` (``{player: [vizirs]}``), ``turn_order`` (for the round now open),
``last`` (the latest round: ``round``, ``start_player``, ``orders`` and ``events`` as this reader
may see them, or null), ``result`` (null until over). A player's view adds ``my_vizirs``
(``{kind: {"place", "seat"}}``) and ``my_order`` (their own last order, null for a default). Once
over (and for the game master) ``stacks`` holds every city stack, top first.
"""

from __future__ import annotations

from typing import Any

from adjudicator.rules.contract import Event, State, View
from adjudicator.rules.plain import clone

from .banish import votes_of
from .board import CITIES, DUNGEONS, ISLAND, KAFFA, POSITIONS, POWER, RESERVE, at_court, owner
from .rules import owed, own_vizirs
from .travel import turn_order


def visible(event: Event, reader: str | None, see_all: bool) -> bool:
    return see_all or event.get("seen_by", reader) == reader


def public_cities(cities: dict[str, list[str]]) -> dict[str, list[str | None]]:
    """Each stack with every card but the face-up top as null (Kaffa: all null)."""
    return {
        city: [card if i == 0 and city != KAFFA else None for i, card in enumerate(stack)]
        for city, stack in cities.items()
    }


def _round_for(
    item: dict[str, Any], reader: str | None, see_all: bool, after: bool = True
) -> dict[str, Any]:
    """One resolved round as ``reader`` may see it; without ``after`` (the board after the
    round), for the view's ``last``."""
    if see_all:
        return clone(item if after else {k: v for k, v in item.items() if k != "after"})
    orders = {
        p: (
            None
            if o is None
            else clone(o)
            if p == reader
            else {"travel": dict(o["travel"]), "accuse": o["accuse"]}
        )
        for p, o in item["orders"].items()
    }
    seen = {
        **{k: item[k] for k in ("round", "turn", "start_player")},
        "orders": orders,
        "events": clone([e for e in item["events"] if visible(e, reader, False)]),
    }
    if after:
        board = clone(item["after"])
        board["cities"] = public_cities(board["cities"])
        seen["after"] = board
    return seen


def build_view(state: State, player: str | None, gm: bool = False) -> View:
    """The view of ``player`` (None: a spectator); ``gm`` sees everything."""
    over = bool(state["over"])
    see_all = gm or over
    names: list[str] = state["players"]
    vizirs: dict[str, Any] = state["vizirs"]
    markers: list[int] = state["markers"]
    due = owed(state)
    sitters: dict[int, str] = {}  # court position -> the first vizir there
    for vizir, place in vizirs.items():
        if at_court(place):
            sitters.setdefault(place, vizir)
    court = []
    for position in range(POSITIONS):
        sitter = sitters.get(position)
        court.append(
            {
                "position": position,
                "seat": markers[position],
                "vizir": sitter,
                "player": owner(sitter) if sitter else None,
            }
        )
    last = None
    if state["rounds"]:
        last = _round_for(state["rounds"][-1], player, see_all, after=False)
    view: View = {
        "game": "sultans_court",
        "player": player,
        "turn": state["turn"],
        "round": state["round"],
        "over": over,
        "to_do": due.get(player) if player is not None else None,
        "owed": due,
        "players": list(names),
        "colours": dict(state["colours"]),
        "options": dict(state["options"]),
        "markers": list(markers),
        "favoured_seat": markers[0],
        "court": court,
        "vizirs": dict(vizirs),
        "cities": {
            city: {
                "size": len(stack),
                "top": stack[0] if stack and city != KAFFA else None,
            }
            for city, stack in state["cities"].items()
        },
        "hands": clone(state["hands"]),
        "types": {p: len({c for c in state["hands"][p] if c in POWER}) for p in names},
        "votes": {p: votes_of(state, p) for p in names},
        "dungeons": {d: next((v for v, p in vizirs.items() if p == d), None) for d in DUNGEONS},
        "island": sorted(v for v, p in vizirs.items() if p == ISLAND),
        "reserve": {
            p: sorted(v for v, q in vizirs.items() if q == RESERVE and owner(v) == p) for p in names
        },
        "turn_order": [] if over else turn_order(state)[0],
        "last": last,
        "result": clone(state["result"]),
    }
    if player is not None:
        view["my_vizirs"] = own_vizirs(state, player)
        mine = state["rounds"][-1]["orders"].get(player) if state["rounds"] else None
        view["my_order"] = clone(mine)
    if see_all:
        view["stacks"] = clone(state["cities"])
    assert set(state["cities"]) == set(CITIES)
    return view


def _public_deal(state: State) -> dict[str, Any]:
    deal: dict[str, Any] = clone(state["deal"])
    taken: dict[str, int] = state["taken"]
    deal["cities"] = {
        city: [card if city != KAFFA and i <= taken[city] else None for i, card in enumerate(stack)]
        for city, stack in deal["cities"].items()
    }
    return deal


def record(state: State, complete: bool) -> dict[str, Any]:
    """``colours``, ``deal``, ``rounds`` and ``result`` (docs/record.md, the Court's record)."""
    return {
        "colours": dict(state["colours"]),
        "deal": clone(state["deal"]) if complete else _public_deal(state),
        "rounds": [_round_for(item, None, complete) for item in state["rounds"]],
        "result": clone(state["result"]),
    }
