"""Sultan's states and views share what never changes (filed rounds, decks, the last events)
instead of copying the history at every turn and in every view (benchmarks/engine.py).

Sharing is safe only while nothing a game returns changes afterwards: these tests keep every
state, view, event list and normalised order of whole bot games and check, at the end, that each
still reads as it did when it was returned.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adjudicator.games.sultan import GAME
from adjudicator.rules.rng import Rng

NAMES = ["alice", "bob", "carol", "dave", "erin"]


def snapshot(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize(
    "given", [{}, {"placement": "sequential"}, {"jewel_choice": "random", "screens": False}]
)
def test_nothing_returned_changes_later(count: int, given: dict[str, Any]) -> None:
    names = NAMES[:count]
    options, problems = GAME.options(names, given)
    assert problems == []
    rng = Rng(count)
    state = GAME.setup([{"name": n} for n in names], options, rng)
    kept: list[tuple[Any, str]] = []
    turn = 0
    while not GAME.is_over(state):
        kept.append((state, snapshot(state)))
        for viewer in [None, *names]:
            view = GAME.view(state, viewer)
            kept.append((view, snapshot(view)))
        gm = GAME.gm_view(state)
        kept.append((gm, snapshot(gm)))
        orders: dict[str, Any] = {}
        for player in GAME.owed(state):
            order = GAME.bot(GAME.view(state, player), rng.stream(f"bot {player} {turn}"))
            # every third turn a player's order is missing and the default order is played
            orders[player] = None if (turn + len(player)) % 3 == 0 else GAME.normalise(order)
        kept.append((orders, snapshot(orders)))
        resolution = GAME.resolve(state, orders, rng)
        kept.append((resolution.events, snapshot(resolution.events)))
        state = resolution.state
        turn += 1
    for final in (state, GAME.view(state, names[0]), GAME.record(state, True)):
        kept.append((final, snapshot(final)))
    changed = [index for index, (value, then) in enumerate(kept) if snapshot(value) != then]
    assert changed == []


def test_a_view_changed_by_its_reader_leaves_the_state_alone() -> None:
    """A reader that changes the lists of its view (not the rounds inside) changes no state."""
    names = NAMES[:3]
    options, _ = GAME.options(names, {})
    rng = Rng(7)
    state = GAME.setup([{"name": n} for n in names], options, rng)
    while not state["rounds"]:
        orders = {
            player: GAME.bot(GAME.view(state, player), rng.stream(f"bot {player}"))
            for player in GAME.owed(state)
        }
        state = GAME.resolve(state, orders, rng).state
    before = snapshot(state)
    for viewer in [None, *names]:
        view = GAME.view(state, viewer)
        for value in view.values():
            if isinstance(value, list | dict):
                value.clear()
    assert snapshot(state) == before
