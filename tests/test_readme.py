"""The README's walk-through, run as written: its setup file and every command of its sh block."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from adjudicator.present import rendered
from adjudicator.store.gamedir import GameDir
from tests.helpers import run

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.DOTALL)


def test_the_readme_walk_through_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (setup,) = blocks("yaml")
    (commands,) = blocks("sh")
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    Path("cairo-2026.yaml").write_text(setup)
    Path("keys").mkdir()
    outputs = {}
    for line in commands.splitlines():
        words = shlex.split(line.replace("~", str(home)), comments=True)
        if words[0] == "cp":
            shutil.copy(words[1], words[2])
            # alice fills in her form: one of the jewels drawn (any of them will do)
            view = json.loads(run("view", "cairo", "--player", "alice", "--json").output)
            jewel = view["drawn"][0]
            text = Path(words[2]).read_text()
            Path(words[2]).write_text(text.replace("\nreturn:\n", f"\nreturn: {jewel}\n"))
            continue
        assert words[0] == "adjudicator", line
        target = None
        if ">" in words:
            words, target = words[: words.index(">")], words[words.index(">") + 1]
        result = run(*words[1:])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        outputs[words[1]] = result.output
        if target:
            Path(target).write_text(result.output)
        if words[1] == "keygen":  # the players send the game master their .pub lines
            shutil.copy(home / ".ssh" / "cairo-2026.pub", "keys/alice.pub")
            assert run("keygen", "keys/bob").exit_code == 0
    assert outputs["check"] == "order.yaml: valid (alice, turn 1)\n"
    assert outputs["submit"] == "order.yaml: accepted (alice, turn 1)\n"
    assert outputs["adjudicate"] == "cairo: turn 1 adjudicated\n"
    head = GameDir(Path("cairo")).head()
    assert outputs["view"] == rendered.report(Path("cairo"), "bob", 2, head, cache=False)
