"""Sultan's options and player keys, checked against their pydantic models (loaded only when a
setup file is read, so that reading a game needs no schema)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from adjudicator.rules.contract import Problem
from adjudicator.rules.problems import option_problems


class Options(BaseModel):
    """Sultan's options (docs/rulings.md S4-S10)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    placement: Literal["sealed", "sequential"] = "sealed"
    jewel_choice: Literal["player", "random"] = "player"
    screens: bool = True
    start_player: str | None = None


class PlayerKeys(BaseModel):
    """Sultan reads no keys of a player entry beyond those every game reads (no colours)."""

    model_config = ConfigDict(strict=True, extra="forbid")


def check_options(
    players: Sequence[str], given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The effective options (defaults filled in) and every problem with those given."""
    effective, problems = option_problems(Options, given, "Sultan")
    start = effective["start_player"]
    if start is not None and start not in players:
        effective["start_player"] = None
        problems.append(
            Problem("not-a-player", ("start_player",), players=list(players), given=start)
        )
    return effective, problems
