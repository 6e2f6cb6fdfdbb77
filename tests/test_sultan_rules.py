"""Sultan: what the rule cases do not express well: whole games, leaks, options, the order model."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from pydantic import ValidationError

from adjudicator.games.sultan import GAME
from adjudicator.games.sultan.rules import COLOURS, POUCH, base_deck, context_for, score
from adjudicator.present.words import say
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game

NAMES = ["anne", "bob", "carl", "dora", "emil"]
OPTION_SETS = [
    {},
    {"placement": "sequential"},
    {"jewel_choice": "random", "screens": False},
]


def new_game(count: int, seed: int = 5, **given: Any) -> dict[str, Any]:
    names = NAMES[:count]
    options, problems = GAME.options(names, given)
    assert problems == []
    state: dict[str, Any] = GAME.setup([{"name": n} for n in names], options, Rng(seed))
    return state


def on_table(state: dict[str, Any]) -> Counter[str]:
    current = state["current"]
    if current is None:
        return Counter()
    jewels = current["offered"] if current["offered"] is not None else current["drawn"]
    return Counter(jewels)


def assert_conserved(state: dict[str, Any]) -> None:
    table = on_table(state)
    for colour in COLOURS:
        held = sum(c[colour] for c in state["collections"].values())
        assert state["pouch"][colour] + held + table[colour] == POUCH[colour], colour


def assert_no_leak(state: dict[str, Any], viewer: str | None) -> None:
    """A running game's view never shows another player's hand, any deck order, or hidden cards."""
    view = GAME.view(state, viewer)
    text = json.dumps(view)
    for key in ("hands", "decks", "decks_left", "result"):
        assert key not in view
    if viewer is None:
        assert "hand" not in view
    dealt = state["stage"] * state["hand_size"]
    for player in state["players"]:
        rest = state["decks"][player][dealt:]
        if len(rest) >= 3:
            assert json.dumps(rest)[1:-1] not in text, f"{player}'s deck order leaked"
        hand = sorted(state["hands"][player])
        mine = sorted(state["hands"][viewer]) if viewer else None
        if player != viewer and len(hand) >= 4 and hand != mine:
            assert json.dumps(hand) not in text, f"{player}'s hand leaked"
    for placement in view["placements"]:
        if placement["player"] != viewer:
            assert placement["card"] is None
    for default in view["defaults"]:  # the orders defaults gave this round: cards face down
        if default["player"] != viewer:
            assert "card" not in json.dumps(default).replace('"card": null', "")
    for event in (view["last"] or {"events": []})["events"]:
        same_round = event.get("stage") == state["stage"] and event.get("round") == state["round"]
        if same_round and event.get("player") != viewer:
            assert "card" not in json.dumps(event).replace('"card": null', "")
    if state["options"]["screens"]:
        assert "collections" not in view


def play(
    count: int,
    seed: int = 5,
    check_views: bool = True,
    idle: frozenset[str] = frozenset(),
    **given: Any,
) -> list[dict[str, Any]]:
    """A whole game by bots; every state along the way. The ``idle`` players send no orders:
    the game gives each of them its default."""
    rng = Rng(seed)
    state = new_game(count, seed, **given)
    states = [state]
    while not GAME.is_over(state):
        assert len(states) < 200
        orders = {}
        for player in GAME.owed(state):
            view = GAME.view(state, player)
            context = GAME.context(view)
            assert context == context_for(state, player)
            json.dumps(context)
            order = GAME.bot(view, rng.stream(f"bot {player} turn {state['turn']}"))
            assert GAME.validate(context, order) == [], order
            if player not in idle:
                orders[player] = order
        if check_views:
            for viewer in [None, *state["players"]]:
                assert_no_leak(state, viewer)
        before = copy.deepcopy(state)
        resolution = GAME.resolve(state, orders, rng)
        assert state == before
        state = resolution.state
        assert json.loads(json.dumps(state)) == state
        assert json.loads(json.dumps(resolution.events)) == resolution.events
        assert_conserved(state)
        states.append(state)
    return states


@pytest.mark.parametrize("count", [2, 3, 4, 5])
@pytest.mark.parametrize("given", OPTION_SETS, ids=["default", "sequential", "random"])
def test_whole_game(count: int, given: dict[str, Any]) -> None:
    states = play(count, seed=count * 11, **given)
    final = states[-1]
    rounds = 4 if count == 2 else 5
    assert GAME.owed(final) == {}
    assert final["stage"] == 3 and final["round"] == rounds
    assert [(r["stage"], r["round"]) for r in final["rounds"]] == [
        (s, r) for s in (1, 2, 3) for r in range(1, rounds + 1)
    ]
    per_round = (0 if given.get("jewel_choice") == "random" else 1) + (
        (4 if count == 2 else count) if given.get("placement") == "sequential" else 1
    )
    assert final["turn"] == 1 + 3 * rounds * per_round
    turns = [t for r in final["rounds"] for t in r["turns"]]
    assert turns == list(range(1, final["turn"]))
    for player in final["players"]:
        assert sorted(final["played"][player]) == base_deck(count)
        assert final["hands"][player] == []
    # the start player passes every round, across stages (S4)
    starts = [r["start_player"] for r in final["rounds"]]
    first = final["players"].index(starts[0])
    assert starts == [final["players"][(first + i) % count] for i in range(len(starts))]
    # awards match the collections; scores recomputed from them
    won = {p: Counter[str]() for p in final["players"]}
    for entry in final["rounds"]:
        for award in entry["awards"]:
            if award["winner"]:
                won[award["winner"]][award["jewel"]] += 1
    for player in final["players"]:
        collection = final["collections"][player]
        assert {c: n for c, n in collection.items() if n} == dict(won[player])
        assert final["result"]["scores"][player] == score(collection, count)
    totals = {p: s["total"] for p, s in final["result"]["scores"].items()}
    assert set(final["result"]["winners"]) <= {
        p for p, t in totals.items() if t == max(totals.values())
    }


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_a_player_who_sends_no_orders_has_defaults_no_one_else_sees(count: int) -> None:
    """Sequential placement: the card a default lays stays face down, for every reader but its
    player, until the round's reveal (play checks every view of every state)."""
    silent = NAMES[1]
    states = play(count, seed=count * 7, idle=frozenset({silent}), placement="sequential")
    laid = [  # the states where a card a default laid for the silent player lies face down
        s
        for s in states
        if any(
            d["player"] == silent and d["to_do"] != "return"
            for d in (s["current"] or {"defaults": []})["defaults"]
        )
    ]
    assert {s["stage"] for s in laid} == {1, 2, 3}
    assert all(
        p["default"] for r in states[-1]["rounds"] for p in r["placements"] if p["player"] == silent
    )


