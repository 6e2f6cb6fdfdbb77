"""The demo's site made on another processor while the game is played: the same site, byte for
byte, as the site made of the finished game afterwards; a turn made from other files than the
site reads, or not made at all, is made again; the other process ends with the demo."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from adjudicator.present.site_early import _made as _REAL_MADE
from tests.test_site import _alive, _children, _ended, site_files


def _ready(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The turns each site took from the other process, as it takes them."""
    from adjudicator.present import site_early

    taken: list[list[int]] = []
    real = site_early.Ahead.ready

    def ready(self: Any, pages: Any, handle: Any) -> dict[int, dict[str, bytes]]:
        found = real(self, pages, handle)
        taken.append(sorted(found))
        return found

    monkeypatch.setattr(site_early.Ahead, "ready", ready)
    return taken


@pytest.mark.seconds  # three whole demos with their sites, each made twice
@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("sultan", {}),
        ("sultan", {"sealing": "commit-reveal", "press": "public", "absence": "default"}),
        ("sultans_court", {}),
    ],
)
def test_a_demos_site_made_as_it_is_played_is_the_site_made_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, options: dict[str, Any]
) -> None:
    from adjudicator import demo
    from adjudicator.present import site

    monkeypatch.setattr(site, "processors", lambda: 2)
    taken = _ready(monkeypatch)
    gamedir = demo.run(game, None, 3, tmp_path / "d", lambda _line: None, options=options)
    assert taken and taken[0], "the other process made turns while the game was played"
    monkeypatch.setattr(site, "PARALLEL", 10**9)  # made here alone, as if never made before
    assert site_files(tmp_path / "d" / "site") == site.build(gamedir)


def _finished(tmp_path: Path) -> Path:
    from adjudicator import demo

    return demo.run("sultan", 3, 2, tmp_path / "d", lambda _line: None, site=False)


def _finished_and_its_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, bytes]]:
    """A finished game and its site made afresh, here alone; after it, the site's pages may be
    shared with another processor."""
    from adjudicator.present import site

    gamedir = _finished(tmp_path)
    monkeypatch.setattr(site, "PARALLEL", 10**9)
    afresh = site.build(gamedir)
    monkeypatch.setattr(site, "processors", lambda: 2)
    return gamedir, afresh


def _made_ahead(gamedir: Path, out: Path, wait: bool = False) -> dict[int, bool]:
    """The site of the finished game at ``gamedir`` with every turn handed to another process
    first, as the demo hands them while it plays (``wait``: each made there before the site
    is made); whether the other process made each turn it began."""
    from concurrent.futures import wait as made

    from adjudicator.engine.open_game import OpenGame
    from adjudicator.present import site
    from adjudicator.present.site_early import Ahead

    ahead = Ahead(gamedir)
    try:
        ahead.opened(OpenGame(gamedir).turn() + 1)
        if wait:
            made(list(ahead._handed.values()))
        site.write(gamedir, out, ahead)
        return {t: f.exception() is None for t, f in ahead._handed.items() if f.done()}
    finally:
        ahead.close()


def _wrong(root: str, turn: int, stand_in: str) -> Any:
    """Pages that must not be used (each marked), each turn wrong in its own way: made from
    another view than the site's, from another game file, with a trace of the stand-in left;
    from the fourth turn on, not made (the other process fails)."""
    made = _REAL_MADE(root, turn, stand_in)
    for reader in made.pages:
        made.pages[reader] = made.pages[reader].replace("<body", "<body data-wrong")
    if turn == 1:
        first = next(iter(made.views))
        made.views[first] = "0" * 64
    elif turn == 2:
        made.meta = made.meta.replace('"id"', '"other"', 1)
    elif turn == 3:
        made.pages["public"] += f"<!-- {stand_in[30:50].upper()} -->"  # a slice, in capitals
    else:
        raise RuntimeError("the other process failed")
    return made


