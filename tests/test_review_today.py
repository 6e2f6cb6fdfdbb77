"""The second review of the day: `adjudicate --preview`, `demo --option` and ruling P23.

Each test is a bug found by trying to break what landed; see the review's report.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from adjudicator.store import gamedir as store
from tests.helpers import Table, run
from tests.test_preview import fixed_time_and_own_temp, snapshot

__all__ = ["fixed_time_and_own_temp"]  # the fixture, shared with test_preview.py


# -- adjudicate --preview ------------------------------------------------------------------------
def test_a_preview_writes_nothing_through_a_link_in_the_game(tmp_path: Path) -> None:
    """A game whose journal is a link to a file kept elsewhere (a game the commands otherwise run
    as usual): the copy kept the link, so the preview appended its `adjudicated` line to the
    game's real journal, and the game was broken (its journal named files it does not have)."""
    table = Table(tmp_path)
    journal = tmp_path / "journal-kept-elsewhere.jsonl"
    (table.gamedir / "log.jsonl").rename(journal)
    (table.gamedir / "log.jsonl").symlink_to(journal)
    before = journal.read_bytes()
    result = run("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 0, result.output
    assert journal.read_bytes() == before
    assert run("status", table.gamedir).exit_code == 0
    assert run("doctor", table.gamedir).exit_code == 0


def test_a_preview_writes_nothing_into_a_linked_folder(tmp_path: Path) -> None:
    table = Table(tmp_path)
    kept = tmp_path / "turns-kept-elsewhere"
    (table.gamedir / "turns").rename(kept)
    (table.gamedir / "turns").symlink_to(kept)
    before = snapshot(kept)
    run("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert snapshot(kept) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_the_game_is_no_crash(tmp_path: Path) -> None:
    """The real adjudication leaves a pipe in the game alone; the preview's copy crashed on it."""
    table = Table(tmp_path)
    os.mkfifo(table.gamedir / "notes.fifo")
    result = run("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 0, result.output


def test_a_preview_refused_for_a_damaged_notice_names_the_game_not_its_copy(
    tmp_path: Path,
) -> None:
    """The refusal that `adjudicate` gives (a notice file the journal names was changed) came
    from the preview naming the private copy, a folder already gone, as the game to run
    `doctor` on: a refusal worded as data (not text) was not told as of the game."""
    table = Table(tmp_path, absence="extend", schedule={"deadline": "48h"})
    away = table.notice("bob", "absence:\n  from: 2026-11-28\n  to: 2026-11-28\n", "away.yaml")
    assert run("absence", table.gamedir, away).exit_code == 0
    [kept] = (table.gamedir / "notices").rglob("*.yaml")
    kept.write_text("absence: changed\n")
    real = run("adjudicate", table.gamedir, "--default-missing")
    said = f"Error: {table.gamedir}: notices/absence/0001.yaml no longer holds what the journal"
    assert real.exit_code == 4 and said in real.output
    before = snapshot(table.gamedir)
    result = run("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 4, result.output
    assert result.output == real.output
    assert snapshot(table.gamedir) == before


@pytest.mark.parametrize("failing", ["every file", "one file"])
def test_a_full_temporary_folder_is_a_message_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    """No room for the private copy: a clear message naming the game (exit 4), not a traceback
    (when the first file that does not fit is the only one, too)."""
    table = Table(tmp_path)
    before = snapshot(table.gamedir)
    real_copy = shutil.copy2

    def full(source: str, target: str, *args: object, **kwargs: object) -> object:
        if failing == "one file" and not target.endswith("game.json"):
            return real_copy(source, target)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), target)

    monkeypatch.setattr(shutil, "copy2", full)
    result = invoke("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 4, (result.output, result.exception)
    assert str(table.gamedir) in result.output
    assert "No space left on device" in result.output
    assert snapshot(table.gamedir) == before
    assert list(Path(tempfile.gettempdir()).iterdir()) == []


def test_a_temporary_folder_that_fills_while_the_copy_is_adjudicated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy was made, but the adjudication's first write into it finds the disk full:
    the same message naming the game (exit 4), not a traceback."""
    table = Table(tmp_path)
    before = snapshot(table.gamedir)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the copy itself is not synced; the step's writes are
    result = invoke("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 4, (result.output, result.exception)
    copy = f"{tempfile.gettempdir()}/adjudicator-preview-"  # the copy, where the disk is full
    assert re.fullmatch(
        re.escape(
            f"Error: {table.gamedir}: cannot preview: no private copy of the game could be made "
            f"in the temporary folder (No space left on device: {copy}"
        )
        + r"\w+/game"
        + re.escape("); nothing was changed (give another folder with TMPDIR)\n"),
        result.output,
    ), result.output
    assert snapshot(table.gamedir) == before


def test_a_temporary_folder_that_is_gone_is_a_message_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    result = invoke("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 4, (result.output, result.exception)
    assert str(table.gamedir) in result.output


def test_a_game_whose_lock_cannot_be_made_is_a_message_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game directory that cannot be written (a read-only mount, say): the lock file cannot
    be opened, and the preview (like every command that takes the lock) ended in a traceback."""
    from filelock import UnixFileLock

    table = Table(tmp_path)

    def read_only(self: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(table.gamedir / ".lock"))

    monkeypatch.setattr(UnixFileLock, "_acquire", read_only)
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.05)
    result = invoke("adjudicate", table.gamedir, "--preview", "--default-missing")
    assert result.exit_code == 4, (result.output, result.exception)
    assert str(table.gamedir) in result.output
    assert "Read-only file system" in result.output


def invoke(*args: str | Path) -> Result:
    """`run`, but a crash is exit 1 (its exception in ``result.exception``), not raised."""
    from adjudicator.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args])


# -- demo --option -------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", ["max_rounds=\udcff", "\udcff=1", "a\udcffb=1"])
def test_an_option_that_is_not_utf8_is_refused_by_name(tmp_path: Path, pair: str) -> None:
    """Bytes that are not UTF-8 on the command line (Python hands them over as lone surrogates):
    UnicodeEncodeError, or IndexError in the options' check, instead of a usage error."""
    result = invoke("demo", "sultan", "--dir", tmp_path / "demo", "--option", pair)
    assert result.exit_code == 2, (result.output, result.exception)
    assert "--option" in result.output and "UTF-8" in result.output
    assert not (tmp_path / "demo").exists()


def test_adjudicate_in_a_game_with_a_linked_folder(tmp_path: Path) -> None:
    table = Table(tmp_path)
    kept = tmp_path / "turns-kept-elsewhere"
    (table.gamedir / "turns").rename(kept)
    (table.gamedir / "turns").symlink_to(kept)
    before = sorted(p.name for p in kept.rglob("*"))
    result = invoke("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 2, (result.output, result.exception)
    assert "this folder of the game is a link to another place" in result.output
    assert sorted(p.name for p in kept.rglob("*")) == before  # nothing written through it
