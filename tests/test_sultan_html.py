"""Sultan's HTML pages and pictures: the same facts as the text report of the same view, in
every language, with pictures drawn from the view alone."""

from __future__ import annotations

import re
from functools import cache
from html.parser import HTMLParser
from typing import Any

import pytest

from adjudicator.games.sultan import GAME
from adjudicator.present.html import render_page
from adjudicator.present.pictures_sultan import draw
from adjudicator.present.reports import render_view
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.views import reader_view
from tests import hashes
from tests.test_golden_reports import GAMES, play
from tests.test_html_reports import PNG, check_page

READERS = ["alice", "bob", "public", "gm"]
TURNS = [1, 5, -1]


@cache
def golden(name: str = "four") -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
    return play(*GAMES[name])


def doc(turn: int, reader: str, name: str = "four") -> dict[str, Any]:
    meta, states, used = golden(name)
    state = states[turn - 1] if turn > 0 else states[-1]
    return reader_view(GAME, meta, state, reader, used)


class Words(HTMLParser):
    """A page's words as a reader sees them (tags dropped, spaces collapsed)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.feed(text)
        self.close()

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def _line(line: str) -> str:
    """A line of text as the page words it: a hash without the text's "#" (tests/hashes.py)."""
    return " ".join(hashes.TEXT.sub(r"\1", line.removeprefix("- ")).split())


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", ["four", "two-sequential", "three-open"])
@pytest.mark.parametrize("turn", [1, 5, -1])
@pytest.mark.parametrize("reader", ["alice", "public", "gm"])
def test_the_page_says_every_line_of_the_text(lang: str, name: str, turn: int, reader: str) -> None:
    """Each line of the text report, words and numbers, is in the page of the same view."""
    meta = golden(name)[0]
    view = doc(turn, reader, name)
    text = render_view(GAME, meta, view, lang)
    words = Words(render_page(GAME, meta, view, lang).html).text()
    missing = [
        line
        for line in text.splitlines()
        if line.strip() and "-----8<-----" not in line and _line(line) not in words
    ]
    assert missing == []


def test_a_players_page_holds_their_hand_the_cushions_the_players_and_the_turn() -> None:
    meta = golden()[0]
    for turn in (1, 2, 5, 6):
        view = doc(turn, "alice")
        page = render_page(GAME, meta, view, "en").html
        words = Words(page).text()
        game = view["view"]
        assert f"turn {view['turn']}" in words
        assert f"Your hand: {', '.join(map(str, game['hand']))}" in words
        for card in game["hand"]:
            assert f">{card}</div>" in page
        for number, jewel in enumerate(game["offered"] or [], start=1):
            assert f"cushion {number}: {jewel}" in words
        for player in game["players"]:
            assert player in words
        assert "Your collection: " in words


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("turn", TURNS)
@pytest.mark.parametrize("reader", READERS)
def test_every_readers_page_renders_in_every_language(lang: str, turn: int, reader: str) -> None:
    meta = golden()[0]
    view = doc(turn, reader)
    page = render_page(GAME, meta, view, lang, embed="cid")
    parsed = check_page(page.html, "cid:")
    for tag, attrs in parsed.tags:
        if tag == "img":
            assert attrs.get("width") and attrs.get("height")
    assert sorted(page.pictures) == sorted(draw(view, lang))
    assert all(data.startswith(PNG) for data in page.pictures.values())
    if lang != "en":
        assert render_page(GAME, meta, view, lang).html != render_page(GAME, meta, view).html
    if view["over"]:
        assert "scores" in page.pictures and "palace" not in page.pictures
    else:
        assert "palace" in page.pictures and "scores" not in page.pictures
    form = render_page(GAME, meta, view, lang).html
    assert ("<pre" in form) == ("to_do" in view)


def test_pictures_are_small_and_hold_no_words() -> None:
    for turn in TURNS:
        for reader in READERS:
            view = doc(turn, reader)
            pictures = draw(view, "en")
            assert all(draw(view, lang) == pictures for lang in LANGUAGES)
            for data in pictures.values():
                width = int.from_bytes(data[16:20], "big")
                assert width <= 680 and len(data) < 8000


def test_pictures_differ_when_the_view_differs() -> None:
    first, later = draw(doc(1, "alice"), "en"), draw(doc(5, "alice"), "en")
    assert first["palace"] != later["palace"]
    assert first["collection"] != later["collection"]
    assert draw(doc(5, "alice"), "en") == later
    view = doc(6, "alice")
    changed = {**view, "view": {**view["view"], "offered": list(reversed(view["view"]["offered"]))}}
    assert view["view"]["offered"] != changed["view"]["offered"]
    assert draw(changed, "en")["palace"] != draw(view, "en")["palace"]
    final = doc(-1, "public")["view"]
    scores = final["result"]["scores"]
    player = final["players"][0]
    bonus = {**scores[player], "bonus": scores[player]["bonus"] + 5}
    bigger = {**final, "result": {**final["result"], "scores": {**scores, player: bonus}}}
    assert draw({"view": bigger}, "en")["scores"] != draw({"view": final}, "en")["scores"]


def test_face_down_cards_show_as_card_backs() -> None:
    """In sequential placement the others' cards lie face down: the spectator's palace differs
    from the game master's, which shows their values."""
    seen = [
        (doc(turn, "public", "two-sequential"), doc(turn, "gm", "two-sequential"))
        for turn in range(1, 12)
    ]
    hidden = [
        (public, gm)
        for public, gm in seen
        if any(p["card"] is None for p in public["view"]["placements"])
    ]
    assert hidden
    for public, gm in hidden:
        assert draw(public, "en")["palace"] != draw(gm, "en")["palace"]
        words = Words(render_page(GAME, golden("two-sequential")[0], public, "en").html).text()
        assert re.search(r"card face down", words)
