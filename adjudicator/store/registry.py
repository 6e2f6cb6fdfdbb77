"""Installed games, found through the entry-point group ``adjudicator.games``.

The adjudicator's own games are registered there too; they are also known by name here, so that
opening a game of theirs does not scan every installed package's entry points (tests check that
both say the same). A game another package ships is found by the scan, once per process.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, cast

from adjudicator.rules.errors import UsageProblem

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from adjudicator.rules.contract import Game

GROUP = "adjudicator.games"
BUILT_IN = {
    "sultan": "adjudicator.games.sultan:GAME",
    "sultans_court": "adjudicator.games.sultans_court:GAME",
}
"""The entry points of the adjudicator's own games, as pyproject.toml registers them."""


def _registered() -> tuple[EntryPoint, ...]:
    return _scan(tuple(sys.path))


@cache
def _scan(path: tuple[str, ...]) -> tuple[EntryPoint, ...]:
    """The entry points of the group, once per search path (a package put on ``sys.path``
    later is found by the next scan)."""
    from importlib.metadata import entry_points

    return tuple(entry_points(group=GROUP))


def game_names() -> list[str]:
    return sorted({ep.name for ep in _registered()})


def installed(name: str) -> bool:
    """Whether a game named ``name`` is installed: the adjudicator's own without scanning the
    installed packages' entry points (``importlib.metadata`` and the scan took about 80 ms of a
    ``new``, more than its own work)."""
    return name in BUILT_IN or name in game_names()


def load_game(name: str) -> Game:
    """The game registered as ``name``; UsageProblem naming the installed ones otherwise."""
    if name in BUILT_IN:
        module, attribute = BUILT_IN[name].split(":")
        return cast("Game", getattr(import_module(module), attribute))
    for ep in _registered():
        if ep.name == name:
            return cast("Game", ep.load())
    installed = ", ".join(game_names()) or "none"
    raise UsageProblem(f"no game named {name!r} is installed (installed: {installed})")
