"""A run of many steps on one game (the demo) lists the game once a step: each step begins with
the listing the step before it ended with, while the journal holds what that step left."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from adjudicator import demo
from adjudicator.store import steps
from tests.helpers import Table, run


def _named(game: Path) -> list[tuple[Any, ...]]:
    """Each journal line's kind, and the files it names and moves (digests differ between two
    games: each has its own key)."""
    lines = [json.loads(line) for line in (game / "log.jsonl").read_text().splitlines()]
    return [
        (line["type"], sorted(line.get("files", {})), sorted(line.get("moved", {}).items()))
        for line in lines
    ]


@pytest.mark.parametrize(("game", "players"), [("sultan", 3), ("sultans_court", 4)])
def test_the_demo_lists_its_game_once_a_step_and_names_what_it_did_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, players: int
) -> None:
    listings: list[Path] = []
    walk = steps.tracked
    monkeypatch.setattr(steps, "tracked", lambda store: listings.append(store.root) or walk(store))
    demo.run(game, players, 3, tmp_path / "kept", lambda _line: None)
    kept = len(listings)
    monkeypatch.setattr(demo, "listings_kept", contextlib.nullcontext)
    demo.run(game, players, 3, tmp_path / "listed", lambda _line: None)
    lines = _named(tmp_path / "kept" / "game")
    assert lines == _named(tmp_path / "listed" / "game")
    assert kept == len(lines) + 1  # each step as it ends, and the first as it begins
    assert len(listings) - kept == 2 * len(lines)  # each step twice


def test_a_step_lists_the_game_again_once_another_wrote_to_its_journal(tmp_path: Path) -> None:
    """What another process did (here: a run of its own) and the file it left are seen: the
    file is not named as the next step's own."""
    table = Table(tmp_path, players=3)
    with steps.listings_kept():
        table.play_turn()  # the game's listing kept as its last step ended
        with steps.listings_kept():  # another process's steps
            table.play_turn()
        stray = table.gamedir / "turns" / "0001" / "left-by-hand.txt"
        stray.write_text("not the game's")
        table.play_turn()
    assert table.status()["turn"] == 4
    named = {rel for line in _named(table.gamedir) for rel in line[1]}
    assert "turns/0001/left-by-hand.txt" not in named
    doctor = run("doctor", table.gamedir)
    assert "turns/0001/left-by-hand.txt" in doctor.output
