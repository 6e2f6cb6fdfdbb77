"""A game's pictures come from the module its game object names in ``pictures``: the built-in
games name theirs in the presentation layer, a game of another package names its own."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from adjudicator.present import pictures_sultan, pictures_sultans_court
from adjudicator.present.pictures import drawer
from adjudicator.store.registry import load_game


def test_the_built_in_games_name_their_pictures() -> None:
    assert drawer(load_game("sultan")) is pictures_sultan.draw
    assert drawer(load_game("sultans_court")) is pictures_sultans_court.draw


class Plain:
    name = "plain"


class Pictured:
    name = "pictured"
    pictures = "pictured_game_pictures"


@pytest.fixture
def module() -> Iterator[types.ModuleType]:
    """A picture module of another package, importable by its name."""
    made = types.ModuleType("pictured_game_pictures")

    def draw(doc: Mapping[str, Any], lang: str) -> dict[str, bytes]:
        return {"turn": f"{doc['turn']} {lang}".encode()}

    made.draw = draw  # type: ignore[attr-defined]
    sys.modules[made.__name__] = made
    yield made
    del sys.modules[made.__name__]


def test_a_game_without_pictures_has_none() -> None:
    assert drawer(Plain()) is None  # type: ignore[arg-type]


def test_another_packages_game_draws_with_its_own_module(module: types.ModuleType) -> None:
    draw = drawer(Pictured())  # type: ignore[arg-type]
    assert draw is not None
    assert draw({"turn": 3}, "de") == {"turn": b"3 de"}


def test_a_pictures_module_that_is_not_there_is_an_error() -> None:
    class Missing:
        name = "missing"
        pictures = "no_such_pictures_module"

    with pytest.raises(ModuleNotFoundError):
        drawer(Missing())  # type: ignore[arg-type]
