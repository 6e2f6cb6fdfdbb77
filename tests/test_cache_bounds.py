"""Each folder of the user's cache folder keeps a bounded number of entries: a new entry makes
those used longest ago go (written or read), a file left behind by a process killed while it
wrote one goes once it is an hour old, and nothing else is touched
(adjudicator/store/usercache.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

import jinja2
import pytest

from adjudicator.present import catalogs, rendered
from adjudicator.store import summary, usercache
from tests.helpers import run

HOUR = 3600


def _render(head: str | None) -> str:
    return f"chain head #{(head or '-')[:32]}\n"


def aged(path: Path, seconds: float, data: bytes | None = None) -> Path:
    """``path`` (written with ``data`` first, when given) with its modification time ``seconds``
    ago."""
    if data is not None:
        path.write_bytes(data)
    when = time.time() - seconds
    os.utime(path, (when, when))
    return path


def entries(folder: Path, suffix: str) -> set[str]:
    return {
        p.name
        for p in folder.iterdir()
        if p.name.endswith(suffix) and not p.is_symlink() and p.is_file()
    }


def key(n: int | str) -> str:
    """A key as the cache names its entries by: hex digits."""
    return hashlib.sha256(str(n).encode()).hexdigest()


def as_a_new_process() -> None:
    """Forget what this process read and pruned, as the next command's process has not."""
    summary._KEPT.clear()
    usercache._PRUNED.clear()


