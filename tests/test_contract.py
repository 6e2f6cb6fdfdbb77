"""The contract test every game's author runs (:mod:`adjudicator.testing`), run here for every
registered game, and shown to catch what it is there to catch.

Game-specific invariants (cards and jewels conserved, scores recomputed) are in
``tests/invariants.py``; the contract test checks them after every step.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator import testing
from adjudicator.rules.contract import Game, Order, Problem, Resolution, State, View
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import game_names, load_game
from tests.invariants import INVARIANTS


def registered() -> list[tuple[str, Game]]:
    return [(name, load_game(name)) for name in game_names()]


@pytest.mark.seconds
@pytest.mark.parametrize(("name", "game"), registered())
def test_the_game_keeps_the_contract(name: str, game: Game) -> None:
    testing.check_rules(game, invariant=INVARIANTS.get(name))


@pytest.mark.slow  # each built-in game's demo, archive and verify have tests of their own too
@pytest.mark.parametrize(("name", "game"), registered())
def test_a_whole_game_through_the_engine_archives_and_verifies(
    name: str, game: Game, tmp_path: Path
) -> None:
    gamedir = testing.check_through_the_engine(game, tmp_path)
    assert (tmp_path / "archive.json").is_file() and (tmp_path / "public.archive.json").is_file()
    assert json.loads((gamedir / "game.json").read_text())["game"] == name


@pytest.mark.slow  # bot games at random; the contract test above plays some, orders missing too
@pytest.mark.parametrize(("name", "game"), registered())
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_seeds_and_missing_orders(name: str, game: Game, data: st.DataObject) -> None:
    count = data.draw(st.integers(game.min_players, game.max_players), label="players")
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    names = st.sampled_from(testing.player_names(game.max_players))
    absent = data.draw(st.frozensets(st.tuples(st.integers(1, 60), names)))
    testing.play(
        game,
        count,
        seed,
        missing=lambda turn, player: (turn, player) in absent,
        probe=False,
        invariant=INVARIANTS.get(name),
    )


def test_importing_the_contract_test_loads_nothing_heavy() -> None:
    """A game's tests import it at collection: it loads no Jinja, click, pydantic or YAML (the
    checks import what they use when they run), and nothing in the adjudicator imports it."""
    heavy = {"jinja2", "click", "pydantic", "yaml", "PIL", "cryptography", "adjudicator.engine"}
    code = (
        "import sys, adjudicator.testing; "
        f"print(sorted(m for m in sys.modules if m in {sorted(heavy)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


# -- what the contract test catches ----------------------------------------------------------------
COURT = load_game("sultans_court")


class Changed:
    """At the Sultan's Court with one part changed (the tests below say which)."""

    def __init__(self, **parts: Any) -> None:
        self.parts = parts

    def __getattr__(self, name: str) -> Any:
        return self.parts.get(name, getattr(COURT, name))


def broken(**parts: Any) -> Game:
    game: Game = Changed(**parts)  # type: ignore[assignment]
    return game


def caught(game: Game) -> str:
    with pytest.raises(testing.ContractBroken) as raised:
        testing.play(game, 4, seed=1)
    return str(raised.value)


def test_it_passes_the_game_as_it_is() -> None:
    state = testing.play(broken(), 4, seed=1)
    assert COURT.is_over(state)


def test_a_view_without_the_keys_every_view_holds() -> None:
    def view(state: State, player: str | None) -> View:
        shown = COURT.view(state, player)
        del shown["over"]
        return shown

    assert "the alice view has no ['over']" in caught(broken(view=view))


def test_a_view_that_knows_the_wrong_turn() -> None:
    def gm_view(state: State) -> View:
        return {**COURT.gm_view(state), "turn": 0}

    assert "the gm view: turn 0, not 1" in caught(broken(gm_view=gm_view))


def test_spectators_who_see_a_hand() -> None:
    def view(state: State, player: str | None) -> View:
        shown = COURT.view(state, player)
        if player is None:
            shown["secret"] = state["cities"]
        return shown

    assert "the spectators see .secret, which alice does not" in caught(broken(view=view))


