"""A game's plain check that an order file or a form's context fits its schema (``order_fits``,
``context_fits``): it lets a valid order be judged without loading pydantic, so it may say
"fits" only where the schema finds nothing, and it should say so for the orders and contexts
real games make (or the schema is loaded after all)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from adjudicator.rules.contract import Game
from adjudicator.rules.problems import schema_problems
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game
from adjudicator.testing import (
    ContractBroken,
    check_player_fits,
    entries,
    leaves,
    player_names,
    replaced,
)

ODD = [
    None,
    True,
    False,
    0,
    1,
    -1,
    13,
    1.5,
    "",
    "x",
    "red",
    "Bukhara",
    [],
    ["x"],
    [1],
    {},
    {"a": 1},
]
"""Values of every type a YAML or JSON file can hold, put in place of each value in turn."""


def made(game: Game, players: int, seeds: range) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each (context, whole order file) the game's bots make over whole games."""
    names = player_names(players)
    for seed in seeds:
        options, _ = game.options(names, {})
        rng = Rng(seed)
        state = game.setup(entries(names), options, rng)
        while not game.is_over(state):
            orders = {}
            for player in game.owed(state):
                view = game.view(state, player)
                order = game.bot(view, rng.stream(f"bot {player} turn {state['turn']}"))
                whole = {"id": "g", "player": player, "turn": state["turn"], **order}
                yield game.context(view), whole
                orders[player] = order
            state = game.resolve(state, orders, rng).state


def changed(data: dict[str, Any]) -> Iterator[Any]:
    """``data`` with one thing changed: each value replaced by each of ``ODD``, each key of
    each mapping left out, an unknown key added to each mapping; and ``data`` as each of ``ODD``."""
    yield from ODD
    for path, _ in leaves(data):
        for value in ODD:
            yield replaced(data, path, value)
    for path, value in [((), data), *leaves(data)]:
        if isinstance(value, dict):
            for key in value:
                less = copy.deepcopy(data)
                place: Any = less
                for step in path:
                    place = place[step]
                del place[key]
                yield less
            yield replaced(data, path, {**value, "unknown": 1}) if path else {**data, "unknown": 1}


SAMPLES = {
    "sultan": [(2, range(1, 2)), (5, range(1, 2))],
    "sultans_court": [(4, range(1, 2))],
}


@pytest.mark.seconds
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_plain_check_says_fits_only_where_the_schema_finds_nothing(name: str) -> None:
    game = load_game(name)
    fitting = {"order_fits": 0, "context_fits": 0}
    wrong = {"order_fits": 0, "context_fits": 0}
    seen: set[str] = set()
    for players, seeds in SAMPLES[name]:
        for context, order in made(game, players, seeds):
            for kind, model, data in (
                ("context_fits", game.context_model(), context),
                ("order_fits", game.order_model(), order),
            ):
                fits = getattr(game, kind)
                assert fits(data), f"{kind}: a {name} bot's {data} does not plainly fit"
                assert schema_problems(model, data) == []
                fitting[kind] += 1
                key = repr((kind, data))
                if key in seen:
                    continue
                seen.add(key)
                for other in changed(data):
                    if fits(copy.deepcopy(other)):
                        assert schema_problems(model, other) == [], (kind, other)
                    else:
                        wrong[kind] += 1
    # whole games' worth of files checked, and many changes turned away to ask the schema
    assert min(fitting.values()) > 40 and min(wrong.values()) > 1000, (fitting, wrong)


def test_a_forms_carried_envelope_is_said_to_fit_only_where_the_schema_finds_nothing() -> None:
    from adjudicator.engine.file_models import Carried
    from adjudicator.engine.forms import _envelope_fits

    carried = {"game": "sultan", "id": "g", "player": "ann", "turn": 2, "context": {"a": 1}}
    turned_away = 0
    for data in [carried, {**carried, "lang": "nl"}]:
        assert _envelope_fits(data) and schema_problems(Carried, data) == []
        for other in changed(data):
            if _envelope_fits(copy.deepcopy(other)):
                assert schema_problems(Carried, other) == [], other
            else:
                turned_away += 1
    assert turned_away > 100


class _Says:
    """A game whose ``player_fits`` says what it is told to, whatever the keys."""

    def __init__(self, game: Game, fits: bool) -> None:
        self.game, self.fits = game, fits

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def player_fits(self, own: Any) -> bool:
        del own
        return self.fits


@pytest.mark.parametrize("name", ["sultan", "sultans_court"])
def test_the_contract_test_holds_a_games_player_fits_to_its_schema(name: str) -> None:
    """The games' own plain checks of a player entry keep the contract; one that says every
    entry fits is caught (a colour given as a number, a key the game has not)."""
    game = load_game(name)
    check_player_fits(game)
    check_player_fits(_Says(game, fits=False))  # type: ignore[arg-type]
    with pytest.raises(ContractBroken, match="player_fits"):
        check_player_fits(_Says(game, fits=True))  # type: ignore[arg-type]
