"""At the Sultan's Court's HTML pages: the same facts as the text report of the same view, with
pictures drawn from the view alone, in every language."""

from __future__ import annotations

import copy
import html
import io
import re
from functools import cache
from typing import Any

import pytest
from PIL import Image

from adjudicator.games.sultans_court import GAME
from adjudicator.present.catalogs import translations
from adjudicator.present.html import render_page
from adjudicator.present.pictures_sultans_court import draw
from adjudicator.present.reports import render_view
from adjudicator.rules.contract import State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.rng import Rng
from adjudicator.rules.views import reader_view
from tests.test_golden_reports import GAMES, play
from tests.test_html_reports import PNG, check_page

CITIES = ["Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan"]


@cache
def golden() -> tuple[dict[str, Any], list[State], dict[str, Any]]:
    return play(*GAMES["court"])


def state_at(label: str) -> State:
    _, states, _ = golden()
    return {"round 1": states[0], "round 5": states[4], "end": states[-1]}[label]


def words(page: str) -> str:
    """What a page says: its text without tags, with its entities read and spaces folded."""
    text = re.sub(r"<[^>]+>", " ", page.split("<body", 1)[1])
    return " ".join(html.unescape(text).replace("\xa0", " ").split())


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("label", ["round 1", "round 5", "end"])
def test_a_players_page_says_what_their_text_says(label: str, lang: str) -> None:
    meta, _, used = golden()
    doc = reader_view(GAME, meta, state_at(label), "alice", used)
    text = render_view(GAME, meta, doc, lang)
    said = words(render_page(GAME, meta, doc, lang).html)
    view = doc["view"]
    # The heading (round number and all) and every event, word for word.
    assert " ".join(text.splitlines()[0].split()) in said
    events = [line[2:] for line in text.splitlines() if line.startswith("- ")]
    assert events or view["last"] is None
    for line in events:
        assert " ".join(line.replace("->", "→").split()) in said, line
    # The cities, the players, each hand in the reader's words, the dungeons.
    catalog = translations(GAME, lang)
    for city in CITIES:
        assert city in said
    for name in view["players"]:
        hand = ", ".join(catalog.gettext(card) for card in view["hands"][name])
        assert name in said and hand in text and hand in said
    for number, dungeon in enumerate(["dungeon1", "dungeon2", "dungeon3"], start=1):
        there = view["dungeons"][dungeon] or "-"
        line = catalog.gettext("Dungeon %(number)s: %(vizir)s") % {"number": number, "vizir": there}
        assert line in text and line in said
    if view["over"]:
        assert "-----8<-----" not in text
        over = catalog.gettext("THE GAME IS OVER after round %(round)s: %(player)s wins.") % {
            "round": view["result"]["rounds"],
            "player": view["result"]["winner"],
        }
        assert over in text and over in said
    else:
        assert " ".join(doc_form(text).split()) in said


def doc_form(text: str) -> str:
    """The order form inside a text report."""
    return text.split("-----8<-----\n", 1)[1].split("-----8<-----", 1)[0]


@pytest.mark.parametrize("label", ["round 1", "round 5", "end"])
def test_every_readers_page_renders_in_every_language(label: str) -> None:
    meta, _, used = golden()
    state = state_at(label)
    for reader in [*GAME.view(state, None)["players"], "public", "gm"]:
        doc = reader_view(GAME, meta, state, reader, used)
        for lang in LANGUAGES:
            page = render_page(GAME, meta, doc, lang, embed="cid")
            check_page(page.html, "cid:")
            assert f'<html lang="{lang}">' in page.html
            assert set(page.pictures) == {"court", "places"}
            for tag in re.findall(r"<img [^>]*>", page.html):
                assert re.search(r'width="\d+"', tag) and re.search(r'height="\d+"', tag)


def test_pictures_are_small_the_same_in_every_language_and_follow_the_view() -> None:
    meta, _, _ = golden()
    doc = reader_view(GAME, meta, state_at("round 5"), "alice")
    pictures = draw(doc, "en")
    assert all(draw(doc, lang) == pictures for lang in LANGUAGES)
    for data in pictures.values():
        assert data.startswith(PNG) and len(data) < 8000
        assert Image.open(io.BytesIO(data)).width <= 680
    view = doc["view"]

    def changed(change: Any) -> dict[str, bytes]:
        other = copy.deepcopy(doc)
        change(other["view"])
        return draw(other, "en")

    # A vizir sits elsewhere at court: the court changes, the places do not.
    sitter = next(row for row in view["court"] if row["vizir"])
    empty = next(row for row in view["court"] if not row["vizir"])

    def move(v: dict[str, Any]) -> None:
        rows = v["court"]
        rows[empty["position"]] = {**rows[sitter["position"]], **empty, "vizir": sitter["vizir"]}
        rows[sitter["position"]] = {**rows[sitter["position"]], "vizir": None, "player": None}

    moved = changed(move)
    assert moved["court"] != pictures["court"] and moved["places"] == pictures["places"]
    # The vote markers, a player's colour, a stack's count and a banished vizir show too.
    assert changed(lambda v: v["court"][0].update(seat=12))["court"] != pictures["court"]
    first = view["players"][0]
    recoloured = changed(lambda v: v["colours"].update({first: "green"}))
    assert recoloured["court"] != pictures["court"] or recoloured["places"] != pictures["places"]
    assert changed(lambda v: v["cities"]["Kaffa"].update(size=0))["places"] != pictures["places"]
    assert changed(lambda v: v["island"].append(sitter["vizir"]))["places"] != pictures["places"]


def test_long_player_names_leave_the_pictures_alone() -> None:
    """Names of up to 32 characters: the pictures are drawn by colour, the page names them."""
    long = ["alice-" + "x" * 26, "bob-" + "y" * 28, "carol-" + "z" * 26, "dave-" + "w" * 27]
    players = [{"name": n} for n in long]
    effective, problems = GAME.options(long, {})
    assert problems == []
    meta = {
        "id": "long",
        "game": "sultans_court",
        "players": players,
        "options": {**effective, "nmr": "default"},
        "seed": 7,
    }
    state = GAME.setup(players, effective, Rng(7))
    doc = reader_view(GAME, meta, state, long[0])
    page = render_page(GAME, meta, doc, "en")
    check_page(page.html, "data:image/png;base64,")
    assert all(name in page.html for name in long)
    for data in page.pictures.values():
        assert Image.open(io.BytesIO(data)).width <= 680
