"""The journal's summary in the user's cache folder under attack: an entry that passes its
checksum but does not hold what a summary holds (made by hand, by another build of the
program, or by a version whose folds knew fewer facts) is not used, and never ends a command
in a traceback; what the command answers is what the whole journal says."""

from __future__ import annotations

import copy
import hashlib
import json
import marshal
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from adjudicator.rules import schedule
from adjudicator.store import gamedir, journal, summary, usercache
from adjudicator.store.gamedir import GameDir
from tests.helpers import Table, run
from tests.test_summary import assert_summary_is_the_fold, entry


def kept_plain(root: Path) -> dict[str, Any]:
    """The summary kept for the game at ``root``, as the plain values written to the cache."""
    GameDir(root).summary()
    found = usercache.read(entry(root))
    assert found is not None
    plain: dict[str, Any] = marshal.loads(found[len(summary._MAGIC) + 1 :])
    return plain


def keep(root: Path, plain: dict[str, Any]) -> None:
    """Put ``plain`` in the cache as the game's summary: checksum and header as a real one."""
    assert usercache.write(entry(root), summary._MAGIC + b"\n" + marshal.dumps(plain), keep=None)
    summary._KEPT.clear()  # a new command: nothing handed out in this process


def _read_a_list(plain: dict[str, Any]) -> None:
    plain["read"] = ["addresses.json"]


def _read_not_a_path(plain: dict[str, Any]) -> None:
    plain["read"] = {1: "0" * 64}


def _files_missing_from_the_start(plain: dict[str, Any]) -> None:
    plain["end"], plain["digest"] = 0, hashlib.sha256(b"").hexdigest()
    plain["facts"]["files"] = None


def _held_a_list(plain: dict[str, Any]) -> None:
    plain["clocks"]["held"] = []


def _files_a_list(plain: dict[str, Any]) -> None:
    plain["facts"]["files"] = sorted(plain["facts"]["files"])


def _lines_a_text(plain: dict[str, Any]) -> None:
    plain["facts"]["lines"] = str(plain["facts"]["lines"])


def _players_not_seats(plain: dict[str, Any]) -> None:
    plain["seats"][0]["players"] = "alice, bob"


@pytest.mark.parametrize(
    "damage",
    [
        _read_a_list,
        _read_not_a_path,
        _files_missing_from_the_start,
        _held_a_list,
        _files_a_list,
        _lines_a_text,
        _players_not_seats,
    ],
)
def test_a_summary_entry_of_another_shape_is_not_used(
    tmp_path: Path, damage: Callable[[dict[str, Any]], None]
) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    plain = copy.deepcopy(kept_plain(table.gamedir))
    damage(plain)
    keep(table.gamedir, plain)
    result = run("status", table.gamedir)
    assert result.exit_code == 0, result.output
    keep(table.gamedir, plain)
    assert_summary_is_the_fold(table.gamedir)


def test_a_summary_that_lacks_a_fact_is_not_used(tmp_path: Path) -> None:
    """A summary written by a version whose facts had no ``names_files`` (or any other field
    added since) is not read as if the journal said the field's default: here that would make
    the next step adopt the game's files as if its journal were older than the files' names."""
    table = Table(tmp_path, players=3)
    table.play_turn()
    plain = copy.deepcopy(kept_plain(table.gamedir))
    assert plain["facts"]["names_files"] is True
    del plain["facts"]["names_files"]
    keep(table.gamedir, plain)
    result = run("pause", table.gamedir)
    assert result.exit_code == 0, result.output
    lines = GameDir(table.gamedir).log()
    assert [e["type"] for e in lines if e["type"] == "adopted"] == []
    assert lines[-1]["type"] == "paused"
    keep(table.gamedir, plain)
    assert_summary_is_the_fold(table.gamedir)


def test_a_journal_grown_after_a_shapeless_summary_is_read_whole(tmp_path: Path) -> None:
    """An entry whose lines can be read on from but whose folds cannot take one more line (the
    seats' joins a list) is not used: the command reads the whole journal instead."""
    table = Table(tmp_path, players=3)
    plain = copy.deepcopy(kept_plain(table.gamedir))
    plain["clocks"]["held"] = []
    keep(table.gamedir, plain)
    table.play_turn()  # lines after the kept point
    keep(table.gamedir, plain)
    assert run("status", table.gamedir).exit_code == 0
    keep(table.gamedir, plain)
    assert_summary_is_the_fold(table.gamedir)