@pytest.mark.seconds  # a whole game, its site made three times
def test_a_turn_made_from_other_files_or_not_at_all_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages made from another view than the one the site reads, from other game facts, with a
    trace of the stand-in left where the head goes, or not made (the other process failed):
    each such turn is made by the site itself, and the site is the site made afresh."""
    from adjudicator.present import site_early

    gamedir, afresh = _finished_and_its_site(tmp_path, monkeypatch)
    monkeypatch.setattr(site_early, "_made", _wrong)  # the other process, forked, has it
    taken = _ready(monkeypatch)
    made = _made_ahead(gamedir, tmp_path / "s", wait=True)
    assert [made[turn] for turn in (1, 2, 3, 4)] == [True, True, True, False]
    assert taken == [[]], "no turn taken from the other process"
    assert site_files(tmp_path / "s") == afresh


@pytest.mark.seconds  # a whole game, its site made four times
def test_turns_made_ahead_are_the_turns_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each turn is made once: by the other process, or here when the other process had not
    begun it when the site was made; and the site is the same. Where this process runs a thread
    (forking it is unsafe) nothing is handed over and the site is made as always."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.present import site
    from adjudicator.present.site_early import Ahead
    from tests.test_site import made_turns

    gamedir, afresh = _finished_and_its_site(tmp_path, monkeypatch)
    taken = _ready(monkeypatch)
    here = made_turns(monkeypatch)
    last = OpenGame(gamedir).turn()
    _made_ahead(gamedir, tmp_path / "s", wait=True)
    assert taken == [list(range(1, last + 1))] and not any(here), "all made by the other"
    assert site_files(tmp_path / "s") == afresh
    taken.clear()
    _made_ahead(gamedir, tmp_path / "u")  # those not begun when the site is made: made here
    assert sorted(taken[0] + [turn for run in here for turn in run]) == list(range(1, last + 1))
    assert site_files(tmp_path / "u") == afresh
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        ahead = Ahead(gamedir)
        ahead.opened(last + 1)
        assert not ahead.used, "nothing forked beside a thread"
        site.write(gamedir, tmp_path / "t", ahead)
        ahead.close()
        assert site_files(tmp_path / "t") == afresh
    finally:
        stop.set()
        other.join()


_HELD_UNTIL: list[float] = []
"""When :func:`_held` stops waiting, set before the other process is forked (one moment for
all its turns: a failing run ends within a minute)."""


def _held(root: str, turn: int, stand_in: str) -> Any:
    """A turn's pages made as they are, but only once the site has taken back the turns not
    begun (a file ``held-open`` beside the game): the other process as far behind as a slow
    machine may leave it, whatever the load of this one."""
    gate = Path(root).parent / "held-open"
    while not gate.exists() and time.monotonic() < _HELD_UNTIL[-1]:
        time.sleep(0.01)
    return _REAL_MADE(root, turn, stand_in)


@pytest.mark.seconds  # a whole game, its site made twice, the other process slow on purpose
def test_the_site_takes_back_the_last_turns_the_other_process_has_not_begun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other process behind with its turns as the site is made: the site takes back those
    it has not begun, one at a time, the last first, while it makes the earliest. So the turns
    made here are the last ones, in that order, those made there the first ones, each made
    once; and the site is the same."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.present import site_early
    from tests.test_site import made_turns

    gamedir, afresh = _finished_and_its_site(tmp_path, monkeypatch)
    monkeypatch.setattr(site_early, "_made", _held)  # the other process, forked, has it
    monkeypatch.setattr(sys.modules[__name__], "_HELD_UNTIL", [time.monotonic() + 60])
    taken = _ready(monkeypatch)
    counted = site_early.Ahead.ready

    def ready(self: Any, pages: Any, handle: Any) -> dict[int, dict[str, bytes]]:
        (gamedir.parent / "held-open").touch()  # every turn not begun is taken back by now
        return counted(self, pages, handle)

    monkeypatch.setattr(site_early.Ahead, "ready", ready)
    here = made_turns(monkeypatch)
    last = OpenGame(gamedir).turn()
    _made_ahead(gamedir, tmp_path / "s")
    made_here = [turn for run in here for turn in run]
    there = len(taken[0])
    assert there >= 1 and made_here == list(range(last, there, -1)), (taken, here)
    assert taken[0] == list(range(1, there + 1))
    assert there < last / 2, "the site made most of the turns, the other process being slow"
    assert site_files(tmp_path / "s") == afresh


def _forked(pid: int) -> list[int]:
    """The processes ``pid`` forked (run as it was started: not ssh-keygen, which it runs)."""
    try:
        started = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    found = []
    for child in _children(pid):
        try:
            if Path(f"/proc/{child}/cmdline").read_bytes() == started:
                found.append(child)
        except OSError:
            continue
    return found


def _fails(parent: int) -> None:
    raise OSError("no process to be had")


@pytest.mark.seconds  # a whole game, its site made twice
def test_another_process_that_cannot_start_leaves_the_site_as_always(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other process fails as it starts (no memory, too many processes): nothing is
    handed over, and the site is made as always, the same."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.present import site
    from adjudicator.present.site_early import Ahead

    gamedir, afresh = _finished_and_its_site(tmp_path, monkeypatch)
    monkeypatch.setattr(site, "helping", _fails)
    ahead = Ahead(gamedir)
    ahead.opened(OpenGame(gamedir).turn() + 1)
    assert not ahead.used
    site.write(gamedir, tmp_path / "s", ahead)
    ahead.close()
    assert site_files(tmp_path / "s") == afresh


def _dies(root: str, turn: int, stand_in: str) -> Any:
    """The other process killed (by the kernel's out-of-memory killer, say) at the third turn."""
    if turn == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL_MADE(root, turn, stand_in)


@pytest.mark.seconds  # a whole demo with its site, and the site again
def test_the_other_process_killed_while_the_game_is_played_leaves_its_turns_to_the_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo plays on and the site makes what the other process did not: the same site."""
    from adjudicator import demo
    from adjudicator.present import site, site_early

    monkeypatch.setattr(site, "processors", lambda: 2)
    monkeypatch.setattr(site_early, "_made", _dies)  # the other process, forked, has it
    taken = _ready(monkeypatch)
    gamedir = demo.run("sultan", 3, 2, tmp_path / "d", lambda _line: None)
    assert taken and 3 not in taken[0]
    monkeypatch.setattr(site, "PARALLEL", 10**9)
    assert site_files(tmp_path / "d" / "site") == site.build(gamedir)


SLOW_DEMO = """
import sys, time
from adjudicator.present import site, site_early
site.processors = lambda: 2
real = site_early._made
def slow(*args):  # a large game's pages on a slow machine
    time.sleep(60)
    return real(*args)
site_early._made = slow
from adjudicator.cli import main
sys.argv = ["adjudicator", "demo", "sultan", "--players", "3", "--dir", sys.argv[1]]
main()
"""


def _started(command: list[str], folder: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """``command`` (a demo) started in a session of its own, once it has forked the process
    that makes its pages; and that process."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=folder,
    )
    with _ended(process, only_if_failed=True):
        deadline = time.monotonic() + 60
        others: list[int] = []
        while time.monotonic() < deadline and not others:
            time.sleep(0.05)
            others = _forked(process.pid)
        assert others, "another process makes pages"
    return process, others


