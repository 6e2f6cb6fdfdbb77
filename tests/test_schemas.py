"""The JSON Schemas: order files (adjudicator schema) and the game record (docs/schemas)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from adjudicator.demo import demo_seed
from adjudicator.games.sultan import GAME
from adjudicator.rules.schema import order_schema
from adjudicator.store.registry import game_names, load_game
from tests.helpers import DEMO_NO_SITE, Table, run

RECORD_SCHEMA = Path(__file__).parent.parent / "docs" / "schemas" / "sultan-record.schema.json"


def test_order_schema_is_draft_07_and_matches_the_contract() -> None:
    result = run("schema", "sultan")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema == order_schema(GAME)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert "$defs" not in json.dumps(schema)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    envelope = {"id": "cairo-2026", "player": "alice", "turn": 4}
    for body in (
        {"bid": {"cushion": 2, "card": 12}},
        {"bids": [{"cushion": 1, "card": 9}, {"cushion": 3, "card": 4}]},
        {"return": "white"},
    ):
        assert list(validator.iter_errors({**envelope, **body})) == []
    for bad in (
        {**envelope, "bid": {"cushion": 2, "card": "12"}},
        {**envelope, "bid": {"cushion": 2, "card": 12, "colour": "red"}},
        {**envelope, "return": "purple"},
        {**envelope, "turn": "4", "return": "white"},
        {"player": "alice", "turn": 4, "return": "white"},
    ):
        assert list(validator.iter_errors(bad)), bad


@pytest.mark.seconds
@pytest.mark.parametrize("name", game_names())
def test_every_game_has_its_schemas(name: str, tmp_path: Path) -> None:
    """``adjudicator schema NAME`` is draft-07, and the record of a demo game fits the record's
    schema in docs/schemas/ (every game documents its record with a JSON Schema: docs/record.md)."""
    result = run("schema", name)
    assert result.exit_code == 0
    assert json.loads(result.output) == order_schema(load_game(name))
    jsonschema.Draft7Validator.check_schema(json.loads(result.output))
    schema = json.loads(RECORD_SCHEMA.with_name(f"{name}-record.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    assert run(*DEMO_NO_SITE, name, "--seed", 5, "--dir", tmp_path / "d").exit_code == 0
    record = json.loads(run("log", tmp_path / "d" / "game", "--json").output)
    assert record["game"] == name and record["over"] is True
    assert [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(record)] == []


@pytest.fixture(scope="module")
def record_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(RECORD_SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


@pytest.mark.seconds
@pytest.mark.parametrize("players", [2, 3, 5])
def test_records_of_demo_games_fit_the_schema(
    tmp_path: Path, players: int, record_validator: jsonschema.Draft7Validator
) -> None:
    result = run(
        *DEMO_NO_SITE, "sultan", "--players", players, "--seed", 3, "--dir", tmp_path / "d"
    )
    assert result.exit_code == 0, result.output
    record = json.loads(run("log", tmp_path / "d" / "game", "--json").output)
    errors = [e.message for e in record_validator.iter_errors(record)]
    assert errors == []
    assert record["over"] is True
    assert len(record["rounds"]) == (12 if players == 2 else 15)
    assert sorted(record["players"]) == sorted(record["decks"])


def test_running_record_fits_the_schema_and_hides_secrets(
    tmp_path: Path, record_validator: jsonschema.Draft7Validator
) -> None:
    from tests.helpers import Table

    table = Table(tmp_path, players=4, jewel_choice="random")
    table.play_turn()
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["over"] is False
    assert len(record["rounds"]) == 1
    assert [e.message for e in record_validator.iter_errors(record)] == []


# -- At the Sultan's Court ---------------------------------------------------------------------
COURT_SCHEMA = RECORD_SCHEMA.with_name("sultans_court-record.schema.json")
COURT_SEEDS = (0, 1, 2)  # between them: pardons, trades, a demand, an empty stack
COURT_SEED = "023f9a2c7e5b1d4086a9e2f71c0b8d5e"  # a default, a draw, a skip, Kaffa searched
CITIES = ("Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan")
EVENTS = {
    "default",
    "turn_order",
    "trade",
    "travel",
    "shared",
    "kaffa_searched",
    "took",
    "demand",
    "accusation",
    "no_banishment",
    "banished",
    "pushed",
    "pardoned",
    "rotated",
    "victory",
    "draw",
    "skipped",
    "stalemate",
}
PRIVATE = {"kaffa_searched", "skipped"}
BODY = {"travel", "accuse", "kaffa", "demand", "pardon", "trades"}


@pytest.fixture(scope="module")
def court_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(COURT_SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def court_log(gamedir: Path) -> dict[str, Any]:
    result = run("log", gamedir, "--json")
    assert result.exit_code == 0, result.output
    record: dict[str, Any] = json.loads(result.output)
    return record


@pytest.fixture(scope="module")
def court_demos(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    """The records of whole demo games (bots, signed orders, the real path), by seed."""
    records = {}
    for seed in COURT_SEEDS:
        folder = tmp_path_factory.mktemp(f"court{seed}")
        result = run(*DEMO_NO_SITE, "sultans_court", "--seed", str(seed), "--dir", folder / "d")
        assert result.exit_code == 0, result.output
        records[seed] = court_log(folder / "d" / "game")
    return records


def errors_of(validator: jsonschema.Draft7Validator, record: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(record)]


def events_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [event for item in record["rounds"] for event in item["events"]]


@pytest.mark.seconds
@pytest.mark.parametrize("seed", COURT_SEEDS)
def test_complete_court_records_fit_the_schema(
    seed: int, court_demos: dict[int, dict[str, Any]], court_validator: jsonschema.Draft7Validator
) -> None:
    record = court_demos[seed]
    assert errors_of(court_validator, record) == []
    assert record["over"] is True
    assert record["seed"] == demo_seed(seed)
    deal = record["deal"]
    assert {city: len(stack) for city, stack in deal["cities"].items()} == {
        city: 4 if city == "Kaffa" else 5 for city in CITIES
    }
    assert all(card is not None for stack in deal["cities"].values() for card in stack)
    assert sorted(deal["markers"]) == list(range(1, 13))
    assert sorted(deal["vizirs"].values()) == list(range(12))
    assert all(len(hand) == 2 for hand in deal["hands"].values())
    rounds = record["rounds"]
    assert [(r["round"], r["turn"]) for r in rounds] == [(n, n) for n in range(1, len(rounds) + 1)]
    assert record["orders"] == {str(r["turn"]): r["orders"] for r in rounds}
    for item in rounds:
        assert all(o is None or set(o) == BODY for o in item["orders"].values())
        assert all(None not in stack for stack in item["after"]["cities"].values())
    result = record["result"]
    assert result["draw"] is False and result["rounds"] == len(rounds)
    last = {"type": "victory", "round": len(rounds), "player": result["winner"]}
    assert events_of(record)[-1] == last


def test_the_court_demo_games_use_every_event_type_but_the_ends_without_a_winner(
    court_demos: dict[int, dict[str, Any]],
) -> None:
    """So the schema's event shapes are exercised (if the bots change, choose other seeds)."""
    schema = json.loads(COURT_SCHEMA.read_text())
    shapes = schema["definitions"]["event"]["oneOf"]
    described = {
        schema["definitions"][s["$ref"].rpartition("/")[2]]["properties"]["type"]["const"]
        for s in shapes
    }
    assert described == EVENTS
    used = {event["type"] for record in court_demos.values() for event in events_of(record)}
    assert used == EVENTS - {"default", "draw", "stalemate"}


