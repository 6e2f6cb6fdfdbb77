"""One contract test for every registered game: seeded bot games, with some orders missing.

Checks what every game owes the engine: plain JSON state, pure resolve, turn numbering, bots'
orders that validate against the player's own context, an end, and a record. Game-specific
invariants (cards and jewels conserved, scores recomputed) are in ``tests/invariants.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.engine.setup import PlayerSpec, setup_model
from adjudicator.rules.contract import Game, State
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import game_names, load_game
from tests.invariants import INVARIANTS

NAMES = ["alice", "bob", "carol", "dave", "erin"]
MAX_TURNS = 400


def registered() -> list[tuple[str, Game]]:
    return [(name, load_game(name)) for name in game_names()]


def play(game: Game, count: int, seed: int, missing: Callable[[int, str], bool]) -> State:
    names = NAMES[:count]
    options, problems = game.options(names, {})
    assert problems == []
    rng = Rng(seed)
    state = game.setup([{"name": n} for n in names], options, rng)
    check = INVARIANTS.get(game.name, lambda s: None)
    for _ in range(MAX_TURNS):
        assert json.loads(json.dumps(state)) == state, "state is plain JSON"
        check(state)
        owed = game.owed(state)
        if game.is_over(state):
            assert owed == {}
            break
        assert owed, "a running game owes someone an order"
        orders: dict[str, Any] = {}
        for player, to_do in owed.items():
            view = game.view(state, player)
            assert view["player"] == player and view["to_do"] == to_do
            json.dumps(view)
            context = json.loads(json.dumps(game.context(view)))
            order = game.bot(view, rng.stream(f"bot {player} turn {state['turn']}"))
            assert game.validate(context, order) == [], order
            orders[player] = None if missing(state["turn"], player) else game.normalise(order)
        before = copy.deepcopy(state)
        resolution = game.resolve(state, orders, rng)
        assert state == before, "resolve must not change its input"
        assert resolution.state["turn"] == state["turn"] + 1
        json.dumps(resolution.events)
        state = resolution.state
    else:
        pytest.fail(f"{game.name} did not end within {MAX_TURNS} turns")
    record = game.record(state, True)
    json.dumps(record)
    return state


@pytest.mark.parametrize(("name", "game"), registered())
def test_every_player_count_plays_to_the_end(name: str, game: Game) -> None:
    for count in range(game.min_players, game.max_players + 1):
        first = play(game, count, seed=count, missing=lambda turn, player: False)
        again = play(game, count, seed=count, missing=lambda turn, player: False)
        assert first == again, "same seed, same game"


@pytest.mark.parametrize(("name", "game"), registered())
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_seeds_and_missing_orders(name: str, game: Game, data: st.DataObject) -> None:
    count = data.draw(st.integers(game.min_players, game.max_players), label="players")
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    absent = data.draw(st.frozensets(st.tuples(st.integers(1, 60), st.sampled_from(NAMES))))
    play(game, count, seed, missing=lambda turn, player: (turn, player) in absent)


@pytest.mark.parametrize(("name", "game"), registered())
def test_the_games_player_keys(name: str, game: Game) -> None:
    """Strict, no extra keys, all optional, none of the keys every game reads; a setup with the
    keys every game reads and no others fits the game's setup model."""
    model = game.player_model()
    assert model.model_config.get("strict") is True
    assert model.model_config.get("extra") == "forbid"
    assert all(not field.is_required() for field in model.model_fields.values())
    assert not set(model.model_fields) & set(PlayerSpec.model_fields)
    assert game.name == name
    players = [{"name": n, "email": f"{n}@example.org", "key": "k"} for n in NAMES]
    setup_model(game).model_validate({"game": name, "id": "x", "players": players}, strict=True)
    entries = [{"name": n, "email": f"{n}@example.org", "key": "k"} for n in NAMES]
    assert game.check_players(entries[: game.min_players]) == []


REPORT_TEMPLATES = ("player.txt.j2", "public.txt.j2", "gm.txt.j2", "final.txt.j2", "form.yaml.j2")


@pytest.mark.parametrize(("name", "game"), registered())
def test_the_game_ships_its_templates(name: str, game: Game) -> None:
    """Every report the engine renders has its template in the game's own folder."""
    folder = game.templates()
    assert folder.is_dir(), f"{name}: {folder} is no folder"
    assert [t for t in REPORT_TEMPLATES if not (folder / t).is_file()] == []
