"""The order page judges each order once per process, whatever the languages it is rendered in:
every page is the page rendered alone, and a page of another player, turn or game is never
served what another page's orders were judged."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.present import order_page
from adjudicator.present.order_page import render_order_page
from adjudicator.rules.contract import Game, State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.rng import Rng
from adjudicator.rules.views import reader_view
from tests.hashes import committed

NAMES = ["alice", "bob", "carol", "dave"]


def game_at(game: Game, rounds: int, seed: int) -> tuple[dict[str, Any], State]:
    """The game after ``rounds`` of bots' play; every seed's game has the same id."""
    effective, problems = game.options(NAMES, {})
    assert problems == []
    info = committed(
        {
            "id": f"pages-{game.name}",
            "game": game.name,
            "players": [{"name": n} for n in NAMES],
            "options": {**effective, "nmr": "default"},
            "seed": seed,
        }
    )
    state = game.setup(info["players"], info["options"], Rng(seed))
    rng = Rng(seed)
    for _ in range(rounds):
        orders = {
            p: game.bot(game.view(state, p), rng.stream(f"bot {p} {state['turn']}"))
            for p in game.owed(state)
        }
        state = game.resolve(state, orders, rng).state
    return info, state


def page(game: Game, info: dict[str, Any], state: State, player: str, lang: str) -> str | None:
    return render_order_page(game, info, reader_view(game, info, state, player), lang, "gm@x.org")


def alone(game: Game, info: dict[str, Any], state: State, player: str, lang: str) -> str | None:
    """The page rendered with nothing judged before it in this process."""
    order_page._JUDGED.clear()
    return page(game, info, state, player, lang)


@pytest.mark.parametrize(
    ("game", "turns", "players"),
    [(COURT, 1, NAMES[:2]), (SULTAN, 4, NAMES)],
    ids=lambda value: getattr(value, "name", None),
)
def test_every_language_and_every_page_is_the_page_rendered_alone(
    game: Game, turns: int, players: list[str]
) -> None:
    # two deals of one game id: the same player and turn, other choices
    worlds = [game_at(game, rounds, seed) for rounds in range(turns) for seed in (7, 8)]
    expected = {
        (turn, player, lang): alone(game, info, state, player, lang)
        for turn, (info, state) in enumerate(worlds)
        for player in players
        for lang in LANGUAGES
    }
    assert sum(text is not None for text in expected.values()) >= 2 * turns * len(LANGUAGES)
    order_page._JUDGED.clear()
    for turn, (info, state) in enumerate(worlds):  # the players' pages in turns, languages within
        for lang in LANGUAGES:
            for player in players:
                got = page(game, info, state, player, lang)
                assert got == expected[turn, player, lang], (turn, player, lang)