@pytest.mark.seconds
def test_a_court_that_ended_in_a_stalemate_fits_the_schema(
    court_demos: dict[int, dict[str, Any]], court_validator: jsonschema.Draft7Validator
) -> None:
    """Ruling P23's end as the rules write it (tests/test_court_reports.py plays it)."""
    record = copy.deepcopy(next(iter(court_demos.values())))
    last = record["rounds"][-1]
    last["events"] = [e for e in last["events"] if e["type"] != "victory"]
    last["events"].append({"type": "stalemate", "round": last["round"]})
    record["result"] = {"winner": None, "draw": True, "rounds": last["round"], "stalemate": True}
    assert errors_of(court_validator, record) == []
    record["result"]["stalemate"] = False
    assert errors_of(court_validator, record) != []


def court_round(table: Table, default: str | None = None) -> None:
    """One round: every order signed and submitted (but ``default``'s), then adjudicated."""
    status = table.status()
    paths = [
        table.signed(p, table.legal(p), f"t{status['turn']}-{p}.yaml")
        for p in status["owed"]
        if p != default
    ]
    result = run("submit", table.gamedir, *paths)
    assert result.exit_code == 0, result.output
    result = run("adjudicate", table.gamedir, *(["--default-missing"] if default else []))
    assert result.exit_code == 0, result.output


