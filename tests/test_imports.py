"""A command imports only what it needs: reading a game's data opens no schema, no
YAML parser, no templates, no signature code and no lock. The benchmark (benchmarks/read.py)
times them; this test checks what makes that reachable."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from adjudicator import demo
from tests.helpers import Table, run

HEAVY = ("pydantic", "yaml", "jinja2", "cryptography", "filelock", "PIL", "babel")

PROBE = """
import atexit, json, sys
heavy = set({heavy!r})
def said():
    print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & heavy)), file=sys.stderr)
atexit.register(said)
sys.argv = ["adjudicator", *{args!r}]
from adjudicator.cli import main
main()
"""


def loaded(*args: str) -> list[str]:
    """The heavy packages a run of ``adjudicator ARGS`` imported."""
    code = PROBE.format(heavy=HEAVY, args=list(args))
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tempfile.gettempdir(),  # not the source tree, which `-c` would put first on the path
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return found


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("games")
    return {
        name: demo.run(name, None, 1, tmp / name, lambda _line: None)
        for name in ("sultan", "sultans_court")
    }


def test_the_version_imports_nothing_heavy() -> None:
    assert loaded("--version") == []


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize(
    "command",
    [["status"], ["status", "--json"], ["view", "--player", "alice", "--json"], ["log"]],
    ids=["status", "status --json", "view --json", "log"],
)
def test_reading_a_games_data_opens_no_schema_parser_template_or_lock(
    games: dict[str, Path], game: str, command: list[str]
) -> None:
    assert loaded(command[0], str(games[game]), *command[1:]) == []


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize(
    "command",
    [["report", "--player", "alice"], ["report", "--gm"], ["view", "--player", "alice"]],
    ids=["report", "report --gm", "view"],
)
def test_a_report_shown_before_is_shown_again_without_templates(
    games: dict[str, Path], game: str, command: list[str]
) -> None:
    """The first time renders (Jinja, the texts' YAML); the second reads the rendered text
    from the user's cache folder (adjudicator/present/rendered.py)."""
    first = loaded(command[0], str(games[game]), *command[1:])
    assert "jinja2" in first
    assert loaded(command[0], str(games[game]), *command[1:]) == []


def test_a_form_shown_before_is_shown_again_without_templates(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    owed = next(iter(table.status()["owed"]))
    assert "jinja2" in loaded("form", str(table.gamedir), "--player", owed)
    assert loaded("form", str(table.gamedir), "--player", owed) == []


def test_checking_an_order_against_its_form_loads_no_signature_code(tmp_path: Path) -> None:
    """`check` verifies no signature: the cryptography is left unloaded."""
    table = Table(tmp_path, players=3)
    owed = next(iter(table.status()["owed"]))
    form = tmp_path / "form.yaml"
    form.write_text(run("form", table.gamedir, "--player", owed).output)
    order = table.write("order.yaml", table.order_text(owed, table.legal(owed)))
    found = loaded("check", str(order), "--form", str(form))
    assert "cryptography" not in found
    assert "pydantic" in found  # the order is checked as submit checks it
