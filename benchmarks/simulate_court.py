"""A minimal simulator of At the Sultan's Court (docs/rulings.md C1-C14, the default options), the
engine's yardstick.

Plain Python with random legal play; it imports nothing from the adjudicator, so that
`engine.py` can time the engine against what the same rules cost when written straight. Each
round every player picks at random among their legal orders, leaning the way any player would
so that games end (a vizir in a city heads back to a free seat half the time; a player holding
all six power types makes for the favoured seat; the Kaffa list names the types lacked; the
demand list asks for them; pardons free who can be freed).

    .venv/bin/python benchmarks/simulate_court.py [--games 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass

POWER = ("Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships")
PARDON = "Pardon"
CITIES = ("Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan")
KAFFA = "Kaffa"
DEAL_ORDER = ("Bukhara", "Tabriz", "Shiraz", "Gidda", "Uskub", "Isfahan")
DUNGEONS = ("dungeon1", "dungeon2", "dungeon3")
ISLAND, RESERVE = "island", "reserve"
PLAYERS = 4
MAX_ROUNDS = 10_000  # a game that runs this long is a bug of the simulator


class Victory(Exception):
    def __init__(self, player: int) -> None:
        super().__init__(player)
        self.player = player


@dataclass
class Orders:
    """One player's orders for a round (C6)."""

    travel: dict[int, str | int]  # vizir -> a city, a seat number or "stay"
    accuse: int | None
    kaffa: list[str]
    demand: list[tuple[str, int]]  # (card, from whom)
    pardon: list[tuple[int, str]]  # (vizir, city)
    trades: list[tuple[int, str, str]]  # (with whom, give, get)


@dataclass
class Outcome:
    """One game's end: the winner (None when nobody can win any more), rounds played, and
    where every card is (hands and city stacks), for a test to count."""

    winner: int | None
    rounds: int
    hands: list[list[str]]
    cities: dict[str, list[str]]
    places: list[int | str]