def test_prune_leaves_the_newest_entries_and_removes_old_temporary_files_alone(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "summary"
    folder.mkdir()
    for n in range(6):  # the first written longest ago
        aged(folder / f"{key(n)}.bin", 60 - n, b"kept")
    ours = aged(folder / f".{key(9)}.bin.4242.tmp", 2 * HOUR, b"half written")
    jinjas = aged(folder / f"__jinja2_{key(9)}.cachex1y2.tmp", 2 * HOUR, b"half written")
    young = aged(folder / f".{key(8)}.bin.4343.tmp", 0, b"being written")
    (folder / f"{key('folder')}.bin").mkdir()
    elsewhere = aged(tmp_path / f"{key('elsewhere')}.bin", 2 * HOUR, b"not the cache's")
    (folder / f"{key('link')}.bin").symlink_to(elsewhere)
    others = [
        aged(folder / name, 2 * HOUR, b"the user's")
        for name in ("notes.bin", "README", "backup.tmp", f"{key(7).upper()}.bin")
    ]

    usercache.prune(folder, 3, ".bin")

    assert entries(folder, ".bin") == {f"{key(n)}.bin" for n in (3, 4, 5)} | {
        "notes.bin",
        f"{key(7).upper()}.bin",
    }
    assert not ours.exists() and not jinjas.exists()
    assert young.exists()
    assert (folder / f"{key('folder')}.bin").is_dir()
    assert (folder / f"{key('link')}.bin").is_symlink()
    assert elsewhere.read_bytes() == b"not the cache's"
    assert all(other.read_bytes() == b"the user's" for other in others)  # no entry's names


def test_the_entry_just_written_stays_whatever_its_time(tmp_path: Path) -> None:
    """On a disk whose times are coarse, the entry just written may bear the same time as
    one before it: it is the one kept."""
    folder = tmp_path / "rendered"
    first, then = sorted([f"{key(1)}.txt", f"{key(2)}.txt"], reverse=True)  # then sorts first
    assert usercache.write(folder / first, b"older", keep=None)
    assert usercache.write(folder / then, b"newer", keep=None)
    same = (folder / first).stat().st_mtime_ns
    os.utime(folder / then, ns=(same, same))
    usercache.prune(folder, 1, ".txt", then)
    assert entries(folder, ".txt") == {then}


def test_an_entry_read_since_stays_before_one_written_after_it(tmp_path: Path) -> None:
    """A folder keeps the entries used last: the summary of a game read every day stays,
    while one written later and never read again goes first."""
    folder = tmp_path / "summary"
    named = [f"{key(n)}.bin" for n in range(3)]
    for n, name in enumerate(named):  # the first written longest ago
        assert usercache.write(folder / name, f"game {n}".encode(), keep=None)
        aged(folder / name, 2 * HOUR - n)
    assert usercache.read(folder / named[0]) == b"game 0"
    aged(folder / named[2], HOUR / 2)  # read within the hour of its time: its time stays
    assert usercache.read(folder / named[2]) == b"game 2"
    assert time.time() - (folder / named[2]).stat().st_mtime > HOUR / 2 - 60
    usercache.prune(folder, 2, ".bin")
    assert entries(folder, ".bin") == {named[0], named[2]}
    assert usercache.read(folder / f"{key('none')}.bin") is None  # nothing to read: no file made
    assert entries(folder, ".bin") == {named[0], named[2]}


def test_a_template_compiled_long_ago_and_used_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled template loaded again bears the time it was loaded: those of an older
    program, never loaded again, go first."""
    monkeypatch.setattr(catalogs, "KEPT_TEMPLATES", 2)
    cache = catalogs._bytecode_cache()
    assert cache is not None
    folder = usercache.folder("templates")
    loader = jinja2.DictLoader({"used.j2": "{{ x }} used", "old.j2": "{{ x }} old"})
    env = jinja2.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    for name in ("used.j2", "old.j2"):
        env.get_template(name)
    for n, kept in enumerate(sorted(folder.glob("*.cache"))):
        aged(kept, 2 * HOUR + n)
    before = entries(folder, ".cache")
    fresh = jinja2.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    assert fresh.get_template("used.j2").render(x=1) == "1 used"  # loaded from the cache
    used = {p.name for p in folder.glob("*.cache") if time.time() - p.stat().st_mtime < HOUR}
    assert len(used) == 1 and used < before
    as_a_new_process()
    later = jinja2.DictLoader({"new.j2": "{{ x }} new"})
    newer = jinja2.Environment(loader=later, bytecode_cache=cache, autoescape=True)
    assert newer.get_template("new.j2").render(x=2) == "2 new"
    assert used < entries(folder, ".cache") and len(entries(folder, ".cache")) == 2


def test_a_folder_that_is_a_link_is_not_pruned(tmp_path: Path) -> None:
    """A cache folder swapped for a link to another place: nothing there is removed."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for n in range(4):
        aged(elsewhere / f"{key(n)}.bin", 60 - n, b"precious")
    (tmp_path / "summary").symlink_to(elsewhere)
    usercache.prune(tmp_path / "summary", 1, ".bin")
    assert len(entries(elsewhere, ".bin")) == 4
    usercache.prune(tmp_path / "no such folder", 1, ".bin")  # nothing to read: nothing done


def test_the_first_entry_a_process_adds_to_a_folder_makes_the_oldest_go(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    named = [f"{key(n)}.json" for n in range(6)]
    for n in range(3):
        as_a_new_process()
        assert usercache.write(folder / named[n], b"{}", keep=5)
        aged(folder / named[n], 60 - n)
    as_a_new_process()
    assert usercache.write(folder / named[0], b"[]", keep=1)  # written over: none goes
    assert entries(folder, ".json") == set(named[:3])
    aged(folder / named[0], 60)
    assert usercache.write(folder / named[3], b"{}", keep=2)
    assert entries(folder, ".json") == {named[2], named[3]}
    assert usercache.read(folder / named[3]) == b"{}"
    assert usercache.write(folder / named[4], b"{}", keep=2)  # pruned once a process
    assert entries(folder, ".json") == {named[2], named[3], named[4]}
    as_a_new_process()
    assert usercache.write(folder / named[5], b"{}", keep=None)  # not pruned
    assert entries(folder, ".json") == set(named[2:])


def test_a_command_that_adds_many_entries_reads_the_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tick over a folder of a thousand new games adds a thousand idle notes: the notes'
    folder is read once, not once for each."""
    pruned: list[Path] = []
    monkeypatch.setattr(usercache, "prune", lambda folder, *_: pruned.append(folder))
    as_a_new_process()
    for n in range(50):
        assert usercache.write(tmp_path / "idle" / f"{key(n)}.json", b"{}", keep=10)
    assert pruned == [tmp_path / "idle"]


def test_the_summaries_of_the_games_played_last_are_kept(
    finished: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user who plays demo after demo keeps the summaries of the last few; a game whose
    summary went is read from its first line again, and answers as before."""
    monkeypatch.setattr(summary, "KEPT_GAMES", 2)
    source, _ = finished
    games = []
    for n in range(4):
        copy = tmp_path / f"game-{n}"
        shutil.copytree(source, copy, symlinks=True)
        games.append(copy)
    first = run("status", games[0], "--json")
    assert first.exit_code == 0, first.output
    folder = usercache.folder("summary")
    for n, game in enumerate(games):
        as_a_new_process()
        result = run("status", game, "--json")
        assert result.exit_code == 0, result.output
        assert result.output == first.output.replace(str(games[0]), str(game))
        aged(folder / f"{usercache.game_key(game)}.bin", 60 - n)  # written in turn
    assert entries(folder, ".bin") == {f"{usercache.game_key(g)}.bin" for g in games[2:]}
    as_a_new_process()
    again = run("status", games[0], "--json")
    assert again.output == first.output
    assert f"{usercache.game_key(games[0])}.bin" in entries(folder, ".bin")
    assert len(entries(folder, ".bin")) == 2


def test_the_compiled_templates_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalogs, "KEPT_TEMPLATES", 3)
    cache = catalogs._bytecode_cache()
    assert cache is not None
    folder = usercache.folder("templates")
    names = [f"page-{n}.j2" for n in range(5)]
    loader = jinja2.DictLoader({name: f"{name}: {{{{ x }}}}" for name in names})
    env = jinja2.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    for n, name in enumerate(names):
        as_a_new_process()
        assert env.get_template(name).render(x=n) == f"{name}: {n}"
        for kept in folder.glob("*.cache"):  # each compiled a second before the next
            aged(kept, time.time() - kept.stat().st_mtime + 1)
    assert len(entries(folder, ".cache")) == 3
    fresh = jinja2.Environment(loader=loader, bytecode_cache=cache, autoescape=True)
    assert fresh.get_template(names[-1]).render(x=7) == f"{names[-1]}: 7"


def test_a_report_shown_the_first_time_reads_only_its_own_folder_of_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rendered reports are kept in 256 folders, by the first two digits of their keys:
    a new one reads its own folder to keep it bounded, not the 2,000 entries of all of them
    (11 ms here, some sixth of the click import, each first showing)."""
    folder = rendered._folder()
    for n in range(600):
        rendered.shown("form", {"n": n}, "ab" * 32, _render, [])
    assert len(list(folder.iterdir())) > 200  # of the 256
    read: list[str] = []
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:  # a folder read through its handle: named by it
        read.append(os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else str(path))
        return real_scandir(path)

    before = set(folder.rglob("*.txt"))
    monkeypatch.setattr(os, "scandir", scandir)
    as_a_new_process()
    rendered.shown("form", {"n": "new"}, "ab" * 32, _render, [])
    monkeypatch.undo()
    (entry,) = set(folder.rglob("*.txt")) - before
    assert read == [str(entry.parent)]
