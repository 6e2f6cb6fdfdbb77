"""Review of the speed-ups (issue 13): the rendered-report cache, batched fsyncs, the scandir walk
of a game's files, the plain copies of the games."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adjudicator import steps
from adjudicator.store import GameDir
from tests.helpers import Table, run


def _walked(root: Path) -> set[str]:
    """``steps.tracked`` as os.walk gave it before the scandir walk."""
    found = set()
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel in steps.NOT_TRACKED or name.endswith(".lock") or steps.is_half_marker(rel):
                continue
            found.add(rel)
    return found


# -- steps.tracked -----------------------------------------------------------------------------
def test_the_walk_finds_what_os_walk_found(tmp_path: Path) -> None:
    root = tmp_path / "game"
    (root / "turns" / "0001").mkdir(parents=True)
    (root / "turns" / "0001" / "state.json").write_text("{}")
    (root / ".hidden").write_text("x")
    (root / "odd\udcff name").write_text("x")
    (root / "to-file").symlink_to(root / ".hidden")
    (root / "to-folder").symlink_to(root / "turns")
    (root / "dangling").symlink_to(root / "nowhere")
    (root / "loop").symlink_to("loop")  # ELOOP when followed
    (root / ".lock").write_text("")
    (root / "mail.lock").write_text("")
    assert steps.tracked(GameDir(root)) == _walked(root)


def test_a_symbolic_link_loop_in_a_game_does_not_stop_its_steps(tmp_path: Path) -> None:
    """A link that points at itself (a slip with ln -s) is a stray the game does not name, as it
    was: steps and doctor go on (exit 1 would mean a bug)."""
    table = Table(tmp_path, players=3)
    (table.gamedir / "loop").symlink_to("loop")
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, table.legal(player), "order.yaml")
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0, result.output
