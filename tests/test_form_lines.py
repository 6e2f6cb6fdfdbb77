"""The lines an order form carries for checking: data that reads back whole, none over the form's
width, and none that ends inside a word a player could read."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.rules.formlines import FORM_MARK, FORM_WIDTH, carried_lines

GOLDEN = Path(__file__).parent / "golden"
WORD = re.compile(r"[A-Za-z0-9]")


def joined(lines: list[str]) -> str:
    return "".join(line[len(FORM_MARK) :] for line in lines)


def test_every_golden_forms_data_lines_end_between_json_pieces() -> None:
    forms = sorted(GOLDEN.rglob("*-form.yaml"))
    assert forms
    for form in forms:
        lines = [x for x in form.read_text().splitlines() if x.startswith(FORM_MARK)]
        json.loads(joined(lines))
        for before, after in itertools.pairwise(lines):
            end, start = before[-1], after[len(FORM_MARK)]
            assert end in ",:{[]}" or start in '"{[]}', (form.name, before, after)
            assert not (WORD.match(end) and WORD.match(start)), (form.name, before, after)


def test_a_word_is_never_cut() -> None:
    carried = {
        "context": {"used_cushions": [], "drawn": ["white", "green", "red", "white"]},
        "game": "sultan",
        "id": "golden",
        "player": "alice",
        "turn": 2,
    }
    lines = carried_lines(carried)
    assert json.loads(joined(lines)) == carried
    assert any(line.endswith('"to_do":"bid",') or "used_cushions" in line for line in lines)
    assert all('"used_cushions"' in line for line in lines if "used_cush" in line)


@pytest.mark.seconds
@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=30),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=90),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=12), inner, max_size=4)
            ),
            max_leaves=12,
        ),
        max_size=6,
    )
)
def test_any_data_reads_back_within_the_width(carried: dict[str, object]) -> None:
    lines = carried_lines(carried)
    assert json.loads(joined(lines)) == carried
    for line in lines:
        assert len(line) <= FORM_WIDTH
        assert not line.endswith(" ") and not line[len(FORM_MARK) :].startswith(" ")
