"""Options (docs/rulings.md C3, C9, C16) and the deal (C1–C4). Options and player entries that
plainly fit their models are read without them (.option_models, loaded to word a problem)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.rules.contract import Problem, State
from adjudicator.rules.fits import exactly, fitting_options, one_of, text_or_none
from adjudicator.rules.problems import option_problems
from adjudicator.rules.rng import Rng

from .board import CITIES, COLOURS, KAFFA, KINDS, PARDON, POWER, sort_hand, vizir_name

DEFAULTS: dict[str, Any] = {
    "first_round_all_travel": True,
    "banish_tie": "lower_seat_goes",
    "max_rounds": None,
}
"""The options' defaults (.option_models holds them in the model that words a problem; a test
holds the two together)."""
FITS = {
    "first_round_all_travel": exactly(bool),
    "banish_tie": one_of("lower_seat_goes", "higher_seat_goes"),
    "max_rounds": lambda value: value is None or (type(value) is int and value >= 1),
}
"""Each option's plain check: True only where its model takes the value as it is."""
DEAL_ORDER = ("Bukhara", "Tabriz", "Shiraz", "Gidda", "Uskub", "Isfahan")


def check_options(
    players: Sequence[str], given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The effective options (defaults filled in) and every problem with those given."""
    del players  # no option of this game names a player
    effective = plain_options(given)
    if effective is not None:
        return effective, []
    from .option_models import Options

    return option_problems(Options, given, "At the Sultan's Court")


def plain_options(given: Mapping[str, Any]) -> dict[str, Any] | None:
    """The effective options when those ``given`` fit the model as they are; None whenever
    not sure."""
    return fitting_options(given, DEFAULTS, FITS)


def player_fits(own: Mapping[str, Any]) -> bool:
    """A player entry's keys beyond those every game reads fit ``PlayerKeys``: a colour, as
    text, or none."""
    return set(own) <= {"colour"} and text_or_none(own.get("colour"))


def colour_problems(players: Sequence[Mapping[str, Any]]) -> list[tuple[int, Problem]]:
    """C1: each colour given must be one of the four, and no two players may share one."""
    problems: list[tuple[int, Problem]] = []
    given: dict[str, str] = {}
    for index, player in enumerate(players):
        colour = player.get("colour")
        if colour is None:
            continue
        if colour not in COLOURS:
            bad = Problem("bad-colour", ("colour",), colour=colour, colours=list(COLOURS))
            problems.append((index, bad))
        elif colour in given:
            shared = Problem("shared-colour", ("colour",), colour=colour, owner=given[colour])
            problems.append((index, shared))
        else:
            given[colour] = str(player["name"])
    return problems


def colours_of(players: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """C1: the colours given in the setup; missing ones assigned in seating order from the rest."""
    problems = colour_problems(players)
    if problems:
        raise ValueError("; ".join(f"{p.code} {dict(p.params)}" for _, p in problems))
    given = {str(p["name"]): str(p["colour"]) for p in players if p.get("colour") is not None}
    free = [c for c in COLOURS if c not in given.values()]
    return {str(p["name"]): given.get(str(p["name"])) or free.pop(0) for p in players}


def base_cards() -> list[str]:
    """The 42 cards before shuffling: 6 of each power type in POWER order, then 6 Pardon cards."""
    return [card for card in (*POWER, PARDON) for _ in range(6)]


def setup(players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng) -> State:
    """The state as round 1 opens.

    Draws (C2–C4), each from its own stream: ``deal markers`` shuffles vote markers 1–12 onto
    court positions 0–11; ``deal vizirs`` shuffles the 12 vizirs (in seating order, fat, small,
    big each) onto positions 0–11; ``deal cards`` shuffles the 42 cards (``base_cards``) and
    deals from the top: 2 to each player in seating order, then 4 to Kaffa, then 5 to each of
    Bukhara, Tabriz, Shiraz, Gidda, Uskub, Isfahan in that order. The first card a stack gets
    is its top.
    """
    names = [str(p["name"]) for p in players]
    if len(names) != 4 or len(set(names)) != 4:
        raise ValueError("At the Sultan's Court needs exactly 4 players with different names")
    colours = colours_of(players)
    opts = {key: options.get(key, default) for key, default in DEFAULTS.items()}
    markers = rng.stream("deal markers").shuffle(list(range(1, 13)))
    everyone = [vizir_name(p, kind) for p in names for kind in KINDS]
    dealt = rng.stream("deal vizirs").shuffle(everyone)
    vizirs = {v: dealt.index(v) for v in everyone}
    cards = rng.stream("deal cards").shuffle(base_cards())
    hands = {p: sort_hand(cards[2 * i : 2 * i + 2]) for i, p in enumerate(names)}
    rest = cards[8:]
    cities: dict[str, list[str]] = {city: [] for city in CITIES}
    cities[KAFFA] = rest[:4]
    for i, city in enumerate(DEAL_ORDER):
        cities[city] = rest[4 + 5 * i : 9 + 5 * i]
    deal = {
        "markers": list(markers),
        "vizirs": dict(vizirs),
        "cities": {c: list(s) for c, s in cities.items()},
        "hands": {p: list(h) for p, h in hands.items()},
    }
    return {
        "turn": 1,
        "round": 1,
        "players": names,
        "colours": colours,
        "options": opts,
        "markers": markers,
        "vizirs": vizirs,
        "cities": cities,
        "hands": hands,
        "taken": dict.fromkeys(CITIES, 0),
        "start_player": None,
        "deal": deal,
        "rounds": [],
        "over": False,
        "result": None,
    }
