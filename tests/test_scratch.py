"""The suite's folder in memory (tests/scratch.py) is taken only where it can hold a run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

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
    chosen = os.environ.get("TMPDIR") or tempfile.gettempdir()
    assert tempfile.gettempdir() == chosen
    assert tmp_path.is_relative_to(chosen)
