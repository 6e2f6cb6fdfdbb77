"""At the Sultan's Court: rule cases (until the game is registered), whole bot games, leaks."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.games.sultans_court import GAME
from adjudicator.games.sultans_court.board import CITIES, ISLAND, KAFFA
from adjudicator.rules.rng import Rng
from tests.invariants import court_invariants as check_invariants

CASES = sorted(Path(__file__).parent.glob("cases/sultans_court/*.yaml"))
NAMES = ["alice", "bob", "carol", "dave"]


def subset(expected: dict[str, Any], actual: Any) -> bool:
    return isinstance(actual, dict) and all(
        key in actual and actual[key] == value for key, value in expected.items()
    )


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    """The same format and checks as tests/test_rule_cases.py, against this game directly."""
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert case["game"] == "sultans_court"
    assert case.get("description") and case.get("source")
    before = case["before"]
    orders: dict[str, Any] = case.get("orders") or {}
    wanted: dict[str, list[str]] = case.get("problems") or {}
    for player, order in orders.items():
        if order is None:
            continue
        context = GAME.context(GAME.view(before, player))
        codes = [problem.code for problem in GAME.validate(context, order)]
        assert sorted(codes) == sorted(wanted.get(player, [])), f"{player}: {codes}"
    if not set(case) & {"after", "events", "views"}:
        return
    untouched = copy.deepcopy(before)
    resolution = GAME.resolve(before, orders, Rng(case["seed"]))
    assert before == untouched, "resolve changed the state it was given"
    state = resolution.state
    assert json.loads(json.dumps(state)) == state
    assert state["turn"] == before["turn"] + 1
    for key, value in (case.get("after") or {}).items():
        assert state[key] == value, f"after: {key}"
    for event in case.get("events") or []:
        assert any(subset(event, got) for got in resolution.events), (
            f"no event matches {event}; events: {resolution.events}"
        )
    for reader, expected in (case.get("views") or {}).items():
        if reader == "gm":
            view = GAME.gm_view(state)
        else:
            view = GAME.view(state, None if reader == "public" else reader)
        for key, value in expected.items():
            assert view.get(key, "<absent>") == value, f"{reader}'s view: {key}"


# -- whole games ------------------------------------------------------------------------------
def new_game(seed: int, **given: Any) -> dict[str, Any]:
    options, problems = GAME.options(NAMES, given)
    assert problems == []
    state: dict[str, Any] = GAME.setup([{"name": n} for n in NAMES], options, Rng(seed))
    return state


def assert_no_leak(state: dict[str, Any], viewer: str | None) -> None:
    """A running game's view: no stack below its top, no Kaffa card, no other's instructions."""
    view = GAME.view(state, viewer)
    assert "stacks" not in view
    text = json.dumps({k: v for k, v in view.items() if k != "last"})
    assert "kaffa_searched" not in text
    for city, info in view["cities"].items():
        assert info["size"] == len(state["cities"][city])
        if city == KAFFA:
            assert info["top"] is None
    last = view["last"]
    if last is None:
        return
    for event in last["events"]:
        assert event.get("seen_by", viewer) == viewer, event
    for player, order in last["orders"].items():
        if order is not None and player != viewer:
            assert set(order) == {"travel", "accuse"}


def play(seed: int, **given: Any) -> tuple[dict[str, Any], Counter[str]]:
    state = new_game(seed, **given)
    rng = Rng(seed)
    seen = Counter[str]()
    while not GAME.is_over(state):
        assert state["turn"] == state["round"] <= 400
        check_invariants(state)
        orders: dict[str, Any] = {}
        for player in GAME.owed(state):
            view = GAME.view(state, player)
            assert_no_leak(state, player)
            context = json.loads(json.dumps(GAME.context(view)))
            order = GAME.bot(view, rng.stream(f"bot {player} turn {state['turn']}"))
            assert GAME.validate(context, order) == [], order
            orders[player] = GAME.normalise(order)
        before = copy.deepcopy(state)
        resolution = GAME.resolve(state, orders, rng)
        assert state == before
        state = resolution.state
        assert json.loads(json.dumps(state)) == state
        for event in resolution.events:
            seen[event["type"]] += 1
            if event["type"] == "pushed" and event["to"] == ISLAND:
                seen["island"] += 1
    check_invariants(state)
    assert GAME.owed(state) == {}
    json.dumps(GAME.record(state, True))
    return state, seen


@pytest.mark.seconds
def test_bot_games_end_and_reach_every_phase() -> None:
    totals = Counter[str]()
    for seed in range(30):
        state, seen = play(seed, max_rounds=60)
        result = state["result"]
        assert result is not None and (result["winner"] is not None) != result["draw"]
        totals.update(seen)
        totals["games"] += 1
    for kind in ("banished", "pardoned", "island", "victory", "trade", "demand", "took"):
        assert totals[kind] > 0, (kind, totals)
    assert totals["victory"] >= 20, totals


def test_same_seed_same_game() -> None:
    assert play(7)[0] == play(7)[0]


def test_setup_deal() -> None:
    state = new_game(3)
    check_invariants(state)
    assert sorted(state["markers"]) == list(range(1, 13))
    assert sorted(state["vizirs"].values()) == list(range(12))
    assert [len(state["cities"][c]) for c in CITIES] == [5, 5, 5, 4, 5, 5, 5]
    assert all(len(h) == 2 for h in state["hands"].values())
    assert state["colours"] == dict(zip(NAMES, ("red", "yellow", "green", "blue"), strict=True))
    assert json.loads(json.dumps(state)) == state


def test_colours_given_and_assigned() -> None:
    options, _ = GAME.options(NAMES, {})
    players = [
        {"name": "alice", "colour": "blue"},
        {"name": "bob"},
        {"name": "carol"},
        {"name": "dave", "colour": "red"},
    ]
    state = GAME.setup(players, options, Rng(1))
    assert state["colours"] == {"alice": "blue", "bob": "yellow", "carol": "green", "dave": "red"}
    with pytest.raises(ValueError, match=r"shared-colour .*'alice'"):
        GAME.setup([{"name": n, "colour": "red"} for n in NAMES], options, Rng(1))
    with pytest.raises(ValueError, match="bad-colour"):
        GAME.setup(
            [{"name": "alice", "colour": "pink"}, *[{"name": n} for n in NAMES[1:]]],
            options,
            Rng(1),
        )


def test_options() -> None:
    options, problems = GAME.options(NAMES, {})
    assert options == {
        "first_round_all_travel": True,
        "banish_tie": "lower_seat_goes",
        "max_rounds": None,
    }
    assert problems == []
    _, problems = GAME.options(
        NAMES, {"first_round_all_travel": "yes", "banish_tie": "coin", "max_rounds": 0, "x": 1}
    )
    assert [p.path for p in problems] == [
        ("first_round_all_travel",),
        ("banish_tie",),
        ("max_rounds",),
        ("x",),
    ]
    _, problems = GAME.options(NAMES, {"max_rounds": True})
    assert [p.code for p in problems] == ["wrong-type"]


def test_order_model_and_normalise() -> None:
    model = GAME.order_model()
    order = {
        "id": "court-7",
        "player": "carol",
        "turn": 3,
        "travel": {"fat": "k", "small": "STAY", "big": 7},
        "accuse": "bob.big",
        "kaffa": ["ships", "Canons"],
        "demand": [{"from": "dave", "card": "ships"}],
        "pardon": [{"vizir": "carol.small", "city": "t"}],
        "trades": [{"with": "bob", "give": "gold", "get": "Horses"}],
    }
    model.model_validate(order, strict=True)
    assert GAME.normalise(order) == {
        "travel": {"fat": "Kaffa", "small": "stay", "big": 7},
        "accuse": "bob.big",
        "kaffa": ["Ships", "Cannons"],
        "demand": [{"from": "dave", "card": "Ships"}],
        "pardon": [{"vizir": "small", "city": "Tabriz"}],
        "trades": [{"with": "bob", "give": "Gold", "get": "Horses"}],
    }
    assert GAME.normalise(GAME.normalise(order)) == GAME.normalise(order)
    assert GAME.normalise({"accuse": "none"})["accuse"] is None
    with pytest.raises(ValueError):
        model.model_validate({**order, "travel": {"medium": 3}}, strict=True)
    with pytest.raises(ValueError):
        model.model_validate({**order, "travel": {"fat": True}}, strict=True)
    schema = model.model_json_schema(by_alias=True)
    assert "from" in json.dumps(schema) and "with" in json.dumps(schema)


def test_views_hide_and_reveal() -> None:
    state = new_game(11)
    rng = Rng(11)
    kaffa_seen: dict[str, list[str]] = {}
    for _ in range(12):
        if GAME.is_over(state):
            break
        orders = {
            p: GAME.bot(GAME.view(state, p), rng.stream(f"bot {p} {state['turn']}"))
            for p in GAME.owed(state)
        }
        resolution = GAME.resolve(state, orders, rng)
        state = resolution.state
        for event in resolution.events:
            if "seen_by" not in event and not state["over"]:
                for viewer in (None, *NAMES):
                    assert event in GAME.view(state, viewer)["last"]["events"], (viewer, event)
            if event["type"] == "kaffa_searched" and not state["over"]:
                kaffa_seen[event["player"]] = event["cards"]
                for viewer in NAMES:
                    shown = event in GAME.view(state, viewer)["last"]["events"]
                    assert shown == (viewer == event["player"])
        for viewer in (None, *NAMES):
            if state["over"]:
                assert GAME.view(state, viewer)["stacks"] == state["cities"]
            else:
                assert_no_leak(state, viewer)
        for player in NAMES:  # each player's view holds their order of the round just played
            assert GAME.view(state, player)["my_order"] == orders.get(player)
        record = GAME.record(state, GAME.is_over(state))
        if not GAME.is_over(state):
            assert record["deal"]["cities"]["Kaffa"] == [None] * 4
            assert all(
                set(o) == {"travel", "accuse"}
                for r in record["rounds"]
                for o in r["orders"].values()
                if o is not None
            )
            assert "kaffa_searched" not in json.dumps(record)
            # each round's board after it: every city's face-up top card, nothing below it,
            # nothing of Kaffa
            whole = GAME.record(state, True)["rounds"]
            for shown, full in zip(record["rounds"], whole, strict=True):
                for city, stack in full["after"]["cities"].items():
                    top = [stack[0]] if stack and city != KAFFA else [None] * bool(stack)
                    assert shown["after"]["cities"][city] == top + [None] * (len(stack) - 1)
    assert "stacks" in GAME.gm_view(state)
    assert kaffa_seen, "some bot searched Kaffa"


def test_reasons_are_messages_worded_by_the_texts() -> None:
    """An event's reason is stored as a message (``{"code", "params"}``); a count of one power
    type is said in the singular."""
    from adjudicator.present.words import said

    def reason(count: int) -> dict[str, Any]:
        return {"code": "too-few-types", "params": {"player": "bob", "count": count}}

    assert said(reason(1), GAME) == "bob holds 1 different power type, fewer than 4"
    assert said(reason(3), GAME) == "bob holds 3 different power types, fewer than 4"
    place = {"code": "place-dungeon", "params": {"dungeon": 2}}
    accused = {"code": "accused-not-at-court", "params": {"vizir": "bob.big", "place": place}}
    assert said(accused, GAME) == "bob.big is in dungeon 2, not at court or in a city"


@pytest.mark.parametrize("key", ["kaffa", "demand", "pardon", "trades"])
def test_a_list_left_out_or_empty_is_fine_and_any_other_value_is_not_a_list(key: str) -> None:
    """``validate`` tells an empty or left-out list at once: a value that is no list is still
    refused, however falsy (0, "", {}, false)."""
    context = GAME.context(GAME.view(new_game(3, first_round_all_travel=False), "alice"))
    travel = {"travel": {kind: "stay" for kind in context["vizirs"]}}
    assert GAME.validate(context, travel) == []
    assert GAME.validate(context, {**travel, key: []}) == []
    assert GAME.validate(context, {**travel, key: None}) == []
    for value in (0, "", {}, False, (), "Gold"):
        codes = [problem.code for problem in GAME.validate(context, {**travel, key: value})]
        assert codes == ["not-a-list"], (key, value)


def test_a_destination_is_read_in_any_case_with_spaces_or_by_its_initial() -> None:
    context = GAME.context(GAME.view(new_game(3, first_round_all_travel=False), "alice"))
    kind = next(iter(context["vizirs"]))
    others = {k: "stay" for k in context["vizirs"] if k != kind}
    for written in ("Kaffa", "kaffa", " KAFFA ", "k", "K", "Stay", " stay", "STAY"):
        assert GAME.validate(context, {"travel": {kind: written, **others}}) == [], written
    codes = [p.code for p in GAME.validate(context, {"travel": {kind: "Kaffa ?", **others}})]
    assert codes == ["bad-destination"]
