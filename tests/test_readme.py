"""The README's walk-through, run as written: its setup file and every command of its sh block."""

from __future__ import annotations

import json
import mailbox
import re
import shlex
import shutil
import subprocess
from email.message import EmailMessage
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
    setup, _ = blocks("yaml")
    commands, _ = blocks("sh")
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    Path("cairo-2026.yaml").write_text(setup)
    outputs = {}
    for line in commands.splitlines():
        words = shlex.split(line.replace("~", str(home)), comments=True)
        if words[0] == "mkdir":  # the game master keeps each player's .pub line as keys/NAME.pub
            subprocess.run(line.replace("~", str(home)), shell=True, check=True)
            continue
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
    assert outputs["check"] == "order.yaml: valid (alice, turn 1)\n"
    assert outputs["submit"] == "order.yaml: accepted (alice, turn 1)\n"
    assert outputs["adjudicate"] == "cairo: turn 1 adjudicated\n"
    head = GameDir(Path("cairo")).head()
    assert outputs["view"] == rendered.report(Path("cairo"), "bob", 2, head, cache=False)


def test_the_readmes_sign_up_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second walk-through: a game opened for sign-up; between its commands, alice's mail
    arrives (her join, then her reply to the confirmation request) in the Maildir tick reads."""
    _, setup = blocks("yaml")
    _, commands = blocks("sh")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ADJUDICATOR_CONFIG", str(tmp_path / "none.toml"))
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    Path("bazaar.yaml").write_text(setup)
    ticks = 0
    for line in commands.splitlines():
        words = shlex.split(line.replace("~", str(home)), comments=True)
        assert words[0] == "adjudicator", line
        target = None
        if ">" in words:
            words, target = words[: words.index(">")], words[words.index(">") + 1]
        if words[1] == "tick":  # the mail that came since the last run, in the Maildir it reads
            ticks += 1
            mailbox.Maildir(home / "Maildir").add(_joined() if ticks == 1 else _confirmed())
        result = run(*words[1:])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        if target:
            Path(target).write_text(result.output)
    assert Path("bazaar-join.html").is_file()
    assert "1 of 3–4 seats taken (alice)" in result.output, result.output


def _joined() -> str:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "adjudicator@localhost"
    message["Subject"] = "join"
    message["Message-ID"] = "<join@alice.example.org>"
    message.set_content("Count me in.\n")
    for name in ("join.yaml", "join.yaml.sig"):
        message.add_attachment(Path(name).read_bytes(), "text", "plain", filename=name)
    return message.as_string()


def _confirmed() -> str:
    [request] = [p for p in Path("bazaar/outbox").glob("*signup-confirm.eml")]
    subject = next(line for line in request.read_text().splitlines() if line.startswith("Subject:"))
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "adjudicator@localhost"
    message["Subject"] = "Re: " + subject.split(": ", 1)[1]
    message["Message-ID"] = "<yes@alice.example.org>"
    message.set_content("Yes.\n")
    return message.as_string()
