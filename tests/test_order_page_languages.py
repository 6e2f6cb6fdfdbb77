"""A caller that renders the same order page in every language keeps what ``check`` said of its
orders (``render_order_page(judged=...)``): each page is then the page whose every order was
judged afresh. And the page judges each order as ``check`` does, handing ``validate`` and
``notes`` each its own copy of it."""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.present.order_page import render_order_page
from adjudicator.rules.contract import Game, State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.rng import Rng
from adjudicator.rules.views import reader_view
from tests.hashes import committed
from tests.helpers import bot_round

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
        state = bot_round(game, state, rng)
    return info, state


class _Forgetful(dict[Any, Any]):
    """A judging kept nowhere: every order judged afresh, even within one page."""

    def __contains__(self, key: object) -> bool:
        return False

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


WORLDS = [(COURT, 1, NAMES[:2]), (SULTAN, 4, NAMES)]
"""Each game, the rounds its worlds are played to (0, 1, ...), and whose pages are read."""


@pytest.mark.seconds
@pytest.mark.parametrize(
    ("game", "turns", "players"), WORLDS, ids=lambda v: getattr(v, "name", None)
)
def test_a_page_in_every_language_is_the_page_judged_afresh(
    game: Game, turns: int, players: list[str]
) -> None:
    found = 0
    for rounds in range(turns):
        for seed in (7, 8):
            info, state = game_at(game, rounds, seed)
            for player in players:
                doc = reader_view(game, info, state, player)
                kept: dict[Any, Any] = {}
                pages = 0
                for lang in LANGUAGES:
                    got = render_order_page(game, info, doc, lang, "gm@x.org", judged=kept)
                    # judged afresh: every order of the page once (its rows alike kept), and in
                    # the first language every order each time it is made (nothing kept)
                    alone = _Forgetful() if lang == LANGUAGES[0] else {}
                    afresh = render_order_page(game, info, doc, lang, "gm@x.org", judged=alone)
                    assert got == afresh, (rounds, seed, player, lang)
                    pages += got is not None
                assert bool(pages) == bool(kept)  # the judging was kept and read again
                found += pages
    assert found >= 2 * turns * len(LANGUAGES)


class _Clearing:
    """The Court, but its ``validate`` empties each order once it has judged it: a game must
    not change what it is given, and ``check`` hands ``validate`` and ``notes`` each its own
    order, so that one that does changes nothing that ``notes`` says."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def validate(self, context: Any, order: dict[str, Any]) -> Any:
        found = self._game.validate(context, order)
        order.clear()
        return found


def test_the_page_hands_validate_and_notes_each_its_own_order() -> None:
    info, state = game_at(COURT, 0, 7)
    doc = reader_view(COURT, info, state, NAMES[0])
    page = render_order_page(COURT, info, doc, "en", "gm@x.org")
    assert page is not None and "demand" in page  # its notes are of demands and trades
    assert render_order_page(_Clearing(COURT), info, doc, "en", "gm@x.org") == page  # type: ignore[arg-type]
