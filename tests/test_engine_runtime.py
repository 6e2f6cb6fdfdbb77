"""The game lock, the demo's determinism, and the installed command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from adjudicator import store
from tests.helpers import Table, run


def test_a_locked_game_refuses_with_exit_4_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    (player,) = table.status()["owed"]
    order = table.signed(player, table.legal(player))
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(table.gamedir / ".lock")):
        result = run("submit", table.gamedir, order)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {table.gamedir}: the game is locked by another command; try again\n"
    )
    assert table.status()["received"] == []


def test_same_seed_same_demo(tmp_path: Path) -> None:
    records = []
    for name in ("one", "two"):
        result = run("demo", "sultan", "--players", 3, "--seed", 42, "--dir", tmp_path / name)
        assert result.exit_code == 0, result.output
        assert "FINAL TABLE" in result.output
        records.append(json.loads(run("log", tmp_path / name / "game", "--json").output))
    assert records[0] == records[1]
    other = run("demo", "sultan", "--players", 3, "--seed", 43, "--dir", tmp_path / "three")
    assert other.exit_code == 0
    assert json.loads(run("log", tmp_path / "three" / "game", "--json").output) != records[0]


def test_demo_refuses_a_bad_player_count(tmp_path: Path) -> None:
    result = run("demo", "sultan", "--players", 6, "--dir", tmp_path / "d")
    assert result.exit_code == 2
    assert result.output == "Error: Sultan takes 2 to 5 players, not 6\n"


def installed_command() -> str:
    found = shutil.which("adjudicator") or str(Path(sys.executable).parent / "adjudicator")
    if not Path(found).exists():
        pytest.fail("the adjudicator command is not installed in this environment")
    return found


def test_installed_command_version_and_games() -> None:
    command = installed_command()
    done = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == "adjudicator, version 0.1.0\n"
    done = subprocess.run([command, "games"], capture_output=True, text=True, check=True)
    assert "sultan\t2-5 players\tSultan" in done.stdout


def test_installed_templates_are_found(tmp_path: Path) -> None:
    """The installed package carries its templates (not only an editable install)."""
    command = installed_command()
    done = subprocess.run(
        [command, "demo", "sultan", "--players", "2", "--seed", "1", "--dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "FINAL TABLE" in done.stdout
