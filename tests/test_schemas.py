"""The JSON Schemas: order files (adjudicator schema) and the game record (docs/schemas)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from adjudicator.games.sultan import GAME
from adjudicator.schema import order_schema
from tests.helpers import run

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


@pytest.fixture(scope="module")
def record_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(RECORD_SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_records_of_demo_games_fit_the_schema(
    tmp_path: Path, players: int, record_validator: jsonschema.Draft7Validator
) -> None:
    result = run("demo", "sultan", "--players", players, "--seed", 3, "--dir", tmp_path / "d")
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
