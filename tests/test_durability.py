"""What a step writes lasts before its journal line makes it the game's, with one fsync per
folder rather than one per file (batch the fsyncs, keep the safety).

The order of the disk operations is recorded in the process that makes them: each rename, each
fsync of a file or a folder, and the journal's append.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

from adjudicator.store import failpoint, usercache
from adjudicator.store import gamedir as store
from tests.helpers import Table, run


class Recorder:
    """The disk operations of one command under ``root`` (its game, or a folder above it), in
    order (those elsewhere, and in the user's cache folder, which is never the commit point,
    left out)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
        self.events: list[tuple[str, str]] = []
        self.written: dict[int, str] = {}
        """The event number of each rename of a file just written (a temporary file) into the
        game, with the file's inode."""
        game = os.path.abspath(root) + os.sep
        cache = os.path.abspath(usercache.folder("")) + os.sep

        def recorded(path: Any) -> bool:
            where = os.path.abspath(path)
            return where.startswith(game) and not where.startswith(cache)

        real_replace, real_mkdir, real_fsync = os.replace, os.mkdir, os.fsync
        real_reached = failpoint.reached

        def replace(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
            real_replace(source, target, *args, **kwargs)
            if recorded(target):
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
            if recorded(path):
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
    table = adjudicable(tmp_path)
    recorder = Recorder(monkeypatch, table.gamedir)
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
    recorder = Recorder(monkeypatch, table.gamedir)
    assert run("submit", table.gamedir, path).exit_code == 0
    marker = os.path.abspath(table.gamedir / store.MARKER)
    root = os.path.abspath(table.gamedir)
    events = recorder.events
    first = events.index(("rename", marker))
    writes = [i for i, (kind, _) in enumerate(events) if kind in ("rename", "mkdir")]
    after = next(i for i in writes if i > first)
    assert recorder.lasts_by(first, first), "the marker's bytes last before its name"
    assert ("fsync-folder", root) in events[first:after], "which lasts before the step writes"
    assert all(kind != "rename" for kind, _ in events[:first])
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()


def test_a_rollback_plan_lasts_before_its_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    recorder = Recorder(monkeypatch, table.gamedir)
    result = run("rollback", table.gamedir)
    assert result.exit_code == 0, result.output
    marker = os.path.abspath(table.gamedir / store.MARKER)
    root = os.path.abspath(table.gamedir)
    events = recorder.events
    plan = max(i for i, event in enumerate(events) if event == ("rename", marker))
    moves = [i for i, (kind, path) in enumerate(events) if kind == "rename" and path != marker]
    assert moves and min(moves) > plan
    assert recorder.lasts_by(plan, plan), "the plan's bytes last before its name"
    assert ("fsync-folder", root) in events[plan : min(moves)], "which lasts before its moves"
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
    recorder = Recorder(monkeypatch, table.gamedir)
    assert run("send", table.gamedir).exit_code == 0
    events = recorder.events
    copies = [n for n in recorder.written if "/outbox/" in events[n][1]]
    moves = [n for n, (kind, path) in enumerate(events) if kind == "rename" and "/sent/" in path]
    assert copies and len(moves) == len(copies)
    for copy in copies:
        name = os.path.basename(events[copy][1])
        move = next(n for n in moves if os.path.basename(events[n][1]) == name)
        assert recorder.lasts_by(copy, copy), f"{name}: a copy recovery keeps, short"
        assert recorder.lasts_by(copy, move), f"{name} moved to sent/ before its copy lasted"
    recorder.check_each_rename_lasts_before_the_journal()
    recorder.check_each_file_lasts_before_the_journal()


def test_a_step_that_writes_many_files_keeps_few_of_them_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file's fsync waits for the next durable point with the file left open; past
    ``MOST_UNSYNCED`` of them, those open are fsynced (and closed) at once."""
    table = adjudicable(tmp_path)
    monkeypatch.setattr(store, "MOST_UNSYNCED", 2)
    most = 0
    real = store.atomic_write

    def atomic_write(path: Path, data: bytes, **options: bool) -> None:
        nonlocal most
        real(path, data, **options)
        most = max(most, len(store._unsynced))

    monkeypatch.setattr(store, "atomic_write", atomic_write)
    recorder = Recorder(monkeypatch, table.gamedir)
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert most == 1, "never two left open"
    assert recorder.count("fsync-file") >= 9
    recorder.check_each_file_lasts_before_the_journal()


def adjudicable(tmp_path: Path) -> Table:
    """A 5-player game whose first turn's orders are all in."""
    table = Table(tmp_path, players=5)
    paths = [table.signed(p, table.legal(p), f"t1-{p}.yaml") for p in table.status()["owed"]]
    assert run("submit", table.gamedir, *paths).exit_code == 0
    return table


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_disk_error_at_a_durable_point_commits_nothing_and_leaves_nothing_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An fsync that fails (EIO) while a step's files are made to last: the step ends with
    the error, after every other fsync is done, and no journal line; no file stays open and
    no thread runs; the next command moves the step's files aside."""
    table = adjudicable(tmp_path)
    log = (table.gamedir / store.LOG).read_bytes()
    real = os.fsync
    synced: list[str] = []

    def fsync(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if name.endswith("views/public.json"):
            raise OSError(errno.EIO, "Input/output error")
        real(fd)
        synced.append(name)

    monkeypatch.setattr(os, "fsync", fsync)
    before = open_files()
    with pytest.raises(OSError, match="Input/output error"):
        run("adjudicate", table.gamedir)
    assert open_files() == before and threading.active_count() == 1
    assert store._unsynced == [] and store._put_off == []
    assert sum(name.endswith("views/bob.json") for name in synced) == 1, "the others fsynced"
    monkeypatch.undo()
    assert (table.gamedir / store.LOG).read_bytes() == log
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert run("doctor", table.gamedir).exit_code == 0


def test_ctrl_c_at_a_durable_point_waits_until_every_fsync_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = adjudicable(tmp_path)
    real, real_together = os.fsync, store._sync_now
    together: list[list[int]] = []
    pressed: list[int] = []
    synced: list[tuple[int, int]] = []

    def fsync(fd: int) -> None:
        main = threading.current_thread() is threading.main_thread()
        if together and len(together[-1]) > 1 and not pressed and main:
            pressed.append(len(together) - 1)
            os.kill(os.getpid(), signal.SIGINT)  # pressed as fsyncs side by side begin
        real(fd)
        synced.append((len(together) - 1, fd))

    def side_by_side(fds: list[int]) -> None:
        together.append(list(fds))
        real_together(fds)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(store, "_sync_now", side_by_side)
    before = open_files()
    assert run("adjudicate", table.gamedir).exit_code == 130  # as Ctrl-C ends a command
    assert pressed, "pressed"
    done = {fd for call, fd in synced if call == pressed[0]}
    assert done == set(together[pressed[0]]), "every fsync side by side done, not the first"
    assert open_files() == before and threading.active_count() == 1
    assert store._unsynced == [] and store._put_off == []
    monkeypatch.undo()
    assert run("adjudicate", table.gamedir).exit_code == 0


def fsync_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name.startswith("fsync")}


def durable_point_of_new_files(folder: Path, count: int) -> None:
    with store.batched():
        for k in range(count):
            store.atomic_write(folder / f"file-{k}", b"x", step=True)


def test_a_processs_fsync_threads_are_kept_between_durable_points_and_a_forked_copy_starts_its_own(
    tmp_path: Path,
) -> None:
    """Starting a thread costs about what a small fsync does, and a demo reaches some 180
    durable points: the threads are started once and kept. A forked copy of the process has
    none of them (its first durable point starts its own), and a command ends them."""
    store.end_fsync_threads()
    started: set[threading.Thread] = set()
    for point in range(20):  # each fsyncs 6 files and their folder: 6 beside this thread
        durable_point_of_new_files(tmp_path / f"point-{point}", 6)
        started |= fsync_threads()
    assert sorted(os.listdir(tmp_path / "point-19")) == [f"file-{k}" for k in range(6)]
    # 120 groups handed to threads in all; how many threads the first point starts depends on
    # whether one is idle again before the next group (an fsync under eatmydata takes no time)
    assert 1 <= len(started) < store.SIDE_BY_SIDE, "kept, not started at each durable point"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12: fork with threads
        child = os.fork()
    if child == 0:  # pragma: no cover (the child)
        signal.alarm(30)  # a durable point that waits on a thread it does not have never ends
        durable_point_of_new_files(tmp_path / "child", 6)
        os._exit(0 if len(os.listdir(tmp_path / "child")) == 6 else 1)
    assert os.waitpid(child, 0)[1] == 0, "the child's durable point ended"
    table = adjudicable(tmp_path / "game")
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert not fsync_threads(), "a command ends them"


FORK_WHILE_ANOTHER_THREAD_STEPS = """
import os, sys, threading
from pathlib import Path
from adjudicator.store import gamedir as store
folder, stop = Path(sys.argv[1]), threading.Event()
def steps():
    while not stop.is_set():
        store._sync_now([os.open(folder, os.O_RDONLY) for _ in range(3)])
threading.Thread(target=steps, daemon=True).start()
for _ in range(300):
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
stop.set()
print("forked")
"""


def test_a_fork_while_another_thread_reaches_a_durable_point_does_not_hang(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", FORK_WHILE_ANOTHER_THREAD_STEPS, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and done.stdout == "forked\n", done.stderr


def test_a_thread_that_cannot_start_leaves_nothing_for_a_later_durable_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system out of threads (a limit on processes, say): the fsyncs are made here, each
    once, and none is left queued to be made later on a file number reused since."""
    store.end_fsync_threads()
    real_start, real_fsync = threading.Thread.start, os.fsync
    synced: list[str] = []

    def start(thread: threading.Thread) -> None:
        if thread.name.startswith("fsync"):
            raise RuntimeError("can't start new thread")
        real_start(thread)

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(threading.Thread, "start", start)
    monkeypatch.setattr(os, "fsync", fsync)
    durable_point_of_new_files(tmp_path / "first", 4)
    monkeypatch.setattr(threading.Thread, "start", real_start)
    files = [str(tmp_path / "first" / f"file-{k}") for k in range(4)]
    first = list(synced)
    assert len(first) == len(set(first)) and set(files) <= set(first), "each fsynced, once"
    durable_point_of_new_files(tmp_path / "second", 4)
    store.end_fsync_threads()
    later = synced[len(first) :]
    assert len(later) == len(set(later)), "each fsynced once"
    assert {str(tmp_path / "second" / f"file-{k}") for k in range(4)} <= set(later)
    assert not set(later) & {*files, str(tmp_path / "first")}, "nothing of the first again"


def test_an_error_of_another_kind_in_an_fsync_thread_leaves_no_file_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.fsync

    def fsync(fd: int) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("not a file the thread can fsync")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    before = open_files()
    with pytest.raises(ValueError, match="not a file the thread can fsync"):
        durable_point_of_new_files(tmp_path, 6)
    assert open_files() == before
    assert store._unsynced == [] and store._put_off == []


def test_a_durable_point_that_fails_at_a_steps_end_leaves_no_step_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``batched`` ends whatever its last durable point does: writes after it are fsynced at
    once, as outside any step."""

    def failing() -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(store, "durable_point", failing)
    with pytest.raises(OSError), store.batched():
        pass
    assert store._put_off == []


def test_a_new_file_left_short_by_a_power_cut_never_becomes_the_games(tmp_path: Path) -> None:
    """A step's new file is fsynced only at its journal line's durable point: killed just
    before that line, with a file it wrote cut to nothing (what a power cut may leave of a file
    renamed but not yet fsynced), the next command moves the file aside and the game is whole."""
    from tests.crashing import KILLED, fork_run, keep

    table = adjudicable(tmp_path)
    copy = tmp_path / "copy"
    keep(table.gamedir, copy)
    env: dict[str, str] = {}
    whole = fork_run(["adjudicate", str(copy)], env)
    assert whole.code == 0, whole.output
    at = whole.kinds.index("journal") + 1  # the last durable operation before the line
    killed = fork_run(["adjudicate", str(table.gamedir)], env, kill_at=at)
    assert killed.code == KILLED and killed.last == "journal"
    named = set(store.GameDir(table.gamedir).facts().files)
    written = [
        p
        for p in (table.gamedir / "turns").rglob("*.json")
        if p.relative_to(table.gamedir).as_posix() not in named
    ]
    assert written, "the step's files are there, unnamed"
    written[0].write_bytes(b"")  # left short
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 0, result.output
    assert run("doctor", table.gamedir).exit_code == 0
    discarded = list((table.gamedir / "discarded").rglob(written[0].name))
    assert discarded and discarded[0].read_bytes() == b"", "moved aside, as it was left"
