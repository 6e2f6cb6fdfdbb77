"""Sultan's reports and forms in German, Dutch and French (the English ones are the golden files).

Forms keep the order file's keys and values in English in every language (only the comments are
translated) and no line over 72 characters; the final table's columns line up whatever the
length of the headings; the words of every language come from its catalog, not English.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.present.reports import form_of_view, render_final, render_view
from adjudicator.rules.contract import State
from adjudicator.rules.views import reader_view
from tests.test_golden_reports import GAMES, play

LANGS = ["de", "nl", "fr"]
SULTAN_GAMES = {name: spec for name, spec in GAMES.items() if spec[0] is SULTAN}
SULTAN_GAMES["two-sealed"] = (SULTAN, 2, "0123456789abcdef0123456789abcdef", {})


@cache
def played(name: str) -> tuple[dict[str, Any], list[State], dict[str, Any]]:
    return play(*SULTAN_GAMES[name])


def forms(name: str, lang: str) -> list[tuple[str, str]]:
    """``(to_do, form)`` for every order owed in the game."""
    meta, states, _ = played(name)
    found = []
    for state in states:
        for player in SULTAN.owed(state):
            doc = reader_view(SULTAN, meta, state, player)
            text = form_of_view(SULTAN, meta, doc, lang)
            assert text is not None
            found.append((doc["to_do"], text))
    return found


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SULTAN_GAMES))
def test_forms_keep_english_keys_and_short_lines(name: str, lang: str) -> None:
    seen = set()
    for to_do, text in forms(name, lang):
        seen.add(to_do)
        lines = text.splitlines()
        assert [line for line in lines if len(line) > 72] == []
        keys = [line.split("#")[0].rstrip() for line in lines if not line.startswith("#")]
        expected = {
            "return": ["return:"],
            "bid": ["bid:", "  cushion:", "  card:"],
            "bids": ["bids:", "  - cushion:", "    card:", "  - cushion:", "    card:"],
        }[to_do]
        assert keys[:3] == [k for k in keys[:3] if re.match(r"(id|player|turn): ", k)]
        assert keys[3:] == expected
    assert seen & {"bid", "bids"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_jewel_choice_names_the_english_values(lang: str) -> None:
    texts = [text for to_do, text in forms("four", lang) if to_do == "return"]
    assert texts
    for text in texts:
        comment = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))
        assert re.search(r"\b(white|red|yellow|green|blue) \(\w+\)", comment), comment


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SULTAN_GAMES))
def test_the_final_table_lines_up(name: str, lang: str) -> None:
    meta, states, _ = played(name)
    text = render_final(SULTAN, meta, reader_view(SULTAN, meta, states[-1], "public"), lang)
    lines = text.splitlines()
    head = lines[3]
    rows = lines[4 : 4 + len(meta["players"])]

    def ends(line: str) -> list[int]:
        return [m.end() for m in re.finditer(r"\S+", line)]

    # the last eight cells (five colours, points, bonus, total) end in the same columns; what
    # follows the last column (the winner's mark) is cut off first
    for row in rows:
        assert ends(row[: len(head)])[-8:] == ends(head)[-8:], f"{head}\n{row}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SULTAN_GAMES))
def test_reports_speak_the_language(name: str, lang: str) -> None:
    meta, states, used = played(name)
    for state in [states[0], states[4], states[5], states[-1]]:
        for reader in ["alice", "public", "gm"]:
            doc = reader_view(SULTAN, meta, state, reader, used)
            text = render_view(SULTAN, meta, doc, lang)
            assert text != render_view(SULTAN, meta, doc)
            for word in ["cushion", "jewel", "pouch", "Stage", "round", "start player"]:
                prose = text.split("-----8<-----")[0]
                assert not re.search(rf"\b{word}\b", prose), f"{word!r} in {lang}:\n{text}"
