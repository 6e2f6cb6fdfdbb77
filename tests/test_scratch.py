"""The suite's folder in memory (tests/scratch.py) is taken only where it can hold a run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.scratch import in_memory


def test_a_folder_with_room_is_taken_and_one_without_is_not(tmp_path: Path) -> None:
    free = os.statvfs(tmp_path)
    room = free.f_bavail * free.f_frsize
    assert in_memory(str(tmp_path), room // 2) == str(tmp_path)
    assert in_memory(str(tmp_path), room * 2) is None
    assert in_memory(str(tmp_path / "missing"), 1) is None


def test_the_suite_writes_where_it_chose(tmp_path: Path) -> None:
    """The folder chosen (or the TMPDIR given) is this process's and its children's, and
    pytest's folders are in it."""
    given = os.environ.get("TMPDIR")
    if given:  # chosen by tests/scratch.py or set before the run: this process follows it
        assert tempfile.gettempdir() == given
    assert tmp_path.is_relative_to(tempfile.gettempdir())


@pytest.mark.parametrize("flag", ["ST_RDONLY", "ST_NOEXEC"])
def test_a_folder_mounted_read_only_or_noexec_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    """The tests write scripts and run them: a folder whose programs may not run (Docker's
    /dev/shm, say) is left, as is one that cannot be written."""
    real = os.statvfs(tmp_path)
    fields = list(real)
    fields[8] = real.f_flag | getattr(os, flag)  # f_flag, as the mount would give it
    monkeypatch.setattr(os, "statvfs", lambda _: os.statvfs_result(fields))
    assert in_memory(str(tmp_path), 1) is None
