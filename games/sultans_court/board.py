"""The board of At the Sultan's Court: cards, cities, court positions, places and small helpers.

Places of a vizir (as in the record): a court position 0–11 (an int; position 0 is the favoured
seat, docs/rulings.md C2), a city name, ``dungeon1``, ``dungeon2``, ``dungeon3``, ``island`` or
``reserve`` (pardoned and back with its player). Vizirs are named ``<player>.<kind>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from adjudicator.rules.contract import Msg, State, msg

POWER = ("Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships")
PARDON = "Pardon"
CARDS = (*POWER, PARDON)
CARD_WORDS = {
    "Horses": msg("card.Horses"),
    "Cannons": msg("card.Cannons"),
    "Gold": msg("card.Gold"),
    "Troops": msg("card.Troops"),
    "Supplies": msg("card.Supplies"),
    "Ships": msg("card.Ships"),
    "Pardon": msg("card.Pardon"),
}
"""Each card as a word of the reader's language, where a reason names it in prose."""
KINDS = ("fat", "small", "big")
COLOURS = ("red", "yellow", "green", "blue")
CITIES = ("Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan")
KAFFA = "Kaffa"
DUNGEONS = ("dungeon1", "dungeon2", "dungeon3")
ISLAND = "island"
RESERVE = "reserve"
POSITIONS = 12
FAVOURED = 0  # the favoured seat is court position 0 (C2)


class Victory(Exception):
    """Raised the moment a player wins (C13); the round stops there."""

    def __init__(self, player: str) -> None:
        super().__init__(player)
        self.player = player


def vizir_name(player: str, kind: str) -> str:
    return f"{player}.{kind}"


def owner(vizir: str) -> str:
    return vizir.rsplit(".", 1)[0]


def kind_of(vizir: str) -> str:
    return vizir.rsplit(".", 1)[1]


def at_court(place: Any) -> bool:
    return isinstance(place, int) and not isinstance(place, bool)


def movable(place: Any) -> bool:
    """A vizir that can be given a destination: at court, in a city, or released (C6)."""
    return at_court(place) or place in CITIES or place == RESERVE


def nobody_can_win(state: Mapping[str, Any]) -> bool:
    """No vizir is at court, in a city or with its player, and no player who holds a Pardon
    card has a vizir in Dungeon 2 or 3 (the project's ruling P23, docs/rulings.md): then no card
    can be taken, nobody can be banished or pardoned, no vizir can reach the favoured seat, and
    nothing but trades can ever change."""
    if any(movable(place) for place in state["vizirs"].values()):
        return False
    return not any(
        "Pardon" in state["hands"][owner(vizir)] and place in DUNGEONS[1:]
        for vizir, place in state["vizirs"].items()
    )


def types_held(hand: Iterable[str]) -> set[str]:
    return {card for card in hand if card in POWER}


def sort_hand(hand: Iterable[str]) -> list[str]:
    return sorted(hand, key=CARDS.index)


def seat_of(state: Mapping[str, Any], place: Any) -> int | None:
    """The seat number (vote marker) of a court position, None elsewhere."""
    return int(state["markers"][place]) if at_court(place) else None


def position_of_seat(state: Mapping[str, Any], seat: int) -> int:
    markers: list[int] = state["markers"]
    return markers.index(seat)


def occupant(state: Mapping[str, Any], position: int) -> str | None:
    for vizir, place in state["vizirs"].items():
        if at_court(place) and place == position:
            return str(vizir)
    return None


def describe_place(state: Mapping[str, Any], place: Any) -> Msg:
    """Where a vizir is, as a message ('at court on seat 7', 'in Kaffa', 'in dungeon 2', ...;
    the words are in templates/sultans_court/texts/events.yaml)."""
    if at_court(place):
        seat = seat_of(state, place)
        if place == FAVOURED:
            return msg("place-favoured-seat", seat=seat)
        return msg("place-court", seat=seat)
    if place in CITIES:
        return msg("place-city", city=place)
    if place in DUNGEONS:
        return msg("place-dungeon", dungeon=int(place[-1]))
    if place == ISLAND:
        return msg("place-island")
    return msg("place-reserve")


def check_victory(state: State) -> None:
    """C13: the owner of the vizir on the favoured seat wins if they hold all six power types."""
    vizir = occupant(state, FAVOURED)
    if vizir is None:
        return
    player = owner(vizir)
    if types_held(state["hands"][player]) == set(POWER):
        raise Victory(player)
