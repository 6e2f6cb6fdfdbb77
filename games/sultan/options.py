"""Sultan's options: told in plain Python when they fit their model (.option_models), which is
loaded only to word the problems of those that do not (every ``new`` and demo checks them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.rules.contract import Problem
from adjudicator.rules.fits import exactly, fitting_options, one_of, text_or_none
from adjudicator.rules.problems import option_problems

from .rules import DEFAULTS

FITS = {
    "placement": one_of("sealed", "sequential"),
    "jewel_choice": one_of("player", "random"),
    "screens": exactly(bool),
    "start_player": text_or_none,
}
"""Each option's plain check: True only where its model takes the value as it is."""


def check_options(
    players: Sequence[str], given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The effective options (defaults filled in) and every problem with those given."""
    effective = plain_options(given)
    problems: list[Problem] = []
    if effective is None:
        from .option_models import Options

        effective, problems = option_problems(Options, given, "Sultan")
    start = effective["start_player"]
    if start is not None and start not in players:
        effective["start_player"] = None
        problems.append(
            Problem("not-a-player", ("start_player",), players=list(players), given=start)
        )
    return effective, problems


def plain_options(given: Mapping[str, Any]) -> dict[str, Any] | None:
    """The effective options when those ``given`` fit the model as they are; None whenever
    not sure."""
    return fitting_options(given, DEFAULTS, FITS)


def player_fits(own: Mapping[str, Any]) -> bool:
    """A player entry's keys beyond those every game reads fit ``PlayerKeys``: there are none."""
    return not own
