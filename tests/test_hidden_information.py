"""Hidden information stays hidden: two games that differ only in what a player cannot know
(other players' hands, every deck's order, others' face-down cards, the seed) must give that
player exactly the same report, form and view. The game master's report shows the difference,
which proves the two worlds really differ."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from adjudicator.games.sultan import GAME
from adjudicator.present.reports import render
from adjudicator.rules.contract import State
from adjudicator.rules.rng import Rng
from tests.hashes import blanked, committed, readings, same_but_hashes

NAMES = ["alice", "bob", "carol", "dave", "erin"]


def meta(count: int, seed: int, **options: Any) -> dict[str, Any]:
    effective, problems = GAME.options(NAMES[:count], options)
    assert problems == []
    return committed(
        {
            "id": "two-worlds",
            "game": "sultan",
            "players": [{"name": n} for n in NAMES[:count]],
            "options": {**effective, "nmr": "default"},
            "seed": seed,
        }
    )


def advance(state: State, turns: int, seed: int) -> State:
    rng = Rng(seed)
    for _ in range(turns):
        owed = GAME.owed(state)
        orders = {
            p: GAME.bot(GAME.view(state, p), rng.stream(f"bot {p} {state['turn']}")) for p in owed
        }
        state = GAME.resolve(state, orders, rng).state
    return state


def other_world(state: State, viewer: str, seed: int) -> State:
    """The same public game, but every other player's hand and deck dealt otherwise."""
    world = copy.deepcopy(state)
    dealt = state["stage"] * state["hand_size"]
    stream = Rng(seed).stream("other world")
    for player in state["players"]:
        if player == viewer:
            continue
        hand = state["hands"][player]
        rest = state["decks"][player][dealt:]
        pool = stream.shuffle(hand + rest)
        new_hand, new_rest = sorted(pool[: len(hand)]), pool[len(hand) :]
        in_hand = Counter(hand)
        kept = []  # the dealt cards already played, in deck order
        for card in state["decks"][player][:dealt]:
            if in_hand[card]:
                in_hand[card] -= 1
            else:
                kept.append(card)
        world["hands"][player] = new_hand
        world["decks"][player] = kept + new_hand + new_rest
    return world


@pytest.mark.parametrize("count", [2, 3, 4, 5])
@pytest.mark.parametrize("turns", [0, 3, 11])
def test_other_hands_decks_and_seed_do_not_show(count: int, turns: int) -> None:
    first = meta(count, seed=1)
    state = advance(GAME.setup(first["players"], first["options"], Rng(1)), turns, 1)
    assert state["stage"] < 3, "in the last stage a hand is public (RULINGS S10)"
    viewer = state["players"][-1]
    world = other_world(state, viewer, seed=2)
    assert world != state
    second = committed({**first, "seed": 987654321})
    assert same_but_hashes(
        readings(GAME, state, first, viewer), readings(GAME, world, second, viewer)
    )
    assert render(GAME, first, state, "gm") != render(GAME, second, world, "gm")


def test_face_down_cards_of_others_in_sequential_placement() -> None:
    info = meta(4, seed=3, placement="sequential", jewel_choice="random")
    state = GAME.setup(info["players"], info["options"], Rng(3))
    state = advance(state, 2, 3)  # two cards lie face down
    placed = state["current"]["placements"]
    assert len(placed) == 2 and all(p["card"] is not None for p in placed)
    first_placer = placed[0]["player"]
    world = copy.deepcopy(state)
    hand = world["hands"][first_placer]
    swap = next(card for card in hand if card != placed[0]["card"])
    hand[hand.index(swap)] = placed[0]["card"]
    world["hands"][first_placer] = sorted(hand)
    world["current"]["placements"][0]["card"] = swap
    for event in world["last"]["events"]:
        if event.get("player") == first_placer and event.get("card") is not None:
            event["card"] = swap
    other = committed({**info, "seed": 4})
    for viewer in state["players"]:
        if viewer == first_placer:
            continue
        assert same_but_hashes(
            readings(GAME, state, info, viewer), readings(GAME, world, other, viewer)
        )
    seen = blanked(readings(GAME, state, info, first_placer))
    assert seen != blanked(readings(GAME, world, other, first_placer))