def test_same_seed_same_game() -> None:
    assert play(3, seed=9, check_views=False)[-1] == play(3, seed=9, check_views=False)[-1]
    assert play(3, seed=9, check_views=False)[-1] != play(3, seed=10, check_views=False)[-1]


def test_registered_entry_point() -> None:
    game = load_game("sultan")
    assert game.name == "sultan" and game.title == "Sultan"
    assert (game.min_players, game.max_players) == (2, 5)
    assert game.envelope_keys == ("id", "player", "turn")
    assert game.templates().name == "sultan"


# -- setup ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_setup(count: int) -> None:
    state = new_game(count, seed=3)
    assert json.loads(json.dumps(state)) == state
    assert state["turn"] == 1
    cushions = 2 if count == 3 else 3
    size = 8 if count == 2 else 5
    assert state["cushions"] == cushions
    assert len(state["current"]["drawn"]) == cushions + 1
    for player in state["players"]:
        deck = Rng(3).stream(f"deal {player}").shuffle(base_deck(count))
        assert state["decks"][player] == deck
        assert state["hands"][player] == sorted(deck[:size])
    pouch = [c for c in COLOURS for _ in range(POUCH[c])]
    drawn = Rng(3).stream("stage 1 round 1 draw").sample(pouch, cushions + 1)
    assert state["current"]["drawn"] == drawn
    assert state["start_player"] == Rng(3).stream("start player").choice(state["players"])
    assert GAME.owed(state) == {state["start_player"]: "return"}
    assert_conserved(state)


def test_setup_start_player_option_and_random_choice() -> None:
    state = new_game(4, start_player="carl", jewel_choice="random")
    assert state["start_player"] == "carl"
    current = state["current"]
    assert current["returned_by"] == "random" and current["offered"] is not None
    assert state["phase"] == "place"
    assert GAME.owed(state) == dict.fromkeys(NAMES[:4], "bid")
    assert GAME.owed(new_game(2, jewel_choice="random")) == {"anne": "bids", "bob": "bids"}
    two_sequential = new_game(2, jewel_choice="random", placement="sequential", start_player="bob")
    assert GAME.owed(two_sequential) == {"bob": "bid"}