def test_resolve_that_changes_the_state_it_was_given() -> None:
    def resolve(state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        done = COURT.resolve(copy.deepcopy(state), orders, rng)
        state["round"] = -1
        return done

    assert "resolve changed its input, at .round (1 / -1)" in caught(broken(resolve=resolve))


def test_a_default_order_not_announced() -> None:
    def resolve(state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        done = COURT.resolve(state, orders, rng)
        done.events = [e for e in done.events if e["type"] != "default"]
        return done

    with pytest.raises(testing.ContractBroken, match="alice's default order is not announced"):
        testing.play(broken(resolve=resolve), 4, seed=1, missing=lambda turn, player: True)


def test_state_that_does_not_come_back_from_json() -> None:
    def resolve(state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        done = COURT.resolve(state, orders, rng)
        done.state["markers"] = tuple(done.state["markers"])
        return done

    assert "the state resolve made changes through JSON, at .markers" in caught(
        broken(resolve=resolve)
    )


def test_a_problem_without_words() -> None:
    def validate(context: Mapping[str, Any], order: Order) -> list[Problem]:
        problems = COURT.validate(context, order)
        return [Problem("court-unheard-of", p.path) for p in problems]

    assert "the code 'court-unheard-of' has no words" in caught(broken(validate=validate))


@pytest.mark.seconds
def test_wrong_orders_are_tried_and_counted_refused() -> None:
    """Each bot order changed one value at a time: what the order model or validate refuses
    is counted; a validate that refuses nothing leaves only the order model's refusals."""
    checked, lenient = testing.Seen(), testing.Seen()
    testing.play(broken(), 4, seed=1, seen=checked)
    testing.play(broken(validate=lambda context, order: []), 4, seed=1, seen=lenient)
    assert checked.tried == lenient.tried > 0
    assert lenient.refused < checked.refused


def test_a_wrong_order_changes_one_value() -> None:
    order = {"travel": {"big": "Tabriz"}, "accuse": 3, "stay": True, "trades": ["Gold"]}
    wrong = list(testing.wrong_orders(order))
    assert wrong[0] == {**order, "travel": {"big": "Tabriz-unheard-of"}}
    assert {**order, "accuse": 1003} in wrong and {**order, "accuse": -4} in wrong
    assert {**order, "stay": False} in wrong and {**order, "trades": []} in wrong
    assert wrong[-1] == {}


def test_a_view_that_shows_what_another_world_hides() -> None:
    """With ``other_world``, a view that shows the next card of a city stack is caught."""

    def other_world(state: State, reader: str | None) -> State:
        for stack in state["cities"].values():
            stack[1:] = stack[1:][::-1]  # every card below the top, the other way round
        return state

    def view(state: State, player: str | None) -> View:
        shown = COURT.view(state, player)
        shown["below"] = {c: s[1:2] for c, s in state["cities"].items()}
        return shown

    testing.play(broken(), 4, seed=1, other_world=other_world)
    with pytest.raises(testing.ContractBroken, match=r"the alice view shows what it may not see"):
        testing.play(broken(view=view), 4, seed=1, other_world=other_world)


def test_a_game_that_does_not_end_in_time() -> None:
    with pytest.raises(testing.ContractBroken, match="4 players, seed 1: no end in 3 turns"):
        testing.play(broken(), 4, seed=1, probe=False, max_turns=3)


def test_a_game_that_words_one_of_the_adjudicators_codes(tmp_path: Path) -> None:
    """A game's texts may give its own words to the codes game-words.yaml names (the Court's
    turn is a round), and to no other code of the adjudicator's."""
    folder = tmp_path / "templates"
    shutil.copytree(Path(str(COURT.templates())), folder)
    game = broken(templates=lambda: folder)
    testing.check_templates(game)
    (folder / "texts" / "mine.yaml").write_text('unknown-key: "what is {key}?"\n')
    with pytest.raises(
        testing.ContractBroken, match=r"the adjudicator's own codes \['unknown-key'\]"
    ):
        testing.check_templates(game)


def test_a_changed_copy_of_a_games_templates_gets_an_environment_of_its_own(
    tmp_path: Path,
) -> None:
    """Environments are kept per process: one kept for the game's own templates served a copy
    of them under the game's name too (and the copy's environment the game's own pages of
    every later test in the process, which then missed the templates the copy lacked)."""
    from adjudicator.present.reports import report_environment

    real = report_environment(COURT)
    folder = tmp_path / "templates"
    shutil.copytree(Path(str(COURT.templates())), folder)
    copy = report_environment(broken(templates=lambda: folder))
    assert copy is not real
    assert copy.loader.loaders[0].searchpath == [str(folder)]  # type: ignore[union-attr]
    assert report_environment(COURT) is real


def test_a_game_that_ships_no_rules_summary_in_english(tmp_path: Path) -> None:
    """A game ships its rules summary for players beside its templates (docs/games.md): in
    English at least, and in other files only for a language the adjudicator speaks."""
    folder = tmp_path / "templates"
    shutil.copytree(Path(str(COURT.templates())), folder)
    game = broken(templates=lambda: folder)
    testing.check_templates(game)
    (folder / "rules" / "es.md").write_text("# Reglas\n", encoding="utf-8")
    with pytest.raises(testing.ContractBroken, match=r"rules/es.md: not <lang>.md"):
        testing.check_templates(game)
    (folder / "rules" / "es.md").unlink()
    (folder / "rules" / "en.md").write_text("\n", encoding="utf-8")
    with pytest.raises(testing.ContractBroken, match=r"rules/en.md is empty"):
        testing.check_templates(game)
    (folder / "rules" / "en.md").unlink()
    with pytest.raises(testing.ContractBroken, match=r"no rules summary rules/en.md"):
        testing.check_templates(game)
