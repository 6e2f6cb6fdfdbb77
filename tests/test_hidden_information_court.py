"""Hidden information stays hidden at the Sultan's Court (docs/rulings.md C4, C17): two games that
differ only in the order of the city stacks below their face-up tops, the contents of Kaffa and
the seed must give each player the same report, form, view and running record. The game master's
report shows the difference, which proves the two worlds really differ."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from adjudicator.games.sultans_court import GAME
from adjudicator.present.reports import render
from adjudicator.rules.contract import State
from adjudicator.rules.rng import Rng, Stream
from tests.hashes import committed, readings, same_but_hashes
from tests.helpers import bot_round

NAMES = ["alice", "bob", "carol", "dave"]
KAFFA = "Kaffa"


def meta(seed: int) -> dict[str, Any]:
    effective, problems = GAME.options(NAMES, {})
    assert problems == []
    return committed(
        {
            "id": "two-worlds",
            "game": "sultans_court",
            "players": [{"name": n} for n in NAMES],
            "options": {**effective, "nmr": "default"},
            "seed": seed,
        }
    )


def advance(state: State, rounds: int, seed: int) -> State:
    rng = Rng(seed)
    for _ in range(rounds):
        state = bot_round(GAME, state, rng)
    assert not GAME.is_over(state)
    return state


def reshuffle(stacks: dict[str, list[str]], hidden_from: dict[str, int], stream: Stream) -> bool:
    """Deal the hidden cards of ``stacks`` (from index ``hidden_from[city]`` on) anew, in place."""
    slots = [(c, i) for c, stack in stacks.items() for i in range(hidden_from[c], len(stack))]
    cards = stream.shuffle([stacks[c][i] for c, i in slots])
    changed = False
    for (city, i), card in zip(slots, cards, strict=True):
        changed |= stacks[city][i] != card
        stacks[city][i] = card
    return changed


def other_world(state: State, viewer: str, seed: int) -> State:
    """The same public game with every hidden card dealt otherwise: the stacks now, the deal's
    cards never seen, and the stacks after each round. Kaffa keeps its cards for a viewer who
    searched it in the last round, since that player saw them."""
    world = copy.deepcopy(state)
    stream = Rng(seed).stream("other world")
    last = state["rounds"][-1]["events"] if state["rounds"] else []
    searched = any(e["type"] == "kaffa_searched" and e["player"] == viewer for e in last)

    def hidden(stacks: dict[str, list[str]], seen: dict[str, int]) -> dict[str, int]:
        return {c: (len(stacks[c]) if searched else 0) if c == KAFFA else seen[c] for c in stacks}

    ones = dict.fromkeys(state["cities"], 1)
    changed = reshuffle(world["cities"], hidden(world["cities"], ones), stream)
    seen = {c: n + 1 for c, n in state["taken"].items()}
    reshuffle(world["deal"]["cities"], hidden(world["deal"]["cities"], seen), stream)
    for item in world["rounds"]:
        reshuffle(item["after"]["cities"], hidden(item["after"]["cities"], ones), stream)
    assert changed, "the two worlds must differ in the stacks now"
    return world


@pytest.mark.seconds
@pytest.mark.parametrize("rounds", [0, 1, 3, 5])
@pytest.mark.parametrize("viewer", NAMES)
def test_stacks_kaffa_and_seed_do_not_show(rounds: int, viewer: str) -> None:
    first = meta(seed=5)
    state = advance(GAME.setup(first["players"], first["options"], Rng(5)), rounds, 5)
    world = other_world(state, viewer, seed=rounds + 100)
    second = committed({**first, "seed": 987654321})
    assert same_but_hashes(
        readings(GAME, state, first, viewer), readings(GAME, world, second, viewer)
    )
    assert render(GAME, first, state, "gm") != render(GAME, second, world, "gm")


@pytest.mark.seconds
def test_what_a_player_saw_in_kaffa_is_theirs_alone() -> None:
    """The searcher's report names Kaffa's cards; change them and only the searcher sees it."""
    info = meta(seed=5)
    state = GAME.setup(info["players"], info["options"], Rng(5))
    rng = Rng(5)
    for _ in range(30):
        orders = {
            p: GAME.bot(GAME.view(state, p), rng.stream(f"bot {p} {state['turn']}"))
            for p in GAME.owed(state)
        }
        state = GAME.resolve(state, orders, rng).state
        searches = [e for e in state["rounds"][-1]["events"] if e["type"] == "kaffa_searched"]
        if searches and not GAME.is_over(state):
            break
    else:
        pytest.fail("no bot searched Kaffa")
    searcher = searches[0]["player"]
    world = copy.deepcopy(state)
    for event in world["rounds"][-1]["events"]:
        if event["type"] == "kaffa_searched":
            event["cards"] = [*reversed(event["cards"]), "Pardon"]
    seen = ", ".join(searches[0]["cards"])
    assert seen in render(GAME, info, state, searcher)
    assert render(GAME, info, state, searcher) != render(GAME, info, world, searcher)
    for other in NAMES:
        if other != searcher:
            assert seen not in render(GAME, info, state, other)
            second = committed({**info, "seed": 6})
            assert same_but_hashes(
                readings(GAME, state, info, other), readings(GAME, world, second, other)
            )
