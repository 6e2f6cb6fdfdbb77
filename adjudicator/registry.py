"""Installed games, found through the entry-point group ``adjudicator.games``."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import cast

from adjudicator.contract import Game
from adjudicator.errors import UsageProblem

GROUP = "adjudicator.games"


def game_names() -> list[str]:
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def load_game(name: str) -> Game:
    """The game registered as ``name``; UsageProblem naming the installed ones otherwise."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            return cast(Game, ep.load())
    installed = ", ".join(game_names()) or "none"
    raise UsageProblem(f"no game named {name!r} is installed (installed: {installed})")
