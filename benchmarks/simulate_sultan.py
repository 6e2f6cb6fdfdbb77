"""A minimal simulator of Sultan (docs/rulings.md S1-S9, the default options), the engine's
yardstick.

Plain Python with random legal play; it imports nothing from the adjudicator, so that
`engine.py` can time the engine against what the same rules cost when written straight. The
start player returns a drawn jewel at random; every player lays a random card of their hand on a
random cushion (two players: two cards on two different cushions).

    .venv/bin/python benchmarks/simulate_sultan.py [--players 5] [--games 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field

COLOURS = ("white", "red", "yellow", "green", "blue")
VALUES = {"white": 1, "red": 2, "yellow": 3, "green": 4, "blue": 5}
POUCH = {"white": 12, "red": 11, "yellow": 10, "green": 9, "blue": 8}
BONUS = {3: 2, 4: 5, 5: 10, 6: 20}
BONUS_2P = {4: 2, 5: 5, 6: 10, 7: 20}
STAGES = 3


@dataclass
class Outcome:
    """One game's end: each player's jewels by colour, totals, the winners, and the tallies a
    test checks (cards played, jewels awarded, jewels that went back unbid)."""

    collections: list[dict[str, int]]
    totals: list[int]
    winners: list[int]
    cards_played: list[int] = field(default_factory=list)
    awarded: int = 0
    unawarded: int = 0
    pouch: dict[str, int] = field(default_factory=dict)
    rounds: int = 0


def bonus(count: int, players: int) -> int:
    table = BONUS_2P if players == 2 else BONUS
    top = max(table)
    return table[min(count, top)] if count >= min(table) else 0


def play_game(players: int, rnd: random.Random) -> Outcome:
    two = players == 2
    cushions = 2 if players == 3 else 3
    hand_size = 8 if two else 5
    rounds = 4 if two else 5
    deck = [v for v in range(1, 13) for _ in range(2)] if two else list(range(1, 16))
    decks = []
    for _ in range(players):
        mine = deck[:]
        rnd.shuffle(mine)
        decks.append(mine)
    pouch = dict(POUCH)
    collections = [dict.fromkeys(COLOURS, 0) for _ in range(players)]
    played = [0] * players
    awarded = unawarded = 0
    start = rnd.randrange(players)
    for stage in range(STAGES):
        hands = [d[stage * hand_size : (stage + 1) * hand_size] for d in decks]
        for _ in range(rounds):
            jewels = [c for c in COLOURS for _ in range(pouch[c])]
            drawn = rnd.sample(jewels, min(cushions + 1, len(jewels)))
            back = rnd.randrange(len(drawn))  # the start player returns one (S5)
            offered = drawn[:back] + drawn[back + 1 :]
            for colour in offered:
                pouch[colour] -= 1
            seating = [(start + i) % players for i in range(players)]
            order = seating * 2 if two else seating  # S6: placement order
            bids: list[list[tuple[int, int]]] = [[] for _ in offered]  # (card, player)
            used: dict[int, int] = {}
            for player in order:
                hand = hands[player]
                card = hand.pop(rnd.randrange(len(hand)))
                free = [c for c in range(len(offered)) if c != used.get(player)]
                cushion = rnd.choice(free)
                used[player] = cushion
                bids[cushion].append((card, player))
                played[player] += 1
            for cushion, colour in enumerate(offered):  # S7
                if not bids[cushion]:
                    pouch[colour] += 1
                    unawarded += 1
                    continue
                best_card, winner = bids[cushion][0]
                for card, player in bids[cushion][1:]:
                    if card > best_card or (two and card == best_card and player == start):
                        best_card, winner = card, player
                collections[winner][colour] += 1
                awarded += 1
            start = (start + 1) % players  # S4
    totals = [
        sum(VALUES[c] * n + bonus(n, players) for c, n in collection.items())
        for collection in collections
    ]
    ranks = [(totals[p], sum(collections[p].values())) for p in range(players)]
    best = max(ranks)
    return Outcome(
        collections=collections,
        totals=totals,
        winners=[p for p in range(players) if ranks[p] == best],
        cards_played=played,
        awarded=awarded,
        unawarded=unawarded,
        pouch=pouch,
        rounds=STAGES * rounds,
    )


def play(games: int, players: int = 5, seed: int = 1) -> list[Outcome]:
    """``games`` games of Sultan for ``players`` players, seeded."""
    rnd = random.Random(seed)
    return [play_game(players, rnd) for _ in range(games)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=5, choices=range(2, 6))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    play(args.games, args.players, args.seed)
    print(f"games/s: {args.games / (time.perf_counter() - start):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
