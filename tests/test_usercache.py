"""The user's cache folder holding what no command wrote there: a pipe, a device, a file far
larger than any entry, a folder where an entry goes. A command answers as it does with no cache,
at once and without a traceback, and leaves nothing behind it (adjudicator/store/usercache.py).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adjudicator.mail import idle
from adjudicator.store import usercache
from tests.helpers import Table

MEMORY = 2 * 2**30
"""The address space a command gets here: a command that reads a huge entry whole fails."""


def status(gamedir: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """``adjudicator status GAME --json`` in a new process with ``cache`` as its cache folder,
    its memory bounded, given a minute (in the game's folder: the package as installed, not a
    source tree in the folder the tests run in)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    code = "from adjudicator.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "status", str(gamedir), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=gamedir.parent,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY)),
    )


@pytest.mark.seconds
@pytest.mark.parametrize("planted", ["a pipe", "a link to a device", "a huge sparse file"])
def test_a_summary_entry_that_is_no_entry_is_read_as_none_kept(
    tmp_path: Path, planted: str
) -> None:
    table = Table(tmp_path, players=3)
    fresh = status(table.gamedir, tmp_path / "fresh")
    assert fresh.returncode == 0, fresh.stderr
    cache = tmp_path / "cache"
    assert status(table.gamedir, cache).returncode == 0
    (kept,) = (cache / "adjudicator" / "summary").iterdir()
    kept.unlink()
    if planted == "a pipe":  # read whole, it waits for a writer for ever
        os.mkfifo(kept)
    elif planted == "a link to a device":  # read whole, it never ends
        kept.symlink_to("/dev/zero")
    else:  # read whole, some gigabytes of zeros
        with kept.open("wb") as handle:
            handle.truncate(3 * 2**30)
    shown = status(table.gamedir, cache)
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, fresh.stdout, fresh.stderr)


def test_an_entry_larger_than_any_kept_is_neither_read_nor_written(tmp_path: Path) -> None:
    large = tmp_path / "large"
    with large.open("wb") as handle:
        handle.truncate(usercache.LARGEST + 1)
    assert usercache.read_file(large) is None
    small = tmp_path / "small"
    small.write_bytes(b"kept")
    assert usercache.read_file(small) == b"kept"
    assert usercache.write(tmp_path / "folder" / "entry", b"x" * usercache.LARGEST, keep=1) is False
    assert not (tmp_path / "folder" / "entry").exists()


def test_an_entry_that_cannot_be_written_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entry = usercache.folder("summary") / "game.bin"
    entry.mkdir(parents=True)  # a folder where the entry goes: it cannot replace it
    for _ in range(3):
        assert usercache.write(entry, b"what a command keeps", keep=1) is False
    assert sorted(p.name for p in entry.parent.iterdir()) == ["game.bin"]


def test_a_note_nested_past_any_depth_only_means_the_game_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note with a valid checksum whose JSON is nested deeper than Python reads (made by
    hand): tick opens the game, as with no note."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = Table(tmp_path, players=3)
    note = usercache.folder("idle") / f"{usercache.game_key(table.gamedir)}.json"
    deep = "[" * 100_000 + "]" * 100_000
    assert usercache.write(note, ('{"journal": ' + deep + ', "until": null}').encode(), keep=None)
    assert idle.sleeping([table.gamedir], datetime.now(UTC)) == {}
