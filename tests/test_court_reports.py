"""The Court's reports as a new user reads them: the ring with long player names, its legend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.engine.forms import read_form_file
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.games.sultans_court.board import DUNGEONS, KINDS
from adjudicator.present.reports import counted, form_text, render
from adjudicator.rules.contract import State
from adjudicator.rules.rng import Rng

SEED = "09e1b7c4d2a6f8035b1c9d7e3f5a2468"
LONG = [
    "A" + "l" * 31,  # 32 characters, the longest name the setup allows
    "Bob_the-second-player-with-name1",
    "carol",
    "D" + "9" * 31,
]


def court_game(names: list[str]) -> tuple[dict[str, Any], State]:
    """A Court game after two rounds of bot orders, so that vizirs sit at court."""
    effective, _ = COURT.options(names, {})
    meta = {
        "id": "ring",
        "game": COURT.name,
        "players": [{"name": n} for n in names],
        "options": {**effective, "nmr": "default"},
        "seed": SEED,
    }
    rng = Rng(SEED)
    state = COURT.setup(meta["players"], effective, rng)
    while state["turn"] < 4:
        orders = {
            p: COURT.bot(COURT.view(state, p), rng.stream(f"bot {p} turn {state['turn']}"))
            for p in COURT.owed(state)
        }
        state = COURT.resolve(state, orders, rng).state
    return meta, state


def ring(text: str) -> list[str]:
    """The court drawing: its heading to the line after the last row."""
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("THE COURT")))
    return lines[start : start + 15]


def test_the_ring_stays_aligned_with_32_character_names() -> None:
    meta, state = court_game(LONG)
    drawing = ring(render(COURT, meta, state, "public"))
    rows = drawing[4:10]
    # every row: the right-hand cell starts in the same column, and no line is over 72 characters
    assert {row.index("seat", 16) for row in rows} == {37}
    assert all(len(line) <= 72 for line in drawing)
    colours = state["colours"]
    assert drawing[10:] == [
        "Vizirs are drawn by their player's colour (red.fat: red's fat vizir):",
        *(f"  {colours[n]:7} {n}" for n in LONG),
    ]
    sitting = [v for v, p in state["vizirs"].items() if isinstance(p, int)]
    assert sitting, "the game should have vizirs at court by now"
    for vizir in sitting:
        player, _, kind = vizir.rpartition(".")
        assert any(f"{colours[player]}.{kind}" in row for row in rows)
        assert not any(vizir in row for row in rows)


def test_short_names_are_drawn_as_they_are_and_need_no_legend() -> None:
    meta, state = court_game(["alice", "bob", "carol", "dave"])
    drawing = ring(render(COURT, meta, state, "public"))
    assert not any(line.startswith("Vizirs are drawn") for line in drawing)
    sitting = [v for v, p in state["vizirs"].items() if isinstance(p, int)]
    assert all(any(vizir in row for row in drawing) for vizir in sitting)


def test_the_ring_says_which_way_the_vizirs_move() -> None:
    meta, state = court_game(["alice", "bob", "carol", "dave"])
    drawing = ring(render(COURT, meta, state, "alice"))
    assert drawing[1:3] == [
        "Each round ends with every vizir at court moving one position clockwise:",
        "0 -> 1 -> 2 ... 11 -> 0 (RULINGS C12).",
    ]


def test_counts_take_the_word_in_the_right_number() -> None:
    assert [counted(n, "type") for n in (0, 1, 2)] == ["0 types", "1 type", "2 types"]
    assert counted(1, "power type") == "1 power type"
    assert counted(3, "city", "cities") == "3 cities"


def test_no_line_of_a_form_is_over_72_characters_even_with_32_character_names(
    tmp_path: Path,
) -> None:
    """docs/reports.md: mail clients hard-wrap longer lines, and a wrapped form no
    longer reads back; what the form carries for check spreads over several lines."""
    meta, state = court_game(LONG)
    meta["id"] = "court-" + "x" * 26
    for player in LONG:
        text = form_text(COURT, meta, state, player)
        assert text is not None
        assert [line for line in text.splitlines() if len(line) > 72] == []
        path = tmp_path / f"{player}.yaml"
        path.write_text(text)
        game, carried = read_form_file(path)  # what check --form reads
        assert game is COURT and carried["player"] == player
        assert carried["context"] == COURT.context(COURT.view(state, player))


def test_no_golden_form_has_a_line_over_72_characters() -> None:
    golden = Path(__file__).parent / "golden"
    forms = sorted(golden.glob("*/*-form.yaml"))
    assert len(forms) > 80
    long = [(f.name, line) for f in forms for line in f.read_text().splitlines() if len(line) > 72]
    assert long == []


def _frozen_court(pardon_with_bob: bool) -> tuple[dict[str, Any], State]:
    """A Court game where alice's, carol's and dave's vizirs are on the Island and bob's in the
    three dungeons; every Pardon card under Bukhara's stack, or one in bob's hand."""
    meta, state = court_game(["alice", "bob", "carol", "dave"])
    for vizir in state["vizirs"]:
        state["vizirs"][vizir] = "island"
    for kind, dungeon in zip(KINDS, DUNGEONS, strict=True):
        state["vizirs"][f"bob.{kind}"] = dungeon
    pardons = []
    for player, hand in state["hands"].items():
        pardons += [card for card in hand if card == "Pardon"]
        state["hands"][player] = [card for card in hand if card != "Pardon"]
    state["cities"]["Bukhara"] = state["cities"]["Bukhara"] + pardons + ["Pardon"] * (not pardons)
    if pardon_with_bob:
        state["cities"]["Bukhara"].pop()
        state["hands"]["bob"].append("Pardon")
    return meta, state


def test_a_court_that_can_never_change_ends_in_a_draw() -> None:
    """Ruling P23: no vizir can move, take a card or be pardoned any more, so nobody can win."""
    meta, state = _frozen_court(pardon_with_bob=False)
    resolution = COURT.resolve(state, dict.fromkeys(COURT.owed(state)), Rng(SEED))
    after = resolution.state
    rnd = state["round"]
    assert COURT.is_over(after)
    assert after["result"] == {"winner": None, "draw": True, "rounds": rnd, "stalemate": True}
    assert {"type": "stalemate", "round": rnd} in resolution.events
    assert COURT.owed(after) == {}
    for reader in ("public", "alice", "gm"):
        text = render(COURT, meta, after, reader)
        assert f"THE GAME IS OVER after round {rnd}: a draw (nobody can win any more)." in text
        assert "nobody can win any more, and the game ends in a DRAW." in text
    german = render(COURT, meta, after, "public", lang="de")
    assert "unentschieden (niemand kann mehr gewinnen)" in german


def test_a_pardon_that_can_still_be_played_keeps_the_game_going() -> None:
    _, state = _frozen_court(pardon_with_bob=True)
    resolution = COURT.resolve(state, dict.fromkeys(COURT.owed(state)), Rng(SEED))
    assert not COURT.is_over(resolution.state)
    assert all(event["type"] != "stalemate" for event in resolution.events)
