"""Each game's forfeit order (docs/rulings.md P24, P25): what a seat that committed to an order
and did not reveal it plays, from what its player could see, by a fixed rule."""

from __future__ import annotations

from typing import Any

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.rules.rng import Rng


def sultan_view(to_do: str, **more: Any) -> dict[str, Any]:
    return {
        "player": "alice",
        "to_do": to_do,
        "hand": [9, 3, 12, 7],
        "drawn": ["red", "blue", "white", "green"],
        "offered": ["red", "white", "green"],
        "placements": [],
        **more,
    }


def test_sultan_returns_the_most_valuable_jewel_and_bids_low_on_the_cheapest_cushion() -> None:
    assert SULTAN.forfeit_order(sultan_view("return")) == {"return": "blue"}
    assert SULTAN.forfeit_order(sultan_view("bid")) == {"bid": {"cushion": 2, "card": 3}}
    assert SULTAN.forfeit_order(sultan_view("bids")) == {
        "bids": [{"cushion": 2, "card": 3}, {"cushion": 1, "card": 7}]
    }


def test_sultan_in_sequential_placement_skips_a_cushion_already_used() -> None:
    placed = [{"player": "alice", "cushion": 2}, {"player": "bob", "cushion": 1}]
    view = sultan_view("bid", placements=placed)
    assert SULTAN.forfeit_order(view) == {"bid": {"cushion": 1, "card": 3}}


def test_sultan_forfeit_orders_are_legal_in_real_games() -> None:
    for players in (2, 3, 5):
        names = ["alice", "bob", "carol", "dave", "erin"][:players]
        options, _ = SULTAN.options(names, {})
        state = SULTAN.setup([{"name": n} for n in names], options, Rng("ab" * 16))
        for _ in range(12):
            owed = SULTAN.owed(state)
            orders = {}
            for player in owed:
                view = SULTAN.view(state, player)
                order = SULTAN.forfeit_order(view)
                assert SULTAN.validate(SULTAN.context(view), order) == [], (view["to_do"], order)
                orders[player] = order
            state = SULTAN.resolve(state, orders, Rng("ab" * 16)).state


def test_the_court_stays_or_goes_to_kaffa_together_in_round_one() -> None:
    names = ["alice", "bob", "carol", "dave"]
    options, _ = COURT.options(names, {})
    players = [{"name": n, "colour": c} for n, c in zip(names, COURT_COLOURS, strict=True)]
    state = COURT.setup(players, options, Rng("cd" * 16))
    view = COURT.view(state, "alice")
    first = COURT.forfeit_order(view)
    assert first["travel"] == {"fat": "Kaffa", "small": "Kaffa", "big": "Kaffa"}
    assert first["accuse"] is None and first["pardon"] == [] and first["trades"] == []
    assert COURT.validate(COURT.context(view), first) == []
    orders = {p: COURT.bot(COURT.view(state, p), Rng("x" * 32).stream(p)) for p in names}
    state = COURT.resolve(state, orders, Rng("cd" * 16)).state
    later = COURT.forfeit_order(COURT.view(state, "alice"))
    assert set(later["travel"].values()) <= {"stay"}
    assert COURT.validate(COURT.context(COURT.view(state, "alice")), later) == []


COURT_COLOURS = ["red", "yellow", "green", "blue"]
