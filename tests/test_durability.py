"""What a step writes lasts before its journal line makes it the game's, with one fsync per
folder rather than one per file (batch the fsyncs, keep the safety).

The order of the disk operations is recorded in the process that makes them: each rename, each
fsync of a file or a folder, and the journal's append.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from adjudicator.store import failpoint, usercache
from adjudicator.store import gamedir as store
from tests.helpers import Table, run


class Recorder:
    """The disk operations of one command on its game, in order (the user's cache folder, which
    is never the commit point, left out)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str]] = []
        self.written: dict[int, str] = {}
        """The event number of each rename of a file just written (a temporary file) into the
        game, with the file's inode."""
        cache = os.path.abspath(usercache.folder(""))
        real_replace, real_mkdir, real_fsync = os.replace, os.mkdir, os.fsync
        real_reached = failpoint.reached

        def replace(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
            real_replace(source, target, *args, **kwargs)
            if not os.path.abspath(target).startswith(cache):
                if str(source).endswith(".tmp"):
                    self.written[len(self.events)] = inode(os.stat(target))
                self.events.append(("rename", os.path.abspath(target)))

        def fsync(fd: int) -> None:
            real_fsync(fd)
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode):
                self.events.append(("fsync-file", inode(info)))
            elif stat.S_ISDIR(info.st_mode):
                self.events.append(("fsync-folder", os.readlink(f"/proc/self/fd/{fd}")))

        def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
            real_mkdir(path, *args, **kwargs)
            if not os.path.abspath(path).startswith(cache):
                self.events.append(("mkdir", os.path.abspath(path)))

        def reached(where: str) -> None:
            real_reached(where)
            if where == "journal":
                self.events.append(("journal", ""))

        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(os, "mkdir", mkdir)
        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(failpoint, "reached", reached)

    def check_each_rename_lasts_before_the_journal(self) -> None:
        """Every folder a file was renamed or a folder made in is fsynced after that and before
        the next line."""
        pending: set[str] = set()
        for kind, path in self.events:
            if kind in ("rename", "mkdir"):
                pending.add(os.path.dirname(path))
            elif kind == "fsync-folder":
                pending.discard(path)
            elif kind == "journal":
                assert not pending, f"renamed into, not fsynced before the journal: {pending}"

    def check_each_file_lasts_before_the_journal(self) -> None:
        """Every file written into the game is fsynced, before or after its rename, and before
        the next line."""
        synced: set[str] = set()
        pending: set[str] = set()
        for number, (kind, what) in enumerate(self.events):
            if number in self.written and self.written[number] not in synced:
                pending.add(self.written[number])
            elif kind == "fsync-file":
                synced.add(what)
                pending.discard(what)
            elif kind == "journal":
                assert not pending, f"written, not fsynced before the journal: {pending}"
                synced.clear()

    def lasts_by(self, rename: int, later: int) -> bool:
        """Whether the file renamed at event ``rename`` was fsynced by event ``later``."""
        return ("fsync-file", self.written[rename]) in self.events[:later]

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.events if k == kind)


def test_an_adjudication_fsyncs_each_folder_once_before_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=5)
    status = table.status()
    paths = [table.signed(p, table.legal(p), f"t1-{p}.yaml") for p in status["owed"]]
    assert run("submit", table.gamedir, *paths).exit_code == 0
    recorder = Recorder(monkeypatch)
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 0, result.output
    assert recorder.count("journal") == 1
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()
    # The state, the resolution, and every reader's view, in three folders, two of them new:
    # one fsync per folder, not one per file (and one for the marker).
    renames = recorder.count("rename")
    assert renames >= 9
    assert recorder.count("fsync-folder") <= 5


def test_the_marker_lasts_before_anything_the_step_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, table.legal(player), "order.yaml")
    recorder = Recorder(monkeypatch)
    assert run("submit", table.gamedir, path).exit_code == 0
    marker = os.path.abspath(table.gamedir / store.MARKER)
    root = os.path.abspath(table.gamedir)
    events = recorder.events
    first = events.index(("rename", marker))
    writes = [i for i, (kind, _) in enumerate(events) if kind in ("rename", "mkdir")]
    after = next(i for i in writes if i > first)
    assert ("fsync-folder", root) in events[first:after], "the marker's name lasts ..."
    assert recorder.lasts_by(first, after), "... and its bytes, before the step writes"
    assert all(kind != "rename" for kind, _ in events[:first])
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()


def test_a_rollback_plan_lasts_before_its_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    recorder = Recorder(monkeypatch)
    result = run("rollback", table.gamedir)
    assert result.exit_code == 0, result.output
    marker = os.path.abspath(table.gamedir / store.MARKER)
    root = os.path.abspath(table.gamedir)
    events = recorder.events
    plan = max(i for i, event in enumerate(events) if event == ("rename", marker))
    moves = [i for i, (kind, path) in enumerate(events) if kind == "rename" and path != marker]
    assert moves and min(moves) > plan
    assert ("fsync-folder", root) in events[plan : min(moves)], "the plan's name lasts ..."
    assert recorder.lasts_by(plan, min(moves)), "... and its bytes, before its moves"
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()


def inode(info: os.stat_result) -> str:
    return f"{info.st_dev}:{info.st_ino}"


def test_a_mail_written_to_the_outbox_lasts_before_it_is_moved_to_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without SMTP, delivery writes each mail to ``outbox/`` and moves it from the queue to
    ``sent/``; a step's recovery keeps a mail moved on its way out, so its copy lasts first."""
    table = Table(tmp_path, players=3)
    table.play_turn()
    recorder = Recorder(monkeypatch)
    assert run("send", table.gamedir).exit_code == 0
    events = recorder.events
    copies = [n for n in recorder.written if "/outbox/" in events[n][1]]
    moves = [n for n, (kind, path) in enumerate(events) if kind == "rename" and "/sent/" in path]
    assert copies and len(moves) == len(copies)
    for copy in copies:
        name = os.path.basename(events[copy][1])
        move = next(n for n in moves if os.path.basename(events[n][1]) == name)
        assert recorder.lasts_by(copy, move), f"{name} moved to sent/ before its copy lasted"
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()


def test_a_step_that_writes_many_files_keeps_few_of_them_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file's fsync waits for the next durable point with the file left open; past
    ``MOST_UNSYNCED`` of them, those open are fsynced (and closed) at once."""
    table = Table(tmp_path, players=5)
    status = table.status()
    paths = [table.signed(p, table.legal(p), f"t1-{p}.yaml") for p in status["owed"]]
    assert run("submit", table.gamedir, *paths).exit_code == 0
    monkeypatch.setattr(store, "MOST_UNSYNCED", 2)
    most = 0
    real = store.atomic_write

    def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True) -> None:
        nonlocal most
        real(path, data, sync_dir=sync_dir)
        most = max(most, len(store._unsynced))

    monkeypatch.setattr(store, "atomic_write", atomic_write)
    recorder = Recorder(monkeypatch)
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert most == 1, "never two left open"
    assert recorder.count("fsync-file") >= 9
    recorder.check_each_file_lasts_before_the_journal()
