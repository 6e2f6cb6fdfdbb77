"""What a step writes lasts before its journal line makes it the game's, with one fsync per
folder rather than one per file (batch the fsyncs, keep the safety).

The order of the disk operations is recorded in the process that makes them: each rename, each
fsync of a folder, and the journal's append.
"""

from __future__ import annotations

import os
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
        cache = os.path.abspath(usercache.folder(""))
        real_replace, real_mkdir = os.replace, os.mkdir
        real_fsync_dir, real_reached = store._fsync_dir, failpoint.reached

        def replace(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
            real_replace(source, target, *args, **kwargs)
            if not os.path.abspath(target).startswith(cache):
                self.events.append(("rename", os.path.abspath(target)))

        def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
            real_mkdir(path, *args, **kwargs)
            if not os.path.abspath(path).startswith(cache):
                self.events.append(("mkdir", os.path.abspath(path)))

        def fsync_dir(folder: Path | str) -> None:
            real_fsync_dir(folder)
            self.events.append(("fsync-folder", os.path.abspath(folder)))

        def reached(where: str) -> None:
            real_reached(where)
            if where == "journal":
                self.events.append(("journal", ""))

        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(os, "mkdir", mkdir)
        monkeypatch.setattr(store, "_fsync_dir", fsync_dir)
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
    assert events[first + 1] == ("fsync-folder", root)
    assert all(kind != "rename" for kind, _ in events[:first])
    recorder.check_each_rename_lasts_before_the_journal()


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
    assert events[plan + 1] == ("fsync-folder", root)
    moves = [i for i, (kind, path) in enumerate(events) if kind == "rename" and path != marker]
    assert moves and min(moves) > plan
    recorder.check_each_rename_lasts_before_the_journal()
