"""Hidden information stays hidden: two games that differ only in what a player cannot know
(other players' hands, every deck's order, others' face-down cards, among them the card a
default laid for another player, the seed) must give that player exactly the same report, form
and view. The game master's report shows the difference, which proves the two worlds really
differ."""

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
from tests.invariants import sultan_invariants

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


def advance(state: State, turns: int, seed: int, idle: frozenset[str] = frozenset()) -> State:
    """``turns`` turns played by bots; the ``idle`` players send no orders (each of their orders
    is the default the game applies: S11, the lowest card)."""
    rng = Rng(seed)
    for _ in range(turns):
        owed = GAME.owed(state)
        orders = {
            p: GAME.bot(GAME.view(state, p), rng.stream(f"bot {p} {state['turn']}"))
            for p in owed
            if p not in idle
        }
        state = GAME.resolve(state, orders, rng).state
    return state


def other_world(state: State, viewer: str, seed: int) -> State:
    """The same public game, but every other player's hand and deck dealt otherwise, and so the
    cards they laid face down this round (sequential placement): a card a default laid is the
    lowest of the hand it was laid from, as the rules have it, and sits in the round's defaults,
    its placement and its events alike."""
    world = copy.deepcopy(state)
    dealt = state["stage"] * state["hand_size"]
    stream = Rng(seed).stream("other world")
    placements = (world["current"] or {}).get("placements", [])
    for player in state["players"]:
        if player == viewer:
            continue
        hand = state["hands"][player]
        face_down = [p for p in placements if p["player"] == player]
        laid = [p["card"] for p in face_down]
        rest = state["decks"][player][dealt:]
        pool = stream.shuffle(hand + laid + rest)
        held = len(hand) + len(laid)  # the hand as it was before this round's cards
        before, new_rest = sorted(pool[:held]), pool[held:]
        new_hand = list(before)
        for placement in face_down:  # laid again, in the order they were laid
            card = min(new_hand) if placement["default"] else stream.choice(new_hand)
            new_hand.remove(card)
            placement["card"] = card
        in_hand = Counter(hand + laid)
        kept = []  # the dealt cards already played, in deck order
        for card in state["decks"][player][:dealt]:
            if in_hand[card]:
                in_hand[card] -= 1
            else:
                kept.append(card)
        world["hands"][player] = sorted(new_hand)
        world["decks"][player] = kept + before + new_rest
    if placements:
        _laid_again(world, viewer)
    return world


def _laid_again(world: State, viewer: str) -> None:
    """The round's defaults and the last turn's events of ``world`` told with the cards its
    placements now hold (those of every player but ``viewer``)."""
    current = world["current"]
    laid: dict[str, list[int]] = {}  # each player's default cards, in the order laid
    for placement in current["placements"]:
        if placement["default"]:
            laid.setdefault(placement["player"], []).append(placement["card"])
    orders = {}  # each default's order, by (turn, player)
    for entry in current["defaults"]:
        player, order = entry["player"], entry["order"]
        if player != viewer:
            for bid in order.get("bids") or ([order["bid"]] if "bid" in order else []):
                bid["card"] = laid[player].pop(0)
        orders[(entry["turn"], player)] = order
    events = world["last"]["events"]
    placed = [e for e in events if e["type"] == "placed"]  # this turn's, the last placements
    for event, placement in zip(placed, current["placements"][-len(placed) :], strict=True):
        event["card"] = placement["card"]
    for event in events:
        if event["type"] == "default" and (event["turn"], event["player"]) in orders:
            event["order"] = copy.deepcopy(orders[(event["turn"], event["player"])])


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


def pending_defaults(state: State, viewer: str) -> list[int]:
    """The cards defaults laid face down this round for players other than ``viewer``."""
    current = state["current"] or {}
    return [
        bid["card"]
        for entry in current.get("defaults", [])
        if entry["player"] != viewer
        for bid in entry["order"].get("bids") or [entry["order"].get("bid")]
        if bid is not None
    ]


@pytest.mark.parametrize("count", [2, 3, 4, 5])
@pytest.mark.parametrize("turns", [0, 9, 30])
def test_another_players_pending_default_card_does_not_show(count: int, turns: int) -> None:
    """Sequential placement, a player who sends no orders: the card each default lays for them
    lies face down until the round's reveal, like a card they laid themselves."""
    info = meta(count, seed=6, placement="sequential")
    players = info["players"]
    idle = frozenset({players[0]["name"]})
    state = advance(GAME.setup(players, info["options"], Rng(6)), turns, 6, idle)
    viewer = state["players"][-1]
    for _ in range(3 * count):  # on to a turn where a default's card lies face down
        if pending_defaults(state, viewer):
            break
        state = advance(state, 1, state["turn"], idle)
    assert pending_defaults(state, viewer) and state["stage"] < 3
    world = next(
        w
        for w in (other_world(state, viewer, seed) for seed in range(2, 40))
        if pending_defaults(w, viewer) != pending_defaults(state, viewer)
    )
    sultan_invariants(world)  # the other world is one the rules can make
    second = committed({**info, "seed": 987654321})
    assert same_but_hashes(
        readings(GAME, state, info, viewer), readings(GAME, world, second, viewer)
    )
    assert render(GAME, info, state, "gm") != render(GAME, second, world, "gm")
