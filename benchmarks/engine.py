"""The engine in-process: bot games played through the game contract, against a yardstick.

Each game goes the way the engine drives one, without files, signing or a journal: ``setup``
with an ``adjudicator.rules.rng.Rng``, then turn by turn ``owed``, each owing player's ``view``, the
bot's order, ``context`` and ``validate`` (a problem stops the benchmark: the bot and the rules
disagree), ``normalise``, and ``resolve`` with every owed order, until ``is_over``.

The target: the engine's games per second at least a tenth of a minimal
straightforward simulator of the same rules, timed in the same run (``simulate_sultan.py``,
``simulate_court.py``: plain Python, random legal play, nothing imported from the adjudicator).

    .venv/bin/python benchmarks/engine.py --game sultan --players 5 --games 20 [--seed 1]
        plays that many games through the engine; the last line is ``games/s: X``
    .venv/bin/python benchmarks/engine.py [--check] [--runs 7]
        (`make bench`) Sultan at 5 players and At the Sultan's Court, each beside its
        yardstick (the fastest of the runs of each, the two run in turns); prints both rates
        and their ratio, with the turns of a game played by the bots and the rounds of one
        played at random (the same length makes games/s a fair measure), and exits 1 when a
        target is missed
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import simulate_court
import simulate_sultan

from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game

TARGET = 0.1  # the engine at least a tenth of the yardstick's games per second
NAMES = ["alice", "bob", "carol", "dave", "erin"]
MAX_TURNS = 10_000  # a game that runs this long is a bug, not a benchmark
CHECKS: dict[str, dict[str, Any]] = {
    # game: players, engine games and yardstick games for `make bench` (a few seconds each)
    "sultan": {"players": 5, "games": 30, "yardstick": 1000, "simulate": simulate_sultan.play},
    "sultans_court": {"players": 4, "games": 30, "yardstick": 300, "simulate": simulate_court.play},
}


def play(game_name: str, players: int, games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` bot games of ``game_name``; their wall time and their turns in all."""
    game = load_game(game_name)
    names = NAMES[:players]
    # the one-off imports (the order checks, the options' module) before the clock starts
    game.validate({}, {})
    game.options(names, {})
    turns = 0
    start = time.perf_counter()
    for index in range(games):
        options, problems = game.options(names, {})
        if problems:
            raise SystemExit(f"{game_name}: the default options have problems: {problems}")
        rng = Rng(f"{seed + index:032x}")
        bots = Rng(f"{seed + index:032x}")
        state = game.setup([{"name": n} for n in names], options, rng)
        for _ in range(MAX_TURNS):
            if game.is_over(state):
                break
            turn = state["turn"]
            orders: dict[str, Any] = {}
            for player in game.owed(state):
                view = game.view(state, player)
                order = game.bot(view, bots.stream(f"bot {player} turn {turn}"))
                problems = game.validate(game.context(view), order)
                if problems:
                    found = "; ".join(f"{p.code} at {list(p.path)}" for p in problems)
                    raise SystemExit(f"{game_name}: the bot's order {order} is refused: {found}")
                orders[player] = game.normalise(order)
            state = game.resolve(state, orders, rng).state
            turns += 1
        else:
            raise SystemExit(f"{game_name}: game {index} did not end within {MAX_TURNS} turns")
    return time.perf_counter() - start, turns


def yardstick(
    simulate: Callable[..., Any], players: int, games: int, seed: int
) -> tuple[float, int]:
    """The wall time of the simulator's ``games`` games and their rounds in all."""
    start = time.perf_counter()
    outcomes = simulate(games, players=players, seed=seed)
    return time.perf_counter() - start, sum(outcome.rounds for outcome in outcomes)


def check(seed: int, runs: int) -> int:
    """Each game beside its yardstick, the fastest of ``runs`` runs of each, the two taken in
    turns (a slow spell of the machine then falls on both, not on one block of runs); 1 when
    the engine misses a tenth of the yardstick."""
    missed = False
    for name, plan in CHECKS.items():
        players, games, sims = plan["players"], plan["games"], plan["yardstick"]
        engine_runs, sim_runs = [], []
        for _ in range(runs):
            engine_runs.append(play(name, players, games, seed))
            sim_runs.append(yardstick(plan["simulate"], players, sims, seed))
        took, turns = min(engine_runs)
        sim_took, rounds = min(sim_runs)
        engine_rate, sim_rate = games / took, sims / sim_took
        ratio = engine_rate / sim_rate
        met = ratio >= TARGET
        missed = missed or not met
        print(
            f"{name} ({players} players): engine {engine_rate:.1f} games/s "
            f"({turns / games:.1f} turns a game), simulator {sim_rate:.1f} games/s "
            f"({rounds / sims:.1f} rounds a game), ratio {ratio:.3f} "
            f"(target at least {TARGET}) -> {'met' if met else 'MISSED'}"
        )
    return 1 if missed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(CHECKS))
    parser.add_argument("--players", type=int)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--check", action="store_true", help="both games beside their yardsticks (the default)"
    )
    parser.add_argument("--runs", type=int, default=7, help="with --check: the fastest of these")
    args = parser.parse_args()
    if args.check or args.game is None:
        return check(args.seed, args.runs)
    players = args.players or CHECKS[args.game]["players"]
    took, turns = play(args.game, players, args.games, args.seed)
    print(f"{args.game}, {players} players: {args.games} games, {turns} turns, {took:.2f} s")
    print(f"games/s: {args.games / took:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
