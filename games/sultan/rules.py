"""Sultan's rules (docs/rulings.md S1–S11): options, setup, who owes, resolution and scoring.

The state is a plain JSON dict. Nothing changes a state once ``setup`` or ``resolve`` has returned
it: ``resolve`` copies the parts a turn changes (``_fresh``, ``_reveal``) and shares the rest (the
filed rounds, decks, options, played cards) with the state it was given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.rules.contract import Event, Order, Resolution, State, View
from adjudicator.rules.plain import clone
from adjudicator.rules.rng import Rng, Stream

from .checks import validate

COLOURS = ("white", "red", "yellow", "green", "blue")
VALUES = {"white": 1, "red": 2, "yellow": 3, "green": 4, "blue": 5}
POUCH = {"white": 12, "red": 11, "yellow": 10, "green": 9, "blue": 8}
BONUS = {3: 2, 4: 5, 5: 10, 6: 20}  # S9, 3–5 players: count -> bonus (6 or more: 20)
BONUS_2P = {4: 2, 5: 5, 6: 10, 7: 20}  # S9, 2 players (7 or more: 20)
STAGES = 3


DEFAULTS: dict[str, Any] = {
    "placement": "sealed",
    "jewel_choice": "player",
    "screens": True,
    "start_player": None,
}
"""The options' defaults (games/sultan/options.py checks the options given; a test holds the
two together)."""


def base_deck(count: int) -> list[int]:
    """The money cards of one player before shuffling (S2): 1..15, or 1,1,2,2,..,12,12 for two."""
    if count == 2:
        return [value for value in range(1, 13) for _ in range(2)]
    return list(range(1, 16))


def setup(players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng) -> State:
    """The state as turn 1 opens: decks dealt, first hands, start player, first draw."""
    names = [str(p["name"]) for p in players]
    count = len(names)
    if not 2 <= count <= 5 or len(set(names)) != count:
        raise ValueError("Sultan needs 2 to 5 players with different names")
    opts = {key: options.get(key, default) for key, default in DEFAULTS.items()}
    two = count == 2
    decks = {p: rng.stream(f"deal {p}").shuffle(base_deck(count)) for p in names}
    hand_size = 8 if two else 5
    if opts["start_player"] is None:
        start = rng.stream("start player").choice(names)
        chosen = "lot"
    elif opts["start_player"] in names:
        start = str(opts["start_player"])
        chosen = "option"
    else:
        raise ValueError(f"start_player {opts['start_player']!r} is not a player")
    state: State = {
        "turn": 1,
        "players": names,
        "options": opts,
        "cushions": 2 if count == 3 else 3,
        "hand_size": hand_size,
        "rounds_per_stage": 4 if two else 5,
        "stages": STAGES,
        "stage": 1,
        "round": 1,
        "start_player": start,
        "phase": "return",
        "decks": decks,
        "hands": {p: sorted(decks[p][:hand_size]) for p in names},
        "played": {p: [] for p in names},
        "collections": {p: dict.fromkeys(COLOURS, 0) for p in names},
        "pouch": dict(POUCH),
        "current": None,
        "rounds": [],
        "last": None,
        "result": None,
    }
    events: list[Event] = [
        {"type": "started", "start_player": start, "chosen_by": chosen},
        {"type": "stage_started", "stage": 1, "hand_size": hand_size},
    ]
    _open_round(state, rng, events)
    state["last"] = {"turn": 0, "events": events}
    return state


# -- who owes ------------------------------------------------------------------------------------
def placement_order(state: State) -> list[str]:
    """Who places in which order this round (S6): seating from the start player; 2 players twice."""
    names: list[str] = state["players"]
    first = names.index(state["start_player"])
    seating = names[first:] + names[:first]
    return seating * 2 if len(names) == 2 else seating


def owed(state: State) -> dict[str, str]:
    phase = state["phase"]
    if phase == "return":
        return {state["start_player"]: "return"}
    if phase != "place":
        return {}
    if state["options"]["placement"] == "sequential":
        order = placement_order(state)
        return {order[len(state["current"]["placements"])]: "bid"}
    to_do = "bids" if len(state["players"]) == 2 else "bid"
    return dict.fromkeys(state["players"], to_do)


def context_for(state: State, player: str) -> dict[str, Any]:
    """What ``validate`` needs of ``player``'s position (the same as ``context(view)``)."""
    return _context(state, player, owed(state).get(player))


