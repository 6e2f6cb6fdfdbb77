"""A game's pictures come from the module its game object names in ``pictures``: the built-in
games name theirs in the presentation layer, a game of another package names its own."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from adjudicator.present import pictures_sultan, pictures_sultans_court, site
from adjudicator.present.pictures import drawer
from adjudicator.store.registry import load_game
from tests.helpers import DEMO_NO_SITE, run


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


PICTURES = {
    "palace": pictures_sultan.palace,
    "collection": pictures_sultan.collection,
    "scores": pictures_sultan.scores,
}


def _forget_pictures() -> None:
    for picture in PICTURES.values():
        picture.from_text.cache_clear()  # type: ignore[attr-defined]


@pytest.mark.seconds
def test_a_site_draws_each_picture_once_for_what_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(*DEMO_NO_SITE, "sultan", "--players", "3", "--dir", tmp_path / "demo")
    assert result.exit_code == 0, result.output
    gamedir = tmp_path / "demo" / "game"
    _forget_pictures()
    finished = []
    real = pictures_sultan._finish
    monkeypatch.setattr(pictures_sultan, "_finish", lambda image: finished.append(1) or real(image))
    files = site.build(gamedir)
    shown = set()
    for path in gamedir.glob("turns/*/views/*.json"):
        view = json.loads(path.read_text(encoding="utf-8"))["view"]
        drawn = pictures_sultan.draw({"view": view}, "en")
        for name in drawn:
            keys = PICTURES[name].keys  # type: ignore[attr-defined]
            part = {key: view[key] for key in keys if key in view}
            shown.add((name, json.dumps(part)))
    pages = [name for name in files if name.endswith(".html") and "turn-" in name]
    assert len(finished) == len(shown) < len(pages)
    finished.clear()
    assert site.build(gamedir) == files  # the second time, every picture is one kept
    assert not finished


def test_a_picture_is_drawn_from_its_entries_alone() -> None:
    _forget_pictures()
    mine = {"collection": {"red": 2}, "players": ["a", "b"]}
    assert pictures_sultan.collection({**mine, "hand": [1, 2, 3]}) == pictures_sultan.collection(
        mine
    )
    other = {"collection": {"red": 1}, "players": ["a", "b"]}
    assert pictures_sultan.collection(other) != pictures_sultan.collection(mine)


@pytest.mark.seconds
@pytest.mark.parametrize("name", ["court", "places"])
def test_the_courts_pictures_are_drawn_from_their_entries_alone(tmp_path: Path, name: str) -> None:
    """Each picture of At the Sultan's Court, drawn from the entries it names, is the picture
    drawn from the whole view, for every view of a game: what it reads is what it is kept by."""
    result = run(*DEMO_NO_SITE, "sultans_court", "--seed", "2", "--dir", tmp_path / "demo")
    assert result.exit_code == 0, result.output
    picture = getattr(pictures_sultans_court, name)
    picture.from_text.cache_clear()
    views = [
        json.loads(path.read_text(encoding="utf-8"))["view"]
        for path in sorted((tmp_path / "demo" / "game").glob("turns/*/views/*.json"))
    ]
    assert len(views) > 20
    for view in views:
        assert picture(view) == picture.__wrapped__(view)
    drawn = {json.dumps({k: v[k] for k in picture.keys if k in v}, sort_keys=True) for v in views}
    assert picture.from_text.cache_info().misses == len(drawn) < len(views)