def assert_public(running: dict[str, Any], complete: dict[str, Any]) -> None:
    """``running`` holds only what C17 makes public, and agrees with the complete record."""
    assert running["over"] is False and running["result"] is None
    assert not {"seed", "orders"} & set(running)
    done = len(running["rounds"])
    assert running["rounds"] == [public_round(item) for item in complete["rounds"][:done]]
    taken = {city: 0 for city in CITIES}
    for event in events_of(running):
        assert event["type"] not in PRIVATE and "seen_by" not in event
        if event["type"] == "took" and event["card"] is not None:
            taken[event["city"]] += 1
    for city, stack in running["deal"]["cities"].items():
        shown = 0 if city == "Kaffa" else taken[city] + 1
        full = complete["deal"]["cities"][city]
        assert stack == [card if i < shown else None for i, card in enumerate(full)], city
    same = ("game", "id", "players", "options", "colours", "commitment")
    assert set(running) == {*same, "over", "deal", "rounds", "result"}
    assert {k: running[k] for k in same} == {k: complete[k] for k in same}


def public_round(item: dict[str, Any]) -> dict[str, Any]:
    after = item["after"]
    return {
        **item,
        "orders": {
            p: None if o is None else {"travel": o["travel"], "accuse": o["accuse"]}
            for p, o in item["orders"].items()
        },
        "events": [e for e in item["events"] if "seen_by" not in e],
        "after": {
            **after,
            "cities": {
                city: [c if i == 0 and city != "Kaffa" else None for i, c in enumerate(stack)]
                for city, stack in after["cities"].items()
            },
        },
    }


@pytest.mark.seconds
def test_running_court_records_fit_the_schema_and_hide_secrets(
    tmp_path: Path, court_validator: jsonschema.Draft7Validator
) -> None:
    table = Table(tmp_path, players=4, game="sultans_court", seed=COURT_SEED, max_rounds=4)
    running: list[dict[str, Any]] = []
    for default in (None, "bob", None):
        court_round(table, default)
        record = court_log(table.gamedir)
        assert errors_of(court_validator, record) == []
        assert len(record["rounds"]) == len(running) + 1
        running.append(record)
    first = running[0]
    assert first["deal"]["cities"]["Kaffa"] == [None] * 4
    assert all(set(o) == {"travel", "accuse"} for o in first["rounds"][0]["orders"].values())
    assert running[1]["rounds"][1]["orders"]["bob"] is None
    court_round(table)
    complete = court_log(table.gamedir)
    assert errors_of(court_validator, complete) == []
    assert complete["over"] is True and complete["seed"] == COURT_SEED
    assert complete["result"] == {"winner": None, "draw": True, "rounds": 4}
    types = {event["type"] for event in events_of(complete)}
    assert {"default", "draw", "skipped", "kaffa_searched"} <= types
    for record in running:
        assert_public(record, complete)


@pytest.mark.seconds
def test_the_court_schema_refuses_what_the_record_never_holds(
    court_demos: dict[int, dict[str, Any]], court_validator: jsonschema.Draft7Validator
) -> None:
    complete = court_demos[COURT_SEEDS[0]]
    running = {
        **{k: v for k, v in complete.items() if k not in ("seed", "orders")},
        "over": False,
        "result": None,
        "deal": {**complete["deal"], "cities": {**complete["deal"]["cities"], "Kaffa": [None] * 4}},
        "rounds": [public_round(item) for item in complete["rounds"][:2]],
    }
    assert errors_of(court_validator, running) == []
    bad_card = copy.deepcopy(complete)
    bad_card["deal"]["cities"]["Bukhara"][2] = "Camels"
    unknown_event = copy.deepcopy(complete)
    unknown_event["rounds"][0]["events"].append({"type": "earthquake", "round": 1})
    hidden_card = copy.deepcopy(complete)
    hidden_card["deal"]["cities"]["Tabriz"][4] = None
    seed_shown = {**running, "seed": complete["seed"]}
    kaffa_shown = copy.deepcopy(running)
    kaffa_shown["deal"]["cities"]["Kaffa"] = complete["deal"]["cities"]["Kaffa"]
    whole_order = copy.deepcopy(running)
    whole_order["rounds"][0]["orders"] = complete["rounds"][0]["orders"]
    private_event = copy.deepcopy(running)
    secret = next(e for e in events_of(complete) if e["type"] == "kaffa_searched")
    private_event["rounds"][0]["events"].append(secret)
    cases = {
        "a card that does not exist": bad_card,
        "an unknown event type": unknown_event,
        "a hidden card once over": hidden_card,
        "the seed while running": seed_shown,
        "Kaffa's cards while running": kaffa_shown,
        "whole orders while running": whole_order,
        "a private event while running": private_event,
    }
    for what, bad in cases.items():
        assert errors_of(court_validator, bad) != [], what