def test_a_cache_folder_that_cannot_be_written_only_means_nothing_is_kept(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, players=3)
    folder = usercache.folder("summary")
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    folder.rmdir()
    folder.write_text("a file where the folder should be")
    summary._KEPT.clear()
    gamedir._LOGS.clear()
    table.play_turn()
    assert table.status()["turn"] == 2
    assert_summary_is_the_fold(table.gamedir)


@pytest.mark.parametrize("module", [journal, summary, schedule], ids=lambda m: m.__name__)
def test_a_summary_folded_by_other_code_is_not_read_on_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: ModuleType
) -> None:
    """The version number stays while the folds change (a fix, a new kind of line, an install
    from a checkout): the cache entry's header names the code that folded it, the code the
    folds call among it (the deadline's arithmetic, which the clock's fold reads)."""
    ours = summary._folds()
    assert ours.encode() in summary._MAGIC
    other = tmp_path / "changed.py"
    other.write_bytes(Path(str(module.__file__)).read_bytes() + b"\n# a fold changed\n")
    monkeypatch.setattr(module, "__file__", str(other))
    assert summary._folds() != ours


def test_a_queue_name_with_a_digit_int_cannot_read_is_no_report(tmp_path: Path) -> None:
    """``str.isdigit`` holds for "²", which ``int`` refuses: a journal naming such a file (made
    by hand) was read by the clock before the clocks of every turn were read at once."""
    path = "mail/queue/000009-report-²-bob.eml"
    assert journal.report_turn(path) is None
    table = Table(tmp_path, players=3)
    GameDir(table.gamedir).append_log(
        {"type": "sent", "at": "2026-01-01T00:00:00+00:00", "files": {path: "0" * 64}}
    )
    assert table.status()["turn"] == 1
    assert_summary_is_the_fold(table.gamedir)


def test_a_preview_leaves_no_summary_of_its_copy_behind(tmp_path: Path) -> None:
    """``adjudicate --preview`` adjudicates a copy in a temporary folder, a path never seen
    again: its summary would stay in the cache folder for good, one more at every preview."""
    table = Table(tmp_path, players=3)
    status = table.status()
    paths = [table.signed(p, table.legal(p), f"p-{p}.yaml") for p in status["owed"]]
    assert run("submit", table.gamedir, *paths).exit_code == 0
    for _ in range(3):
        result = run("adjudicate", table.gamedir, "--preview")
        assert result.exit_code == 0, result.output
    kept = sorted(p.name for p in usercache.folder("summary").iterdir())
    assert kept == [entry(table.gamedir).name]


def test_a_game_made_anew_at_the_same_path_is_read_whole(tmp_path: Path) -> None:
    """Same path, same id, another game (another seed): the summary kept is the other's."""
    first = Table(tmp_path / "one", players=3)
    first.play_turn()
    assert first.status()["turn"] == 2
    (tmp_path / "one").rename(tmp_path / "first")
    second = Table(tmp_path / "one", players=3, seed="0" * 32)
    assert second.gamedir == first.gamedir
    assert second.status()["turn"] == 1
    assert_summary_is_the_fold(second.gamedir)


def test_a_journal_cut_and_grown_again_to_its_length_is_read_whole(tmp_path: Path) -> None:
    """The summary covers the journal's bytes, not its length: a journal cut back to an earlier
    line and grown again by other lines to the very length it had is read again."""
    table = Table(tmp_path, players=3)
    log = table.gamedir / gamedir.LOG
    before = log.read_bytes()
    taken = dict(GameDir(table.gamedir).facts().accepted)
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, table.legal(player), "one.yaml")
    assert run("submit", table.gamedir, path).exit_code == 0
    assert len(GameDir(table.gamedir).facts().accepted) == len(taken) + 1
    grown = log.read_bytes()
    assert grown.startswith(before)
    other = json_line_of_length(len(grown) - len(before), GameDir(table.gamedir).head())
    log.write_bytes(before + other)
    assert len(log.read_bytes()) == len(grown)
    assert run("status", table.gamedir).exit_code == 0
    assert GameDir(table.gamedir).facts().accepted == taken
    assert_summary_is_the_fold(table.gamedir)


def json_line_of_length(length: int, prev: str) -> bytes:
    """A journal line (a ``sent`` line made by hand) of exactly ``length`` bytes."""
    line = {"type": "sent", "at": "2026-01-01T00:00:00+00:00", "prev": prev, "pad": ""}
    base = len(json.dumps(line, sort_keys=True).encode()) + 1
    line["pad"] = "x" * (length - base)
    data = json.dumps(line, sort_keys=True).encode() + b"\n"
    assert len(data) == length
    return data
