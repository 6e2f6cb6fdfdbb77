"""A place a command is told to write (a game folder, an archive, a site, a demo, an order
page) that the system will not write to: a name too long, a folder that is a file, a place that
takes no files, a pipe or device in its place. Each is a usage error naming the place (exit 2),
never a traceback, and a pipe or device is left as it was (a file renamed onto it would have
replaced it)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.helpers import Table, run


def _places(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "a-file").write_text("x")
    return {
        "a name too long": tmp_path / ("a" * 300),
        "inside a file": tmp_path / "a-file" / "x",
        "a place that takes no files": Path("/proc/adjudicator-nowhere"),
    }


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    return Table(tmp_path_factory.mktemp("game"))


COMMANDS = {
    "new": lambda t, out: ["new", out, "--setup", t.setup_path],
    "archive": lambda t, out: ["archive", t.gamedir, "-o", out],
    "site": lambda t, out: ["site", t.gamedir, "-o", out],
    "form --html": lambda t, out: [
        "form",
        t.gamedir,
        "--player",
        t.status()["waiting_for"][0],
        "--html",
        out,
    ],
    "demo": lambda t, out: ["demo", "sultan", "--players", "2", "--no-site", "--dir", out],
}


PLACES = ["a name too long", "inside a file", "a place that takes no files"]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_place_that_cannot_be_written_is_a_usage_error(
    tmp_path: Path, table: Table, command: str, place: str
) -> None:
    out = _places(tmp_path)[place]
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run(*COMMANDS[command](table, out))
    assert result.exit_code == 2, (result.output, result.exception)
    assert str(out)[:60] in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == before


@pytest.mark.parametrize("command", ["archive", "form --html"])
def test_a_pipe_in_the_place_of_a_file_is_left_as_it_is(
    tmp_path: Path, table: Table, command: str
) -> None:
    out = tmp_path / "a-pipe"
    os.mkfifo(out)
    result = run(*COMMANDS[command](table, out))
    assert result.exit_code == 2, (result.output, result.exception)
    assert "not a regular file" in result.output
    assert stat.S_ISFIFO(out.lstat().st_mode)


def test_the_join_page_in_the_place_of_a_pipe_is_not_written(tmp_path: Path) -> None:
    """``open --page`` opens the game all the same and says the page was not written, as for
    a page that cannot be written; the pipe stays a pipe. So for a page inside a file."""
    from tests.test_signup import OpenTable

    table = OpenTable(tmp_path)
    page = tmp_path / "a-pipe"
    os.mkfifo(page)
    (tmp_path / "a-file").write_text("x")
    for number, where in enumerate([page, tmp_path / "a-file" / "page.html"]):
        gamedir = tmp_path / f"game-{number}"
        command = ["open", gamedir, "--setup", table.setup_path, "--config", table.config]
        result = run(*command, "--page", where)
        assert result.exit_code == 0, (result.output, result.exception)
        assert "the join page could not be written" in result.output
        assert (gamedir / "game.json").is_file()
    assert stat.S_ISFIFO(page.lstat().st_mode)