class Court:
    """One game. Vizir ``v`` belongs to player ``v // 3`` (kinds fat, small, big in order);
    a place is a court position 0-11 (0 is the favoured seat), a city or a dungeon's name."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.markers = list(range(1, 13))  # vote marker (seat number) by court position
        rnd.shuffle(self.markers)
        positions = list(range(12))
        rnd.shuffle(positions)
        self.places: list[int | str] = list(positions)  # vizir -> place
        cards = [c for c in (*POWER, PARDON) for _ in range(6)]
        rnd.shuffle(cards)
        self.hands = [cards[2 * p : 2 * p + 2] for p in range(PLAYERS)]
        self.cities = {KAFFA: cards[8:12]}
        for i, city in enumerate(DEAL_ORDER):
            self.cities[city] = cards[12 + 5 * i : 17 + 5 * i]
        self.first = 0
        self.round = 0

    # -- helpers --
    def occupant(self, position: int) -> int | None:
        for vizir, place in enumerate(self.places):
            if place == position and type(place) is int:
                return vizir
        return None

    def lacking(self, player: int) -> list[str]:
        return [t for t in POWER if t not in self.hands[player]]

    def check_victory(self) -> None:  # C13, after every step
        vizir = self.occupant(0)
        if vizir is not None and not self.lacking(vizir // 3):
            raise Victory(vizir // 3)

    def turn_order(self) -> list[int]:  # C5
        best = None
        for vizir, place in enumerate(self.places):
            if type(place) is int and (best is None or self.markers[place] > best[0]):
                best = (self.markers[place], vizir // 3)
        if best is not None:
            self.first = best[1]
        return [(self.first + i) % PLAYERS for i in range(PLAYERS)]

    # -- orders --
    def orders(self, player: int) -> Orders:
        rnd = self.rnd
        missing = self.lacking(player)
        free = [self.markers[p] for p in range(12) if self.occupant(p) is None]
        stacked = [c for c in CITIES if self.cities[c]] or list(CITIES)
        wanted = [  # cities whose top card is lacked (Kaffa: maybe), else any with cards left
            c for c in stacked if c == KAFFA or (self.cities[c] and self.cities[c][0] in missing)
        ] or stacked
        travel: dict[int, str | int] = {}
        for vizir in range(3 * player, 3 * player + 3):
            place = self.places[vizir]
            if self.round == 1:  # C3: every vizir travels in round 1
                travel[vizir] = rnd.choice(wanted)
            elif type(place) is int:
                go = missing and rnd.random() < 0.5
                travel[vizir] = rnd.choice(wanted) if go else "stay"
            elif place in CITIES or place == RESERVE:
                winning = [s for s in (self.markers[0], self.markers[11]) if s in free]
                if not missing and winning:
                    travel[vizir] = rnd.choice(winning)
                elif free and (len(missing) <= 2 or rnd.random() < 0.3):
                    travel[vizir] = rnd.choice(free)
                else:
                    travel[vizir] = rnd.choice(wanted)
                if travel[vizir] in free:
                    free.remove(int(travel[vizir]))  # never two of one's own to one seat
        leaders = [  # an accusation counts only against a player holding 4 types or more
            v
            for v in range(12)
            if v // 3 != player
            and (type(self.places[v]) is int or self.places[v] in CITIES)
            and len(set(self.hands[v // 3]) & set(POWER)) >= 4
        ]
        accuse = rnd.choice(leaders) if leaders and rnd.random() < 0.5 else None
        demand = [(card, other) for card in missing for other in range(PLAYERS) if other != player]
        rnd.shuffle(demand)
        pardon = [
            (vizir, rnd.choice(CITIES))
            for vizir in range(3 * player, 3 * player + 3)
            if self.places[vizir] in DUNGEONS[1:]
        ]
        trades = []
        held = [c for c in self.hands[player] if c in POWER]
        if held and missing and rnd.random() < 0.5:
            other = rnd.choice([p for p in range(PLAYERS) if p != player])
            trades.append((other, rnd.choice(held), rnd.choice(missing)))
        kaffa = missing[:]
        rnd.shuffle(kaffa)
        return Orders(travel, accuse, kaffa, demand, pardon, trades)

    # -- the round --
    def stuck(self) -> bool:
        """Nobody can win any more: every vizir in a dungeon or on the Island, and none that
        a Pardon card in its player's hand could free (the rules would go on for ever)."""
        for vizir, place in enumerate(self.places):
            if type(place) is int or place in CITIES or place == RESERVE:
                return False
            if place in DUNGEONS[1:] and PARDON in self.hands[vizir // 3]:
                return False
        return True

    def play_round(self) -> None:
        self.round += 1
        order = self.turn_order()
        orders = {p: self.orders(p) for p in range(PLAYERS)}
        self.trade(order, orders)
        self.travel(order, orders)
        self.collect(order, orders)
        self.demand(order, orders)
        self.banish(order, orders)
        self.pardon(order, orders)
        for vizir, place in enumerate(self.places):  # C12
            if type(place) is int:
                self.places[vizir] = (place + 1) % 12
        self.check_victory()

    def trade(self, order: list[int], orders: dict[int, Orders]) -> None:  # C14
        paired: set[tuple[int, int]] = set()
        for player in order:
            for i, (partner, give, get) in enumerate(orders[player].trades):
                if (player, i) in paired:
                    continue
                for j, (back, their_give, their_get) in enumerate(orders[partner].trades):
                    if (partner, j) in paired or back != player:
                        continue
                    if their_give == get and their_get == give:
                        paired |= {(player, i), (partner, j)}
                        mine, theirs = self.hands[player], self.hands[partner]
                        if give in mine and get in theirs:
                            mine.remove(give)
                            theirs.remove(get)
                            mine.append(get)
                            theirs.append(give)
                            self.check_victory()
                        break

    def travel(self, order: list[int], orders: dict[int, Orders]) -> None:  # C7
        claims: dict[int, set[int]] = {}
        for player in order:
            for vizir, target in orders[player].travel.items():
                place = self.places[vizir]
                if type(target) is int and not (
                    type(place) is int and self.markers[place] == target
                ):
                    claims.setdefault(target, set()).add(player)
        for player in order:
            moves = orders[player].travel
            for vizir, target in moves.items():
                if target in CITIES and self.places[vizir] != target:
                    self.places[vizir] = target
                    self.check_victory()
            for vizir, target in moves.items():
                if type(target) is not int or claims[target] != {player}:
                    continue
                position = self.markers.index(target)
                if self.occupant(position) is None:
                    self.places[vizir] = position
                    self.check_victory()

    def collect(self, order: list[int], orders: dict[int, Orders]) -> None:  # C8
        visitors: dict[str, list[int]] = {city: [] for city in CITIES}
        for vizir, place in enumerate(self.places):
            if place in visitors:
                visitors[place].append(vizir)
        for player in order:
            for vizir in range(3 * player, 3 * player + 3):
                city = self.places[vizir]
                if city not in visitors or visitors[city] != [vizir]:
                    continue
                stack = self.cities[city]
                if not stack:
                    continue
                if city == KAFFA:
                    index = self.kaffa_choice(player, stack, orders[player].kaffa)
                    card = stack.pop(index)
                else:
                    card = stack.pop(0)
                self.hands[player].append(card)
                self.check_victory()

    def kaffa_choice(self, player: int, stack: list[str], wishes: list[str]) -> int:
        for wish in wishes:
            if wish in stack:
                return stack.index(wish)
        for card in POWER:
            if card not in self.hands[player] and card in stack:
                return stack.index(card)
        return stack.index(PARDON) if PARDON in stack else 0

    def demand(self, order: list[int], orders: dict[int, Orders]) -> None:  # C8
        sitter = self.occupant(self.markers.index(1))
        if sitter is None:
            return
        player = sitter // 3
        hands = self.hands
        for card, giver in orders[player].demand:
            if card not in hands[player] and hands[giver].count(card) >= 2:
                hands[giver].remove(card)
                hands[player].append(card)
                self.check_victory()
                break

    def banish(self, order: list[int], orders: dict[int, Orders]) -> None:  # C9, C10
        kinds = [len(set(h) & set(POWER)) for h in self.hands]
        tally: dict[int, list[int]] = {}  # vizir -> [votes, earliest accuser's index]
        for index, player in enumerate(order):
            target = orders[player].accuse
            if target is None:
                continue
            place = self.places[target]
            if not (type(place) is int or place in CITIES) or kinds[target // 3] < 4:
                continue
            votes = sum(
                self.markers[p]
                for v, p in enumerate(self.places)
                if v // 3 == player and type(p) is int
            )
            tally.setdefault(target, [0, index])[0] += votes
        if not tally:
            return

        def key(vizir: int) -> tuple[int, int, int]:
            place = self.places[vizir]
            seat = self.markers[place] if type(place) is int else 0
            return (-tally[vizir][0], seat, tally[vizir][1])

        mover = min(tally, key=key)
        for dungeon, following in zip(DUNGEONS, (*DUNGEONS[1:], ISLAND), strict=True):
            inside = next((v for v, p in enumerate(self.places) if p == dungeon), None)
            self.places[mover] = dungeon
            if inside is None:
                break
            mover = inside
            if following == ISLAND:
                self.places[mover] = ISLAND
        self.check_victory()

    def pardon(self, order: list[int], orders: dict[int, Orders]) -> None:  # C11
        for player in order:
            for vizir, city in orders[player].pardon:
                if self.places[vizir] in DUNGEONS[1:] and PARDON in self.hands[player]:
                    self.hands[player].remove(PARDON)
                    self.cities[city].append(PARDON)
                    self.places[vizir] = RESERVE
                    self.check_victory()


def play_game(rnd: random.Random) -> Outcome:
    court = Court(rnd)
    winner = None
    try:
        while court.round < MAX_ROUNDS and not court.stuck():
            court.play_round()
    except Victory as victory:
        winner = victory.player
    return Outcome(winner, court.round, court.hands, court.cities, court.places)


def play(games: int, players: int = PLAYERS, seed: int = 1) -> list[Outcome]:
    """``games`` games of At the Sultan's Court (always 4 players), seeded."""
    if players != PLAYERS:
        raise ValueError("At the Sultan's Court is for 4 players")
    rnd = random.Random(seed)
    return [play_game(rnd) for _ in range(games)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    outcomes = play(args.games, seed=args.seed)
    took = time.perf_counter() - start
    rounds = sum(o.rounds for o in outcomes) / len(outcomes)
    print(f"{rounds:.1f} rounds a game")
    print(f"games/s: {args.games / took:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
