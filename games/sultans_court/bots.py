"""A simple bot: collects the power types it lacks, keeps high seats, accuses the leaders.

It reads only the player's view and its random stream, so the same stream gives the same order.
"""

from __future__ import annotations

from typing import Any

from adjudicator.rules.contract import Order, View
from adjudicator.rules.rng import Stream

from .board import CITIES, DUNGEONS, KAFFA, KINDS, PARDON, POWER, RESERVE, at_court, owner


def bot_order(view: View, stream: Stream) -> Order:
    if view.get("to_do") != "orders":
        raise ValueError("this player owes no order now")
    me: str = view["player"]
    hand: list[str] = view["hands"][me]
    missing = [t for t in POWER if t not in hand]
    return {
        "travel": _travel(view, stream, missing),
        "accuse": _accuse(view, stream),
        "kaffa": [*missing, PARDON] if missing else [PARDON],
        "demand": _demands(view, missing),
        "pardon": _pardons(view, hand),
        "trades": _trades(view, missing),
    }


def _travel(view: View, stream: Stream, missing: list[str]) -> dict[str, Any]:
    mine: dict[str, dict[str, Any]] = view["my_vizirs"]
    all_travel = view["round"] == 1 and view["options"]["first_round_all_travel"]
    crowd = {city: 0 for city in CITIES}
    for vizir, place in view["vizirs"].items():
        if place in crowd and owner(vizir) != view["player"]:
            crowd[place] += 1
    chosen_cities: set[str] = set()
    chosen_seats: set[int] = set()
    travel: dict[str, Any] = {}
    for kind in KINDS:
        place = mine[kind]["place"]
        if not (at_court(place) or place in CITIES or place == RESERVE):
            continue
        if all_travel:
            travel[kind] = _city(view, stream, missing, crowd, chosen_cities)
        elif at_court(place):
            seat = int(mine[kind]["seat"])
            keep = not missing or seat >= 8 or stream.below(3) == 0
            travel[kind] = "stay" if keep else _city(view, stream, missing, crowd, chosen_cities)
        else:
            travel[kind] = _from_afar(view, stream, missing, crowd, chosen_cities, chosen_seats)
            if not missing and not chosen_seats & set(_winning_seats(view)):
                options = _winning_seats(view)
                if options:
                    # the favoured seat at once, or (against a block) the free seat nearest it
                    seat = options[0] if stream.below(2) == 0 else options[-1]
                    if isinstance(travel[kind], int):
                        chosen_seats.discard(travel[kind])
                    travel[kind] = seat
                    chosen_seats.add(seat)
    return travel


def _winning_seats(view: View) -> list[int]:
    """Free seats for a player holding all six types: the favoured seat and the free seat
    nearest it by rotation (the highest free position), in that order."""
    court = view["court"]
    seats = [int(court[0]["seat"])] if court[0]["vizir"] is None else []
    others = [row for row in court[1:] if row["vizir"] is None]
    if others:
        seats.append(int(max(others, key=lambda row: row["position"])["seat"]))
    return seats


def _from_afar(
    view: View,
    stream: Stream,
    missing: list[str],
    crowd: dict[str, int],
    chosen_cities: set[str],
    chosen_seats: set[int],
) -> Any:
    """A vizir in a city or in reserve: back to a high free seat, or on to a city."""
    free = [
        row["seat"]
        for row in view["court"]
        if row["vizir"] is None and row["seat"] not in chosen_seats
    ]
    home = len(missing) <= 2 or stream.below(3) == 0
    if home and free:
        # one of the four highest: bots that all want the highest seat would block each other
        seat = int(stream.choice(sorted(free, reverse=True)[:4]))
        chosen_seats.add(seat)
        return seat
    return _city(view, stream, missing, crowd, chosen_cities)


def _city(
    view: View, stream: Stream, missing: list[str], crowd: dict[str, int], chosen: set[str]
) -> str:
    """The city most likely to give a wanted card to a lone vizir."""
    best: tuple[float, str] | None = None
    for city in CITIES:
        info = view["cities"][city]
        score = stream.below(100) / 10  # enough noise that bots spread over the cities
        if info["size"] == 0:
            score -= 6
        elif city == KAFFA:
            score += 0.6 * len(missing)
        elif info["top"] in missing:
            score += 3
        elif info["top"] == PARDON:
            score += 1
        score -= 2.5 * crowd[city] + (6 if city in chosen else 0)
        if best is None or score > best[0]:
            best = (score, city)
    assert best is not None
    chosen.add(best[1])
    return best[1]


def _accuse(view: View, stream: Stream) -> str | None:
    """An opponent holding 4 or more types: their vizir nearest the favoured seat."""
    me = view["player"]
    leaders = [p for p in view["players"] if p != me and view["types"][p] >= 4]
    if not leaders:
        return None
    top = max(view["types"][p] for p in leaders)
    target = stream.choice([p for p in leaders if view["types"][p] == top])
    candidates = [
        (place if at_court(place) else -1, vizir)
        for vizir, place in view["vizirs"].items()
        if owner(vizir) == target and (at_court(place) or place in CITIES)
    ]
    if not candidates:
        return None
    chosen: str = max(candidates)[1]
    return chosen


def _demands(view: View, missing: list[str]) -> list[dict[str, str]]:
    me = view["player"]
    hands = view["hands"]
    result = []
    for card in missing:
        givers = sorted(
            (p for p in view["players"] if p != me and hands[p].count(card) >= 2),
            key=lambda p: -hands[p].count(card),
        )
        result += [{"from": p, "card": card} for p in givers[:1]]
    return result


def _pardons(view: View, hand: list[str]) -> list[dict[str, str]]:
    if PARDON not in hand:
        return []
    small = min(CITIES, key=lambda c: (view["cities"][c]["size"], CITIES.index(c)))
    return [
        {"vizir": kind, "city": small}
        for kind, info in view["my_vizirs"].items()
        if info["place"] in DUNGEONS
    ]


def _trades(view: View, missing: list[str]) -> list[dict[str, str]]:
    me = view["player"]
    hands = view["hands"]
    spare = [t for t in POWER if hands[me].count(t) >= 2]
    offers = []
    for other in view["players"]:
        if other == me:
            continue
        for give in spare:
            if give in hands[other]:
                continue
            for get in missing:
                if hands[other].count(get) >= 2:
                    offers.append({"with": other, "give": give, "get": get})
    return offers[:8]
