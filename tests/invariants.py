"""Game invariants the contract test checks after every step (``INVARIANTS`` by game name)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from adjudicator.games.sultans_court.board import (
    CITIES,
    DUNGEONS,
    ISLAND,
    POWER,
    RESERVE,
    nobody_can_win,
)
from adjudicator.rules.contract import State


def sultan_invariants(state: State) -> None:
    from adjudicator.games.sultan.rules import score

    players = state["players"]
    current = state["current"] or {}
    on_table = Counter(
        current.get("offered") if current.get("offered") is not None else current.get("drawn", [])
    )
    held = Counter[str]()
    for player in players:
        held.update(state["collections"][player])
    assert sum((Counter(state["pouch"]) + held + on_table).values()) == 50
    dealt = state["stage"] * state["hand_size"]
    for player in players:
        pending = [
            p["card"]
            for p in (state["current"] or {}).get("placements", [])
            if p["player"] == player
        ]
        seen = Counter(state["played"][player]) + Counter(state["hands"][player]) + Counter(pending)
        assert seen == Counter(state["decks"][player][:dealt]), "each dealt card is in one place"
        assert sorted(state["decks"][player]) == sorted(
            list(range(1, 16)) if len(players) > 2 else [v for v in range(1, 13) for _ in (0, 1)]
        )
    if state["phase"] == "over":
        for player in players:
            assert state["hands"][player] == []
            assert len(state["played"][player]) == len(state["decks"][player])
            assert state["result"]["scores"][player] == score(
                state["collections"][player], len(players)
            )


def court_invariants(state: State) -> None:
    """At the Sultan's Court: 42 cards in one place each, 12 vizirs in places, an honest end."""
    cards = Counter[str]()
    for hand in state["hands"].values():
        cards.update(hand)
    for stack in state["cities"].values():
        cards.update(stack)
    assert sum(cards.values()) == 42 and all(n == 6 for n in cards.values()), cards
    places = state["vizirs"]
    assert len(places) == 12
    for place in places.values():
        assert (isinstance(place, int) and 0 <= place < 12) or place in (
            *CITIES,
            *DUNGEONS,
            ISLAND,
            RESERVE,
        )
    court = [p for p in places.values() if isinstance(p, int)]
    assert len(court) == len(set(court)), "at most one vizir per court position"
    assert sum(1 for p in places.values() if p in DUNGEONS) == len(
        {p for p in places.values() if p in DUNGEONS}
    )
    assert state["markers"] == state["deal"]["markers"], "markers never move"
    result = state["result"]
    if state["over"]:
        if result["draw"] and result.get("stalemate"):  # P23
            assert result["winner"] is None and nobody_can_win(state)
        elif result["draw"]:
            assert result["winner"] is None and result["rounds"] == state["options"]["max_rounds"]
        else:
            winner = result["winner"]
            assert set(POWER) <= set(state["hands"][winner]), "the winner holds all six types"
            assert (
                places[f"{winner}.fat"] == 0
                or places[f"{winner}.small"] == 0
                or (places[f"{winner}.big"] == 0)
            ), "the winner has a vizir on the favoured seat"
    else:
        assert result is None
        assert not nobody_can_win(state), "a court that can never change has ended (P23)"


INVARIANTS: dict[str, Callable[[State], None]] = {
    "sultan": sultan_invariants,
    "sultans_court": court_invariants,
}
