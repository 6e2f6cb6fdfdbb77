"""A disk that fills while a command writes: the command says so (exit 4), naming the game, and
changes nothing that counts; once there is room again the next command goes on as if it never
ran.

The disk is made full here by the program's own failpoints (``adjudicator/store/failpoint.py``):
at the N-th place where it writes a file or appends to the journal, the system's refusal
(``ENOSPC``) is raised there, before the write, as a full disk raises it. A full file system made
for the test would need the right to mount one; the same refusals were seen on a small tmpfs
filled by hand, and these tests hold what that showed.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from adjudicator.store import failpoint
from tests.helpers import Table, run

FULL = os.strerror(errno.ENOSPC)
WRITES = ("write", "written", "journal")
"""The failpoints where a full disk refuses: a file begun or its bytes written, a journal line
appended (a rename or a move needs no room)."""


def full_at(monkeypatch: pytest.MonkeyPatch, n: int) -> Callable[[], int]:
    """From now on the disk is full at the ``n``-th write (counted from 1); returns how many
    writes were reached."""
    count = 0

    def reached(where: str) -> None:
        nonlocal count
        if where in WRITES:
            count += 1
            if count >= n:
                raise OSError(errno.ENOSPC, FULL)

    monkeypatch.setattr(failpoint, "reached", reached)
    return lambda: count


def writes_of(monkeypatch: pytest.MonkeyPatch, command: Callable[[], object]) -> int:
    """How many writes ``command`` reaches with room enough."""
    with monkeypatch.context() as patch:
        counted = full_at(patch, 10**9)
        command()
        return counted()


def doctor_agrees(gamedir: Path) -> None:
    result = run("doctor", gamedir)
    assert result.exit_code == 0, result.output


def test_a_new_cut_short_by_a_full_disk_is_made_once_there_is_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `new` whose disk filled moved what it had written aside itself; the next `new` moved
    what was left into the same folder under `discarded/`, which held it already, and failed so
    for ever (exit 2), whatever room there was."""
    table = Table(tmp_path / "first")
    writes = writes_of(
        monkeypatch, lambda: run("new", tmp_path / "count", "--setup", table.setup_path)
    )
    assert writes > 3
    for n in range(1, writes + 1):
        gamedir = tmp_path / f"game-{n}"
        with monkeypatch.context() as patch:
            full_at(patch, n)
            cut = run("new", gamedir, "--setup", table.setup_path)
        assert cut.exit_code == 4, (n, cut.output)
        assert FULL in cut.output and "is full" in cut.output, cut.output
        made = run("new", gamedir, "--setup", table.setup_path)
        assert made.exit_code == 0, (n, made.output)
        doctor_agrees(gamedir)


@pytest.mark.parametrize("command", ["submit", "adjudicate", "pause", "extend"])
def test_a_full_disk_is_said_and_the_next_command_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Each of these ended in a traceback (exit 1) on a full disk. Now: exit 4, the game named;
    with room again the same command does its work once."""
    table = Table(tmp_path)
    owed = table.status()["waiting_for"]
    orders = [table.signed(p, table.legal(p)) for p in owed]
    args = {
        "submit": [*orders[:1]],
        "adjudicate": ["--default-missing"],
        "pause": [],
        "extend": ["--by", "24h"],
    }[command]
    if command == "extend":
        table = _with_deadline(tmp_path / "timed")
    pristine = tmp_path / "pristine"
    _copy(table.gamedir, pristine)
    writes = writes_of(monkeypatch, lambda: run(command, table.gamedir, *args))
    assert writes > 0
    for n in range(1, writes + 1):
        _copy(pristine, table.gamedir)
        with monkeypatch.context() as patch:
            full_at(patch, n)
            cut = run(command, table.gamedir, *args)
        assert cut.exit_code == 4, (n, cut.output)
        assert f"{table.gamedir}" in cut.output and FULL in cut.output, cut.output
        assert "is full" in cut.output and "Traceback" not in cut.output
        again = run(command, table.gamedir, *args)
        assert again.exit_code == 0, (n, again.output)
        doctor_agrees(table.gamedir)
        log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
        kinds = [entry["type"] for entry in log if entry["type"] != "recovered"]
        assert len(kinds) == 2, (n, kinds)  # created, and the command's line once


def test_send_says_a_full_disk_is_full_not_that_the_game_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    full_at(monkeypatch, 1)
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    assert f"cairo-2026: left for a later run: {table.gamedir}: {FULL}: " in result.output
    assert "is full" in result.output and "cannot be read" not in result.output


def _with_deadline(root: Path) -> Table:
    return Table(root, schedule={"deadline": "48h"})


def _copy(source: Path, target: Path) -> None:
    import shutil

    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, symlinks=True)
