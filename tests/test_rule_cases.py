"""Rule cases as data: every ``tests/cases/<game>/*.yaml`` is run by this one harness.

A case names its ``game`` (found through the registry, as the commands find it), a ``seed``, the
state ``before``, the ``orders`` by player (null: missing, the game's default applies), and what
must follow:

- ``problems``: ``{player: [codes]}``: ``validate`` of that player's order against the context of
  their view gives exactly these codes (every other order must be clean);
- ``after``: the listed top-level keys of the new state, each compared whole;
- ``events``: each listed event appears among the events (every listed key equal);
- ``views``: ``{reader: {key: value}}`` compared on the new state's views (reader: a player,
  ``public`` or ``gm``).

Without ``after``, ``events`` and ``views`` the case is about validation only and nothing resolves.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.rules.rng import Rng
from adjudicator.store.registry import game_names, load_game

CASES = sorted(Path(__file__).parent.glob("cases/*/*.yaml"))
KNOWN = {"description", "source", "game", "seed", "before", "orders"}
CHECKS = {"after", "events", "problems", "views"}


def subset(expected: Any, actual: Any) -> bool:
    """Every key of the expected event is in the actual one with an equal value."""
    return isinstance(actual, dict) and all(
        key in actual and actual[key] == value for key, value in expected.items()
    )


def view_of(game: Any, state: dict[str, Any], reader: str) -> dict[str, Any]:
    if reader == "gm":
        return dict(game.gm_view(state))
    return dict(game.view(state, None if reader == "public" else reader))


@pytest.mark.seconds
@pytest.mark.parametrize("name", game_names())
def test_every_game_has_rule_cases(name: str) -> None:
    folder = Path(__file__).parent / "cases" / name
    assert sorted(folder.glob("*.yaml")), f"no rule cases in {folder}"
    assert {
        yaml.safe_load(p.read_text(encoding="utf-8"))["game"] for p in CASES if p.parent == folder
    } == {name}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_rule_case(path: Path) -> None:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    unknown = set(case) - KNOWN - CHECKS
    assert not unknown, f"unknown case keys: {sorted(unknown)}"
    assert case.get("description") and case.get("source"), (
        "a case says what it shows and where from"
    )
    assert set(case) & CHECKS, "a case checks something"
    game = load_game(case["game"])
    before = case["before"]
    assert json.loads(json.dumps(before)) == before
    orders: dict[str, Any] = case.get("orders") or {}
    wanted: dict[str, list[str]] = case.get("problems") or {}
    for player, order in orders.items():
        if order is None:
            continue
        context = game.context(game.view(before, player))
        codes = [problem.code for problem in game.validate(context, order)]
        assert sorted(codes) == sorted(wanted.get(player, [])), f"{player}: {codes}"
    if not set(case) & {"after", "events", "views"}:
        return
    untouched = copy.deepcopy(before)
    resolution = game.resolve(before, orders, Rng(case["seed"]))
    assert before == untouched, "resolve changed the state it was given"
    state = resolution.state
    assert json.loads(json.dumps(state)) == state
    assert state["turn"] == before["turn"] + 1
    for key, value in (case.get("after") or {}).items():
        assert key in state, f"the state has no key {key!r}"
        assert state[key] == value, f"after: {key}"
    for event in case.get("events") or []:
        assert any(subset(event, got) for got in resolution.events), (
            f"no event matches {event}; events: {resolution.events}"
        )
    for reader, expected in (case.get("views") or {}).items():
        view = view_of(game, state, reader)
        for key, value in expected.items():
            assert view.get(key, "<absent>") == value, f"{reader}'s view: {key}"
