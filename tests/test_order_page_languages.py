"""The order page judges each order once per process, whatever the languages it is rendered in:
every page is the page whose orders were all judged afresh, and a page of another player, turn
or game is never served what another page's orders were judged."""

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


class _Forgetful(dict[Any, Any]):
    """A judging kept nowhere: every order judged afresh, even within one page."""

    def __contains__(self, key: object) -> bool:
        return False

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def alone(
    game: Game,
    info: dict[str, Any],
    state: State,
    player: str,
    lang: str,
    monkeypatch: pytest.MonkeyPatch,
) -> str | None:
    """The page rendered with nothing kept: no page's judging and no order's within it."""
    with monkeypatch.context() as patch:
        patch.setattr(order_page, "_judged_before", lambda *_: _Forgetful())
        return page(game, info, state, player, lang)


WORLDS = [(COURT, 1, NAMES[:2]), (SULTAN, 4, NAMES)]
"""Each game, the rounds its worlds are played to (0, 1, ...), and whose pages are read."""


def test_every_page_is_the_page_judged_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of both games, of every turn and player, in every language, rendered in turns with
    what earlier pages kept: each is the page whose every order was judged afresh (two deals of
    one game id at each turn: the same player and turn, other choices)."""
    worlds = [
        (game, game_at(game, rounds, seed), players)
        for game, turns, players in WORLDS
        for rounds in range(turns)
        for seed in (7, 8)
    ]
    expected = {
        (index, player, lang): alone(game, info, state, player, lang, monkeypatch)
        for index, (game, (info, state), players) in enumerate(worlds)
        for player in players
        for lang in LANGUAGES
    }
    assert sum(text is not None for text in expected.values()) >= 2 * 5 * len(LANGUAGES)
    order_page._JUDGED.clear()
    for lang in LANGUAGES:  # every world's pages in one language, then the next language
        for index, (game, (info, state), players) in enumerate(worlds):
            for player in players:
                got = page(game, info, state, player, lang)
                assert got == expected[index, player, lang], (game.name, index, player, lang)
