"""Collecting power cards and the seat-1 demand (docs/rulings.md C8)."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.rules.contract import Event, Order, State, msg

from .board import (
    CARD_WORDS,
    CITIES,
    KAFFA,
    KINDS,
    PARDON,
    POWER,
    check_victory,
    occupant,
    owner,
    position_of_seat,
    sort_hand,
    types_held,
    vizir_name,
)
from .trades import skipped


def collect(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """In turn order, each vizir alone in a city takes a card (fat, small, big)."""
    visitors: dict[str, list[str]] = {city: [] for city in CITIES}
    for vizir, place in state["vizirs"].items():
        if place in visitors:
            visitors[place].append(vizir)
    for city in CITIES:
        if len(visitors[city]) > 1:
            events.append(
                {
                    "type": "shared",
                    "round": state["round"],
                    "city": city,
                    "vizirs": sorted(visitors[city]),
                }
            )
    for player in order:
        for kind in KINDS:
            vizir = vizir_name(player, kind)
            city = state["vizirs"][vizir]
            if city in visitors and visitors[city] == [vizir]:
                _take(state, player, vizir, city, orders[player]["kaffa"], events)


def _take(
    state: State, player: str, vizir: str, city: str, wishes: list[str], events: list[Event]
) -> None:
    stack: list[str] = state["cities"][city]
    event: Event = {
        "type": "took",
        "round": state["round"],
        "player": player,
        "vizir": vizir,
        "city": city,
        "card": None,
        "top": None,
    }
    if not stack:
        event["reason"] = msg("city-empty", city=city).to_json()
        events.append(event)
        return
    if city == KAFFA:
        events.append(
            {
                "type": "kaffa_searched",
                "round": state["round"],
                "player": player,
                "seen_by": player,
                "vizir": vizir,
                "cards": list(stack),
            }
        )
        index = _kaffa_choice(state, player, stack, wishes, events)
        card = stack.pop(index)
    else:
        card = stack.pop(0)
        state["taken"][city] += 1
        event["top"] = stack[0] if stack else None
    event["card"] = card
    state["hands"][player] = sort_hand([*state["hands"][player], card])
    events.append(event)
    check_victory(state)


def _kaffa_choice(
    state: State, player: str, stack: list[str], wishes: list[str], events: list[Event]
) -> int:
    """The preference list; else the first power type lacked; else a Pardon; else the first card."""
    for wish in wishes:
        if wish in stack:
            return stack.index(wish)
    if wishes:
        events.append(
            skipped(player, "kaffa", None, msg("kaffa-choices-absent", choices=list(wishes)))
        )
    held = types_held(state["hands"][player])
    for card in POWER:
        if card not in held and card in stack:
            return stack.index(card)
    if PARDON in stack:
        return stack.index(PARDON)
    return 0


def demand(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """C8: the player with a vizir on seat 1 gets the first demand that applies (one a round)."""
    sitter = occupant(state, position_of_seat(state, 1))
    on_seat = owner(sitter) if sitter is not None else None
    for player in order:
        wanted = orders[player]["demand"]
        if not wanted:
            continue
        if player != on_seat:
            events.append(skipped(player, "demand", None, msg("demand-not-on-seat-1")))
            continue
        hands = state["hands"]
        for i, entry in enumerate(wanted):
            card, giver = entry["card"], entry["from"]
            if card in hands[player]:
                reason = msg("demand-already-held", card=CARD_WORDS[card])
            elif hands[giver].count(card) < 2:
                reason = msg(
                    "demand-too-few",
                    giver=giver,
                    held=hands[giver].count(card),
                    card=CARD_WORDS[card],
                )
            else:
                hands[giver].remove(card)
                hands[player] = sort_hand([*hands[player], card])
                events.append(
                    {
                        "type": "demand",
                        "round": state["round"],
                        "player": player,
                        "from": giver,
                        "card": card,
                    }
                )
                check_victory(state)
                break
            events.append(skipped(player, "demand", i, reason))
