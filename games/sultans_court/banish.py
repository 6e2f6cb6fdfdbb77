"""Banishment (docs/rulings.md C9), the dungeons (C10) and the Sultan's pardon (C11)."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.rules.contract import Event, Msg, Order, State, msg

from .board import (
    CITIES,
    DUNGEONS,
    ISLAND,
    PARDON,
    RESERVE,
    at_court,
    check_victory,
    describe_place,
    owner,
    seat_of,
    sort_hand,
    types_held,
    vizir_name,
)
from .trades import skipped


def votes_of(state: State, player: str) -> int:
    """The sum of the seat numbers of the player's vizirs at court."""
    return sum(
        int(state["markers"][place])
        for vizir, place in state["vizirs"].items()
        if owner(vizir) == player and at_court(place)
    )


def banish(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """C9: count the accusations, send one vizir to Dungeon 1 (C10)."""
    kinds = {p: len(types_held(state["hands"][p])) for p in state["players"]}
    tally: dict[str, tuple[int, int]] = {}  # vizir -> (votes, earliest accuser's turn index)
    for index, player in enumerate(order):
        target = orders[player]["accuse"]
        if target is None:
            continue
        place = state["vizirs"].get(target)
        votes = votes_of(state, player)
        accused_by = owner(target)
        if not (at_court(place) or place in CITIES):
            reason: Msg | None = msg(
                "accused-not-at-court", vizir=target, place=describe_place(state, place)
            )
        elif kinds[accused_by] < 4:
            reason = msg("too-few-types", player=accused_by, count=kinds[accused_by])
        else:
            reason = None
            total, first = tally.get(target, (0, index))
            tally[target] = (total + votes, min(first, index))
        events.append(
            {
                "type": "accusation",
                "round": state["round"],
                "player": player,
                "vizir": target,
                "votes": votes,
                "counts": reason is None,
                "reason": None if reason is None else reason.to_json(),
            }
        )
    if not tally:
        events.append({"type": "no_banishment", "round": state["round"]})
        return
    lower = state["options"]["banish_tie"] == "lower_seat_goes"

    def key(vizir: str) -> tuple[int, int, int]:
        votes, first = tally[vizir]
        seat = seat_of(state, state["vizirs"][vizir]) or 0
        return (-votes, seat if lower else -seat, first)

    chosen = min(tally, key=key)
    start = state["vizirs"][chosen]
    events.append(
        {
            "type": "banished",
            "round": state["round"],
            "player": owner(chosen),
            "vizir": chosen,
            "votes": tally[chosen][0],
            "from": start,
        }
    )
    _push(state, chosen, events)
    check_victory(state)


def _push(state: State, vizir: str, events: list[Event]) -> None:
    """C10: into Dungeon 1; occupants pushed on, the one in Dungeon 3 to the Island."""
    inside = {place: v for v, place in state["vizirs"].items() if place in DUNGEONS}
    moves: list[tuple[str, str, str]] = []
    mover, where = vizir, state["vizirs"][vizir]
    for dungeon, following in zip(DUNGEONS, (*DUNGEONS[1:], ISLAND), strict=True):
        moves.append((mover, str(where), dungeon))
        if dungeon not in inside:
            break
        mover, where = inside[dungeon], dungeon
        if following == ISLAND:
            moves.append((mover, where, ISLAND))
    for v, start, end in moves:
        state["vizirs"][v] = end
        if v != vizir:
            events.append(
                {"type": "pushed", "round": state["round"], "vizir": v, "from": start, "to": end}
            )


def pardon(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """C11: a Pardon card under a named city's stack frees a vizir from Dungeon 2 or 3."""
    for player in order:
        for i, plea in enumerate(orders[player]["pardon"]):
            vizir = vizir_name(player, plea["vizir"])
            place = state["vizirs"][vizir]
            hand: list[str] = state["hands"][player]
            if place not in DUNGEONS[1:]:
                events.append(
                    skipped(
                        player,
                        "pardon",
                        i,
                        msg(
                            "pardon-not-in-dungeon", vizir=vizir, place=describe_place(state, place)
                        ),
                    )
                )
                continue
            if PARDON not in hand:
                events.append(skipped(player, "pardon", i, msg("pardon-no-card")))
                continue
            hand.remove(PARDON)
            state["hands"][player] = sort_hand(hand)
            stack: list[str] = state["cities"][plea["city"]]
            stack.append(PARDON)
            state["vizirs"][vizir] = RESERVE
            events.append(
                {
                    "type": "pardoned",
                    "round": state["round"],
                    "player": player,
                    "vizir": vizir,
                    "from": place,
                    "city": plea["city"],
                    "became_top": len(stack) == 1 and plea["city"] != "Kaffa",
                }
            )
            check_victory(state)
