"""The engine benchmark and its yardsticks keep working (benchmarks/engine.py).

Nothing here is timed: `make bench` measures. These tests make sure the benchmark still plays
whole games through the contract and that each simulator still plays the rules to a real end.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_the_engine_benchmark_plays_games_through_the_contract(game: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "engine.py"), "--game", game, "--games", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.fullmatch(r"games/s: \d+\.\d+", lines[-1]), done.stdout
    assert float(lines[-1].split()[-1]) > 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_sultan_simulator_plays_whole_games(players: int) -> None:
    sim = _load("simulate_sultan")
    two = players == 2
    cards = 24 if two else 15
    cushions = 2 if players == 3 else 3
    for outcome in sim.play(3, players=players, seed=players):
        assert outcome.cards_played == [cards] * players  # every card is played (S3)
        assert outcome.rounds == (12 if two else 15)
        assert outcome.awarded + outcome.unawarded == outcome.rounds * cushions
        assert sum(sum(c.values()) for c in outcome.collections) == outcome.awarded
        for colour, count in sim.POUCH.items():  # every jewel in a collection or the pouch
            held = sum(c[colour] for c in outcome.collections)
            assert held + outcome.pouch[colour] == count
        for collection, total in zip(outcome.collections, outcome.totals, strict=True):
            points = sum(sim.VALUES[c] * n for c, n in collection.items())
            assert total == points + sum(sim.bonus(n, players) for n in collection.values())
        best = max(outcome.totals)
        assert outcome.winners and all(outcome.totals[p] == best for p in outcome.winners)


def test_the_court_simulator_plays_to_a_winner() -> None:
    sim = _load("simulate_court")
    outcomes = sim.play(12, seed=7)
    assert any(o.winner is not None for o in outcomes)
    for outcome in outcomes:
        cards = Counter(c for hand in outcome.hands for c in hand)
        cards.update(c for stack in outcome.cities.values() for c in stack)
        assert cards == Counter({card: 6 for card in (*sim.POWER, sim.PARDON)})
        if outcome.winner is None:  # nobody can win any more: no vizir left to play
            assert not any(isinstance(p, int) or p in sim.CITIES for p in outcome.places)
            continue
        assert set(sim.POWER) <= set(outcome.hands[outcome.winner])  # C13
        assert outcome.places.index(0) // 3 == outcome.winner  # on the favoured seat