def _context(state: State, player: str, to_do: str | None) -> dict[str, Any]:
    """``context_for`` with what ``player`` owes (``owed(state).get(player)``) already known."""
    current = state["current"] or {}
    offered = current.get("offered")
    placements = current.get("placements", [])
    return {
        "to_do": to_do,
        "hand": sorted(state["hands"].get(player, [])),
        "cushions": len(offered) if offered is not None else state["cushions"],
        "drawn": list(current.get("drawn", [])),
        "used_cushions": [p["cushion"] for p in placements if p["player"] == player]
        if placements
        else [],
    }


# -- the round -----------------------------------------------------------------------------------
def _open_round(state: State, rng: Rng, events: list[Event]) -> None:
    """Draw (cushions + 1) jewels (S1, S5); with ``jewel_choice: random`` return one at once."""
    stage, rnd = state["stage"], state["round"]
    pouch: dict[str, int] = state["pouch"]
    jewels: list[str] = []
    for colour in COLOURS:
        jewels += [colour] * pouch[colour]
    want = min(state["cushions"] + 1, len(jewels))
    drawn = rng.stream(f"stage {stage} round {rnd} draw").sample(jewels, want)
    for colour in drawn:
        pouch[colour] -= 1
    state["current"] = {
        "turns": [],
        "drawn": drawn,
        "returned": None,
        "returned_by": None,
        "offered": None,
        "placements": [],
        "defaults": [],
    }
    state["phase"] = "return"
    events.append(
        {
            "type": "drawn",
            "stage": stage,
            "round": rnd,
            "start_player": state["start_player"],
            "drawn": list(drawn),
        }
    )
    if state["options"]["jewel_choice"] == "random":
        colour = rng.stream(f"stage {stage} round {rnd} return").choice(drawn)
        _return(state, colour, "random", events)


def _return(state: State, colour: str, by: str, events: list[Event]) -> None:
    """The earliest-drawn jewel of ``colour`` goes back; cushions 1..k take the rest in order."""
    current = state["current"]
    drawn: list[str] = current["drawn"]
    index = drawn.index(colour)
    current["offered"] = drawn[:index] + drawn[index + 1 :]
    current["returned"] = colour
    current["returned_by"] = by
    state["pouch"][colour] += 1
    state["phase"] = "place"
    events.append(
        {
            "type": "returned",
            "stage": state["stage"],
            "round": state["round"],
            "player": state["start_player"],
            "jewel": colour,
            "by": by,
            "offered": list(current["offered"]),
        }
    )


def default_order(state: State, player: str, to_do: str, stream: Stream) -> Order:
    """S11: a random drawn jewel back; the lowest card(s) on random (different) cushions."""
    current = state["current"]
    if to_do == "return":
        return {"return": stream.choice(current["drawn"])}
    hand = sorted(state["hands"][player])
    cushions = list(range(1, len(current["offered"]) + 1))
    if to_do == "bids":
        first, second = stream.sample(cushions, 2)
        return {"bids": [{"cushion": first, "card": hand[0]}, {"cushion": second, "card": hand[1]}]}
    used = {p["cushion"] for p in current["placements"] if p["player"] == player}
    free = [c for c in cushions if c not in used]
    return {"bid": {"cushion": stream.choice(free), "card": hand[0]}}


def forfeit_order(view: View) -> Order:
    """P24: the order of a seat that committed to an order and did not reveal it, from what the
    player could see: the least useful legal order by a fixed rule, never one the player picks.
    The most valuable drawn jewel goes back; the lowest card goes on the free cushion holding the
    least valuable jewel (2 players: the two lowest cards on the two least valuable cushions),
    the first such cushion on equal values."""
    if view["to_do"] == "return":
        drawn = list(view["drawn"])
        return {"return": max(drawn, key=lambda colour: VALUES[colour])}
    hand = sorted(view["hand"])
    me = view.get("player")
    used = {p["cushion"] for p in view.get("placements") or [] if p.get("player") == me}
    offered = list(view["offered"])
    free = [c for c in range(1, len(offered) + 1) if c not in used]
    cheapest = sorted(free, key=lambda c: (VALUES[offered[c - 1]], c))
    if view["to_do"] == "bids":
        return {
            "bids": [
                {"cushion": cheapest[0], "card": hand[0]},
                {"cushion": cheapest[1], "card": hand[1]},
            ]
        }
    return {"bid": {"cushion": cheapest[0], "card": hand[0]}}