def test_options() -> None:
    names = ["anne", "bob", "carl"]
    effective, problems = GAME.options(names, {})
    assert effective == {
        "placement": "sealed",
        "jewel_choice": "player",
        "screens": True,
        "start_player": None,
    }
    assert problems == []
    given = {
        "placement": "open",
        "jewel_choice": True,
        "screens": "yes",
        "start_player": "Anne",
        "speed": 3,
    }
    _, problems = GAME.options(names, given)
    assert sorted((p.code, p.path) for p in problems) == [
        ("bad-option", ("jewel_choice",)),
        ("bad-option", ("placement",)),
        ("not-a-player", ("start_player",)),
        ("unknown-option", ("speed",)),
        ("wrong-type", ("screens",)),
    ]
    _, problems = GAME.options(names, {"screens": 1})
    assert [p.code for p in problems] == ["wrong-type"]
    effective, problems = GAME.options(names, {"screens": False, "start_player": "bob"})
    assert problems == [] and effective["screens"] is False and effective["start_player"] == "bob"


# -- order model and validation ------------------------------------------------------------------
def test_order_model() -> None:
    model = GAME.order_model()
    envelope = {"id": "g", "player": "anne", "turn": 3}
    model.model_validate({**envelope, "return": "white"}, strict=True)
    model.model_validate({**envelope, "bids": [{"cushion": 1, "card": 2}] * 2}, strict=True)
    for bad in (
        {**envelope, "bid": {"cushion": "1", "card": 2}},
        {**envelope, "bid": {"cushion": 1, "card": True}},
        {**envelope, "bid": {"cushion": 1, "card": 0}},
        {**envelope, "bid": {"cushion": 1, "card": 2, "extra": 1}},
        {**envelope, "return": "purple"},
        {**envelope, "return_": "white"},
        {**envelope, "turn": "3"},
        {"player": "anne", "turn": 3},
    ):
        with pytest.raises(ValidationError):
            model.model_validate(bad, strict=True)
    schema = model.model_json_schema(by_alias=True)
    assert {"id", "player", "turn", "return", "bid", "bids"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    assert schema["properties"]["return"]["description"]


JUNK: list[Any] = [
    None,
    [],
    "bid",
    {},
    {1: 2},
    {"bid": None},
    {"bid": "x"},
    {"bid": {"card": True, "cushion": None}},
    {"bid": {"card": 5}},
    {"bid": {"card": 5, "cushion": 1, "x": 1}},
    {"bids": None},
    {"bids": [1, 2]},
    {"bids": [{"card": 1}, {}]},
    {"bids": [{"cushion": 1, "card": 1}] * 5},
    {"return": 5},
    {"return": None},
    {"return": "purple"},
    {"return": "white", "bid": {}, "bids": []},
]


@pytest.mark.parametrize("to_do", ["return", "bid", "bids", None])
def test_validate_never_crashes(to_do: str | None) -> None:
    contexts = [
        {"to_do": to_do, "hand": [1, 7, 7], "cushions": 3, "drawn": ["red"], "used_cushions": []},
        {"to_do": to_do},
        {"to_do": to_do, "hand": None, "cushions": "x", "drawn": None, "used_cushions": None},
    ]
    for context in contexts:
        for order in JUNK:
            problems = GAME.validate(context, order)
            assert all(p.code and say(p.msg, GAME) for p in problems)
            assert problems, (context, order)


def test_validate_reports_every_problem_at_once() -> None:
    context = {"to_do": "bids", "hand": [1, 3, 7], "cushions": 3, "drawn": [], "used_cushions": []}
    order = {"bids": [{"cushion": 4, "card": 7}, {"cushion": 4, "card": 7}]}
    problems = GAME.validate(context, order)
    assert sorted((p.code, p.path) for p in problems) == [
        ("card-played-too-often", ("bids", 1, "card")),
        ("no-such-cushion", ("bids", 0, "cushion")),
        ("no-such-cushion", ("bids", 1, "cushion")),
        ("same-cushion", ("bids", 1, "cushion")),
    ]


def test_resolve_refuses_an_invalid_order() -> None:
    state = new_game(4, start_player="anne")
    with pytest.raises(ValueError):
        GAME.resolve(state, {"anne": {"return": "purple"}}, Rng(1))


# -- defaults ------------------------------------------------------------------------------------
def test_sequential_two_player_default_avoids_first_cushion() -> None:
    state = new_game(2, placement="sequential", jewel_choice="random", start_player="anne")
    first = min(state["hands"]["anne"])
    state = GAME.resolve(state, {"anne": {"bid": {"cushion": 2, "card": first}}}, Rng(1)).state
    state = GAME.resolve(state, {"bob": None}, Rng(1)).state
    assert GAME.owed(state) == {"anne": "bid"}
    lowest = min(state["hands"]["anne"])
    for seed in range(40):
        after = GAME.resolve(state, {"anne": None}, Rng(seed)).state
        placement = after["current"]["placements"][2]
        assert placement == {
            "player": "anne",
            "cushion": placement["cushion"],
            "card": lowest,
            "default": True,
        }
        assert placement["cushion"] != 2


def test_two_player_default_bids_use_two_cushions() -> None:
    state = new_game(2, jewel_choice="random", start_player="anne")
    low = sorted(state["hands"]["bob"])[:2]
    for seed in range(30):
        resolution = GAME.resolve(state, {"anne": None, "bob": None}, Rng(seed))
        bobs = [p for p in resolution.state["rounds"][0]["placements"] if p["player"] == "bob"]
        assert [p["card"] for p in bobs] == low
        assert bobs[0]["cushion"] != bobs[1]["cushion"]
        assert all(p["default"] for p in bobs)


# -- views and record ----------------------------------------------------------------------------
def test_views_while_running() -> None:
    state = new_game(4, start_player="bob")
    view = GAME.view(state, "bob")
    for key in (
        "player",
        "turn",
        "to_do",
        "hand",
        "drawn",
        "offered",
        "placements",
        "stage",
        "round",
        "start_player",
        "pouch",
        "hand_counts",
        "deck_counts",
        "played",
        "rounds",
        "owed",
        "collection",
        "last",
    ):
        assert key in view, key
    assert view["to_do"] == "return" and view["offered"] is None
    assert view["hand"] == sorted(state["hands"]["bob"])
    assert view["deck_counts"] == dict.fromkeys(NAMES[:4], 10)
    assert view["hand_counts"] == dict.fromkeys(NAMES[:4], 5)
    assert GAME.view(state, "anne")["to_do"] is None
    public = GAME.view(state, None)
    assert public["player"] is None and public["to_do"] is None
    assert "hand" not in public and "collection" not in public
    gm = GAME.gm_view(state)
    assert gm["hands"] == state["hands"] and gm["decks"] == state["decks"]
    assert "collections" in gm
    with pytest.raises(ValueError):
        GAME.view(state, "zoe")


def test_screens_false_shows_every_collection() -> None:
    state = new_game(3, screens=False)
    assert GAME.view(state, "anne")["collections"] == state["collections"]
    assert "collections" in GAME.view(state, None)
    assert "collections" not in GAME.view(new_game(3), "anne")


def test_record_and_final_views() -> None:
    states = play(3, seed=4, check_views=False)
    running = states[len(states) // 2]
    record = GAME.record(running, False)
    assert set(record) == {"rounds"}
    assert record["rounds"] == running["rounds"]
    assert all(
        {
            "stage",
            "round",
            "turns",
            "start_player",
            "drawn",
            "returned",
            "returned_by",
            "offered",
            "placements",
            "awards",
        }
        <= set(r)
        for r in record["rounds"]
    )
    final = states[-1]
    complete = GAME.record(final, True)
    assert complete["decks"] == final["decks"]
    assert complete["result"] == final["result"]
    assert len(complete["rounds"]) == 15
    json.dumps(complete)
    for viewer in [None, "anne"]:
        view = GAME.view(final, viewer)
        assert view["over"] is True and view["to_do"] is None
        assert view["decks"] == final["decks"]
        assert view["collections"] == final["collections"]
        assert view["result"] == final["result"]
        assert view["standings"][0]["player"] in final["result"]["winners"]


def test_the_options_defaults_are_those_of_the_options_model() -> None:
    """rules.DEFAULTS is written out so that reading a game needs no schema; it must say what
    the model (games/sultan/options.py) says."""
    from adjudicator.games.sultan.option_models import Options
    from adjudicator.games.sultan.rules import DEFAULTS

    assert Options().model_dump() == DEFAULTS
