"""`status` of a folder of games, as `tick` takes it: one line a game, and mail that waits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import Table, run

NOW = "2026-11-23T20:00:00+00:00"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two games side by side: cairo-2026 with its first reports queued (never sent), and
    giza-2026, whose reports went to the outbox, with a step cut short; and a folder of junk."""
    monkeypatch.setenv("ADJUDICATOR_NOW", NOW)
    games = tmp_path / "games"
    games.mkdir()
    one = Table(tmp_path / "one", players=3, schedule={"deadline": "48h"})
    two = Table(tmp_path / "two", players=3, game_id="giza-2026")
    shutil.move(one.gamedir, games / "cairo-2026")
    shutil.move(two.gamedir, games / "giza-2026")
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    assert run("send", games / "giza-2026", "--config", config).exit_code == 0
    down = tmp_path / "down.toml"  # nobody listens: the welcomes and reports stay queued
    down.write_text('[mail]\nfrom = "gm-bot@example.org"\n[smtp]\nhost = "127.0.0.1"\nport = 1\n')
    assert run("send", games / "cairo-2026", "--config", down).exit_code == 75
    (games / "giza-2026" / ".step").write_text('{"kind": "submit", "lines": 1}')
    (games / "notes").mkdir()
    return games


def test_status_of_a_folder_gives_one_line_a_game(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T23:00:00+00:00")
    result = run("status", folder)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 2, lines
    cairo, giza = lines
    assert cairo.startswith("cairo-2026: turn 1, waiting for ")
    # the clock waits for the mail: the deadline as it would be if the reports left now
    assert "deadline 2026-11-25 23:00 UTC (reports waiting to be sent)" in cairo
    assert "mail: 6 queued, the oldest for 3h" in cairo
    assert giza.startswith("giza-2026: turn 1, waiting for ")
    assert "deadline none" in giza and "queued" not in giza
    assert "problem: a submit step was cut short" in giza


def test_a_step_under_way_is_no_problem_in_the_status_of_a_folder(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another command holds the game's lock, its marker is that of a step under way,
    not one cut short: status said "problem" for a third of its runs beside busy commands."""
    from filelock import FileLock

    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T23:00:00+00:00")
    with FileLock(str(folder / "giza-2026" / ".lock")):
        result = run("status", folder)
    assert result.exit_code == 0, result.output
    assert "problem" not in result.output, result.output


def test_status_json_of_a_folder_is_a_list_of_each_games_object(folder: Path) -> None:
    result = run("status", folder, "--json")
    assert result.exit_code == 0, result.output
    games = json.loads(result.output)
    assert [g["id"] for g in games] == ["cairo-2026", "giza-2026"]
    single = json.loads(run("status", folder / "cairo-2026", "--json").output)
    assert games[0] == single
    assert single["queued"] == {"count": 6, "oldest": NOW}
    assert games[1]["queued"] is None
    assert games[1]["problems"] == [{"code": "doctor-step-cut-short", "params": {"kind": "submit"}}]


def test_a_game_that_cannot_be_read_is_a_line_of_its_own(folder: Path) -> None:
    (folder / "giza-2026" / "log.jsonl").write_text("not a journal\n")
    result = run("status", folder)
    assert result.exit_code == 0, result.output
    [cairo, giza] = result.output.splitlines()
    assert cairo.startswith("cairo-2026: turn 1")
    assert giza.startswith("giza-2026: problem: cannot be read (")
    assert "adjudicator doctor" in giza
    listed = json.loads(run("status", folder, "--json").output)
    assert listed[1]["id"] == "giza-2026"
    assert [p["code"] for p in listed[1]["problems"]] == ["status-unreadable"]


def test_a_game_whose_game_json_lost_its_fields_is_a_line_of_its_own(folder: Path) -> None:
    (folder / "giza-2026" / "game.json").write_text("{}")
    result = run("status", folder)
    assert result.exit_code == 0, result.output
    [cairo, giza] = result.output.splitlines()
    assert cairo.startswith("cairo-2026: turn 1")
    assert giza.startswith("giza-2026: problem: cannot be read (")


def test_a_folder_without_games_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run("status", tmp_path / "empty")
    assert result.exit_code == 2
    assert "no game in" in result.output


def test_doctor_names_queued_mail_and_its_age(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-24T01:00:00+00:00")
    result = run("doctor", folder / "cairo-2026")
    assert result.exit_code == 0, result.output
    assert "mail: 6 queued, the oldest for 5h (`adjudicator send` sends them)" in result.output


def test_status_of_one_game_says_what_mail_waits(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T20:40:00+00:00")
    lines = run("status", folder / "cairo-2026").output.splitlines()
    assert lines[-1] == "mail: 6 queued, the oldest for 40m (`adjudicator send` sends them)"
    giza = run("status", folder / "giza-2026").output.splitlines()
    assert giza[-1].startswith("problem: a submit step was cut short")


def test_doctor_of_a_folder_checks_every_game(folder: Path) -> None:
    """A game master's walk-through ran `doctor games` as `status games` and `tick games` run:
    it said the folder was no game directory (exit 3). It now checks each game, by name."""
    result = run("doctor", folder)
    assert result.exit_code == 3, result.output  # giza-2026 has a step cut short
    lines = result.output.splitlines()
    assert f"{folder / 'cairo-2026'}: agrees with its journal" in result.output
    assert "cairo-2026: mail: 6 queued" in lines[0]
    assert f"{folder / 'giza-2026' / '.step'}: a submit step was cut short" in result.output
    next((folder / "cairo-2026" / "turns").rglob("*.json")).unlink()  # named by the journal
    result = run("doctor", folder)
    assert result.exit_code == 3, result.output
    assert "named by the journal but missing" in result.output
    assert "agrees with its journal" not in result.output