def _fresh(state: State) -> State:
    """A state for a turn to change: what the turn changes first is new, the rest shared.

    Nothing changes a state once ``setup`` or ``resolve`` has returned it, so a turn copies only
    what it changes: the current round and the pouch, the hands when cards are placed, and
    (``_reveal``) the collections, played cards and the list of filed rounds when a round ends.
    Filed rounds, decks, options and the last events are never changed and stay shared, so a
    turn does not copy the whole history.
    """
    new = dict(state)
    current = state["current"]
    new["current"] = {
        **current,
        "turns": list(current["turns"]),
        "placements": list(current["placements"]),
        "defaults": list(current["defaults"]),
    }
    new["pouch"] = dict(state["pouch"])
    if state["phase"] == "place":
        new["hands"] = {p: list(cards) for p, cards in state["hands"].items()}
    return new


def resolve(state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
    """Resolve the current turn: the jewel choice, or placements (and the reveal when complete)."""
    due = owed(state)
    if not due:
        raise ValueError("the game is over: nothing to resolve")
    new = _fresh(state)
    turn: int = new["turn"]
    current = new["current"]
    current["turns"].append(turn)
    events: list[Event] = []
    chosen: dict[str, Order] = {}
    defaulted: set[str] = set()
    for player, to_do in due.items():
        order = orders.get(player)
        if order is None:
            order = default_order(new, player, to_do, rng.stream(f"turn {turn} default {player}"))
            entry = {
                "turn": turn,
                "player": player,
                "to_do": to_do,
                "order": clone(order),
            }
            current["defaults"].append(entry)
            events.append(
                {"type": "default", "stage": new["stage"], "round": new["round"], **entry}
            )
            defaulted.add(player)
        else:
            problems = validate(_context(state, player, to_do), order)
            if problems:
                details = ", ".join(p.code for p in problems)
                raise ValueError(f"{player}'s order for turn {turn} is not valid: {details}")
        chosen[player] = order
    if new["phase"] == "return":
        player = new["start_player"]
        by = "default" if player in defaulted else "player"
        _return(new, chosen[player]["return"], by, events)
    else:
        _place(new, chosen, defaulted, events)
        if len(current["placements"]) == len(placement_order(new)):
            _reveal(new, rng, events)
    new["turn"] = turn + 1
    new["last"] = {"turn": turn, "events": events}
    return Resolution(new, events)  # the state's last events, shared: read, never changed


def _place(
    state: State, chosen: Mapping[str, Order], defaulted: set[str], events: list[Event]
) -> None:
    """Lay the cards of this turn's orders, in placement order; they leave the hands."""
    current = state["current"]
    queues = {
        player: list(order["bids"]) if "bids" in order else [order["bid"]]
        for player, order in chosen.items()
    }
    order_of_play = placement_order(state)[len(current["placements"]) :]
    sequential = state["options"]["placement"] == "sequential"
    for player in order_of_play:
        if not queues.get(player):
            continue
        bid = queues[player].pop(0)
        card, cushion = int(bid["card"]), int(bid["cushion"])
        state["hands"][player].remove(card)
        placement = {
            "player": player,
            "cushion": cushion,
            "card": card,
            "default": player in defaulted,
        }
        current["placements"].append(placement)
        if sequential:
            events.append(
                {"type": "placed", "stage": state["stage"], "round": state["round"], **placement}
            )


def winning_placement(state: State, cushion: int) -> dict[str, Any] | None:
    """S7: the highest card; ties go to the earlier-placed card (2 players: the start player)."""
    start = state["start_player"] if len(state["players"]) == 2 else None
    winner: dict[str, Any] | None = None
    best = (0, 0)
    for placement in state["current"]["placements"]:
        if placement["cushion"] == cushion:
            strength = (placement["card"], 1 if placement["player"] == start else 0)
            if winner is None or strength > best:  # equal: the earlier stays
                winner, best = placement, strength
    return winner


def _reveal(state: State, rng: Rng, events: list[Event]) -> None:
    """Turn the cards up, hand out the jewels (S7, S8), file the round and open the next one."""
    current = state["current"]
    stage, rnd = state["stage"], state["round"]
    placements = [
        {"player": p["player"], "cushion": p["cushion"], "card": p["card"], "default": p["default"]}
        for p in current["placements"]
    ]
    events.append({"type": "revealed", "stage": stage, "round": rnd, "placements": placements})
    # The collections and played cards are shared with the state resolve was given (``_fresh``):
    # each one that changes is replaced by a changed copy.
    collections = state["collections"] = dict(state["collections"])
    played = state["played"] = dict(state["played"])
    awards = []
    for cushion, jewel in enumerate(current["offered"], start=1):
        best = winning_placement(state, cushion)
        winner = best["player"] if best else None
        if winner is None:
            state["pouch"][jewel] += 1
        else:
            collections[winner] = {**collections[winner], jewel: collections[winner][jewel] + 1}
        awards.append({"cushion": cushion, "jewel": jewel, "winner": winner})
        events.append(
            {
                "type": "awarded",
                "stage": stage,
                "round": rnd,
                "cushion": cushion,
                "jewel": jewel,
                "winner": winner,
                "card": best["card"] if best else None,
            }
        )
    for placement in placements:
        played[placement["player"]] = [*played[placement["player"]], placement["card"]]
    state["rounds"] = [
        *state["rounds"],
        {
            "stage": stage,
            "round": rnd,
            "turns": list(current["turns"]),
            "start_player": state["start_player"],
            "drawn": list(current["drawn"]),
            "returned": current["returned"],
            "returned_by": current["returned_by"],
            "offered": list(current["offered"]),
            "placements": placements,
            "awards": awards,
            "defaults": clone(current["defaults"]) if current["defaults"] else [],
        },
    ]
    state["current"] = None
    _advance(state, rng, events)


def _advance(state: State, rng: Rng, events: list[Event]) -> None:
    """The next round: start player passes (S4), a new stage refills hands (S3), or the end."""
    last_round = state["round"] == state["rounds_per_stage"]
    if last_round and state["stage"] == state["stages"]:
        state["phase"] = "over"
        state["result"] = result(state)
        events.append({"type": "game_over", **clone(state["result"])})
        return
    names: list[str] = state["players"]
    state["start_player"] = names[(names.index(state["start_player"]) + 1) % len(names)]
    if last_round:
        state["stage"] += 1
        state["round"] = 1
        size: int = state["hand_size"]
        taken = (state["stage"] - 1) * size
        for player in names:
            state["hands"][player] = sorted(state["decks"][player][taken : taken + size])
        events.append({"type": "stage_started", "stage": state["stage"], "hand_size": size})
    else:
        state["round"] += 1
    _open_round(state, rng, events)


# -- scoring -------------------------------------------------------------------------------------
_BONUS_RANGE = {2: (BONUS_2P, min(BONUS_2P), max(BONUS_2P))}  # players -> table, least, most
_BONUS_3_5 = (BONUS, min(BONUS), max(BONUS))


def bonus_for(count: int, players: int) -> int:
    """S9: the bonus for ``count`` jewels of one colour."""
    table, least, most = _BONUS_RANGE.get(players, _BONUS_3_5)
    return table[min(count, most)] if count >= least else 0


def score(collection: Mapping[str, int], players: int) -> dict[str, Any]:
    jewels = {c: collection[c] for c in COLOURS if collection.get(c, 0)}
    points = sum(VALUES[c] * n for c, n in jewels.items())
    bonus = sum(bonus_for(n, players) for n in jewels.values())
    return {"jewels": jewels, "points": points, "bonus": bonus, "total": points + bonus}


def result(state: State) -> dict[str, Any]:
    """S9: scores; highest total wins, then most jewels; still equal, the win is shared."""
    names: list[str] = state["players"]
    scores = {p: score(state["collections"][p], len(names)) for p in names}

    def rank(p: str) -> tuple[int, int]:
        return (scores[p]["total"], sum(scores[p]["jewels"].values()))

    best = max(rank(p) for p in names)
    return {"scores": scores, "winners": [p for p in names if rank(p) == best]}


def standings(state: State) -> list[dict[str, Any]]:
    """The final table, best first, with places (shared places for equal totals and jewels)."""
    outcome = state["result"]
    if outcome is None:
        return []
    scores = outcome["scores"]
    names: list[str] = state["players"]

    def rank(p: str) -> tuple[int, int]:
        return (scores[p]["total"], sum(scores[p]["jewels"].values()))

    ordered = sorted(names, key=lambda p: (-rank(p)[0], -rank(p)[1], names.index(p)))
    table = []
    for p in ordered:
        place = 1 + sum(1 for q in names if rank(q) > rank(p))
        table.append(
            {
                "place": place,
                "player": p,
                "total": scores[p]["total"],
                "jewels": sum(scores[p]["jewels"].values()),
                "winner": p in outcome["winners"],
            }
        )
    return table
