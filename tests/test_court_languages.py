"""At the Sultan's Court's reports and forms in German, Dutch and French (the English ones are
the golden files).

Forms keep the order file's keys and values in English in every language (only the comments are
translated) and no line over 72 characters, even with 32-character names; the ring lines up and
stays within 72 characters; the words of every language come from its catalog, not English.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.present.reports import form_of_view, render_final, render_view
from adjudicator.rules.contract import State
from adjudicator.rules.views import reader_view
from tests.test_court_reports import LONG, court_game
from tests.test_golden_reports import GAMES, play

LANGS = ["de", "nl", "fr"]
COURT_GAMES = sorted(name for name, spec in GAMES.items() if spec[0] is COURT)
KEYS = {"travel", "accuse", "kaffa", "demand", "pardon", "trades"}


@cache
def played(name: str) -> tuple[dict[str, Any], list[State], dict[str, Any]]:
    return play(*GAMES[name])


def keys_of(text: str) -> list[str]:
    """The order file's lines of a form without their comments."""
    return [line.split("#")[0].rstrip() for line in text.splitlines() if not line.startswith("#")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", COURT_GAMES)
def test_forms_keep_english_keys_and_short_lines(name: str, lang: str) -> None:
    meta, states, _ = played(name)
    for state in states:
        for player in COURT.owed(state):
            doc = reader_view(COURT, meta, state, player)
            text = form_of_view(COURT, meta, doc, lang)
            english = form_of_view(COURT, meta, doc)
            assert text is not None and english is not None
            assert [line for line in text.splitlines() if len(line) > 72] == []
            lines = keys_of(text)
            assert lines[: len(keys_of(english))] == keys_of(english)
            assert {line.split(":")[0] for line in lines if line and line[0] != " "} >= KEYS


@pytest.mark.parametrize("lang", LANGS)
def test_forms_with_32_character_names_keep_to_72_characters(lang: str) -> None:
    meta, state = court_game(LONG)
    meta["id"] = "court-" + "x" * 26
    for player in LONG:
        text = form_of_view(COURT, meta, reader_view(COURT, meta, state, player), lang)
        assert text is not None
        assert [line for line in text.splitlines() if len(line) > 72] == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("names", [LONG, ["alice", "bob", "carol", "dave"]])
def test_the_ring_lines_up_in_every_language(lang: str, names: list[str]) -> None:
    meta, state = court_game(names)
    text = render_view(COURT, meta, reader_view(COURT, meta, state, "public"), lang)
    lines = text.splitlines()
    rows = [line for line in lines if re.match(r"  [* ] ?\d+  \S+ +\d+  ", line)]
    assert len(rows) == 6
    seat = rows[0].split()[2]
    # the right-hand cells start in one column; the Sultan sits above the middle of the ring
    assert len({row.index(seat, 16) for row in rows}) == 1
    sultans = {"THE SULTAN", "DER SULTAN", "DE SULTAN", "LE SULTAN"}
    sultan = next(line for line in lines if line.strip() in sultans)
    right = rows[0].index(seat, 16) - 5  # where the right-hand cells begin
    centre = len(sultan) - len(sultan.lstrip()) + len(sultan.strip()) / 2
    assert abs(centre - (right - 3)) <= 2  # the ring runs from column 2 to 2 * right - 8
    start = lines.index(rows[0]) - 5
    end = lines.index(rows[-1]) + 1 + (len(names) + 3 if names is LONG else 0)
    assert all(len(line) <= 72 for line in lines[start:end])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", COURT_GAMES)
def test_reports_speak_the_language(name: str, lang: str) -> None:
    meta, states, used = played(name)
    for state in [states[0], states[4], states[5], states[-1]]:
        for reader in ["alice", "public", "gm"]:
            doc = reader_view(COURT, meta, state, reader, used)
            text = render_view(COURT, meta, doc, lang)
            assert text != render_view(COURT, meta, doc)
            prose = text.split("-----8<-----")[0]
            for word in ["seat", "Dungeon", "CITIES", "ROUND", "round", "banished", "accuses",
                         "takes", "stays", "Island"]:  # fmt: skip
                assert not re.search(rf"\b{word}\b", prose), f"{word!r} in {lang}:\n{text}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", COURT_GAMES)
def test_the_final_table_lines_up(name: str, lang: str) -> None:
    meta, states, _ = played(name)
    final = reader_view(COURT, meta, states[-1], "public")
    text = render_final(COURT, meta, final, lang, checking=False)  # the table alone
    rows = text.splitlines()[3:]
    assert len(rows) == len(meta["players"])
    # each player's cards begin in the same column, after the name and colour
    assert all(row[18] == " " and row[19] != " " for row in rows), text


def test_an_empty_city_reads_none_in_the_language_of_each_page_rendered_in_turn(
    tmp_path: Path,
) -> None:
    """A word put together from a constant in a template (the empty list of vizirs in a city)
    was fixed when the template was first compiled, in that first page's language: an English
    page rendered after a French one said 'aucun'."""
    import json

    from adjudicator.present.html import render_page
    from adjudicator.store.gamedir import GameDir
    from tests.helpers import Table

    table = Table(tmp_path, players=4, game="sultans_court")
    store = GameDir(table.gamedir)
    meta = store.meta()
    doc = json.loads((table.gamedir / "turns/0001/views/alice.json").read_text())
    pages = {lang: render_page(COURT, meta, doc, lang).html for lang in ("fr", "de", "en")}
    assert "aucun" in pages["fr"]
    assert "aucun" not in pages["de"] and "aucun" not in pages["en"]