@pytest.mark.seconds  # a demo whose other process is slow on purpose, interrupted
def test_a_demo_that_ignores_ctrl_c_keeps_its_other_process(tmp_path: Path) -> None:
    """A demo started with Ctrl-C ignored (in the background of a script, under ``nohup``):
    Ctrl-C to its process group ends neither it nor the process making its pages, and the
    demo ends as it would have (exit 0, its site made)."""
    script = SLOW_DEMO.replace("time.sleep(60)", "time.sleep(0.1)")
    ignoring = ['trap "" INT; exec "$0" -c "$1" "$2"', sys.executable, script, tmp_path / "d"]
    process, others = _started(["sh", "-c", *map(str, ignoring)], tmp_path)
    with _ended(process):
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.3)
        assert all(_alive(p) for p in others), "the other process ended on a Ctrl-C ignored"
        assert process.wait(timeout=120) == 0
    assert (tmp_path / "d" / "site" / "index.html").is_file()


@pytest.mark.seconds  # a demo whose other process is slow on purpose, stopped
@pytest.mark.parametrize("how", ["kill", "ctrl-c"])
def test_the_other_process_ends_with_the_demo(tmp_path: Path, how: str) -> None:
    """The demo killed (SIGKILL: no code of its own runs) or stopped by Ctrl-C (SIGINT to the
    process group, as a terminal sends it) while the other process makes pages: that process
    ends too; Ctrl-C ends the demo with exit 130."""
    process, others = _started([sys.executable, "-c", SLOW_DEMO, str(tmp_path / "d")], tmp_path)
    with _ended(process):
        if how == "kill":
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGINT)
        code = process.wait(timeout=60)
        if how == "ctrl-c":
            assert code == 130
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(_alive(p) for p in others):
            time.sleep(0.05)
        assert not any(_alive(p) for p in others), "a process left making pages for nobody"
