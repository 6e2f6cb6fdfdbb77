"""`tick` over many games opens only those that may have something due: after it has
done all a game asked, a note outside the game says until when nothing can fall due; a change
to the journal or that instant wakes the game (adjudicator/mail/idle.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import Table, run

START = "2026-11-27T12:00:00+00:00"


def tick(folder: Path, config: Path) -> tuple[int, str]:
    result = run("tick", folder, "--config", config)
    return result.exit_code, result.output


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Table, Path, Path]:
    """Three copies of one game with a 48-hour deadline and a reminder 24 hours before it, in
    one folder, their first reports sent."""
    monkeypatch.setenv("ADJUDICATOR_NOW", START)
    table = Table(tmp_path, players=3, schedule={"deadline": "48h", "reminders": ["24h"]})
    config = tmp_path / "no-mail.toml"
    config.write_text("")
    folder = tmp_path / "games"
    folder.mkdir()
    for name in ("a", "b", "c"):
        shutil.copytree(table.gamedir, folder / name)
    code, output = tick(folder, config)
    assert code == 0, output
    return table, folder, config


@pytest.mark.seconds
def test_a_sleeping_game_is_not_opened_until_its_next_instant(
    games: tuple[Table, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, folder, config = games
    state = folder / "b" / "turns" / "0001" / "state.json"
    kept = state.read_bytes()
    state.write_text("not a state")  # opening game b would now fail
    assert tick(folder, config) == (0, "")
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-28T11:59:59+00:00")  # the reminder: 12:00
    assert tick(folder, config) == (0, "")
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-28T12:00:01+00:00")
    code, output = tick(folder, config)
    assert code == 75, output  # b was opened: its reminder fell due
    assert "turns/0001/state.json no longer holds what the journal named" in output
    state.write_bytes(kept)
    code, output = tick(folder, config)
    assert code == 0, output
    assert "b: reminded carol" not in output  # (every copy has the id cairo-2026)
    assert output.count("reminded carol (24h before the deadline)") == 1


@pytest.mark.seconds
def test_a_change_to_the_journal_wakes_a_sleeping_game(games: tuple[Table, Path, Path]) -> None:
    table, folder, config = games
    table.gamedir = folder / "a"
    view = table.view("carol")
    order = table.signed("carol", {"return": view["drawn"][0]}, "carol.yaml")
    assert run("submit", table.gamedir, order).exit_code == 0
    code, output = tick(folder, config)
    assert code == 0, output
    assert "cairo-2026: adjudicated turn 1" in output
    assert json.loads(run("status", folder / "a", "--json").output)["turn"] == 2
    assert json.loads(run("status", folder / "b", "--json").output)["turn"] == 1


def test_a_step_cut_short_wakes_a_sleeping_game(games: tuple[Table, Path, Path]) -> None:
    _, folder, config = games
    (folder / "c" / ".step").write_text('{"kind": "submit", "lines": 0}')
    code, output = tick(folder, config)
    assert code == 0, output
    assert not (folder / "c" / ".step").exists()  # opened, and the step discarded


def test_a_game_json_changed_by_hand_wakes_a_sleeping_game(
    games: tuple[Table, Path, Path],
) -> None:
    """The file a game master is likeliest to edit by hand (to mend an address, say): tick
    opens the game at once and says what is wrong, as it does with no note kept."""
    _, folder, config = games
    meta = folder / "a" / "game.json"
    meta.write_text(meta.read_text().replace("alice@example.org", "mallory@example.org"))
    code, output = tick(folder, config)
    assert code == 75, output
    assert "game.json no longer holds what the journal named" in output


def _told_subjects(tmp: Path, monkeypatch: pytest.MonkeyPatch, notes: bool) -> list[str]:
    """The subjects of what a tick tells the game master of a folder that cannot be read,
    beside a game in German that sleeps (``notes``) or is opened (each tick with a new cache)."""
    import email

    monkeypatch.setenv("ADJUDICATOR_NOW", START)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp / "data"))  # where the notices are queued
    table = Table(tmp, players=3, schedule={"deadline": "48h", "lang": "de"})
    config = tmp / "mail.toml"
    config.write_text('[mail]\ngm = "gm@example.org"\n')
    folder = tmp / "games"
    folder.mkdir()
    shutil.copytree(table.gamedir, folder / "a")
    assert tick(folder, config)[0] == 0  # a's reports sent; a sleeps until its deadline
    (folder / "z").mkdir()
    (folder / "z" / "game.json").write_text("{ not json")
    if not notes:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp / "another-cache"))
    assert tick(folder, config)[0] == 75  # z left for a later run, and told
    return [
        str(email.message_from_bytes(path.read_bytes())["Subject"])
        for path in sorted((tmp / "data").rglob("outbox/*.eml"))
    ]


def test_the_game_master_is_told_in_the_same_words_whether_games_sleep_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game master is told in the first game's language: a game that sleeps is not
    opened, and its note keeps its language, so notes kept or not tell it alike."""
    kept = _told_subjects(tmp_path / "kept", monkeypatch, notes=True)
    fresh = _told_subjects(tmp_path / "fresh", monkeypatch, notes=False)
    assert len(kept) == 1 and "Spielordner" in kept[0]
    assert kept == fresh
