"""Setup values are matched whole: an id, a player's name or address that ends in a line break
(a YAML escape puts one there) is refused at `new`, with its line, and nothing is made. A game
made from one would take mail for the id and fail every `send` on its header."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.engine.setup import EMAIL, GAME_ID, NAME
from adjudicator.rules.schedule import DAILY, DURATION
from tests.helpers import run
from tests.ssh import make_key


def setup_text(root: Path, game_id: str, name: str, email: str) -> Path:
    """A two-player setup; the id is on line 2, the second player's entry (and name) on line 7."""
    for key in ("k0", "k1"):
        make_key(root / "keys", key)
    lines = [
        "game: sultan",
        f"id: {json.dumps(game_id)}",
        "players:",
        "- name: alice",
        "  email: alice@example.org",
        "  key_file: keys/k0.pub",
        f"- name: {json.dumps(name)}",
        f"  email: {json.dumps(email)}",
        "  key_file: keys/k1.pub",
    ]
    path = root / "setup.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("game_id", "name", "email", "line"),
    [
        ("cairo-2026\n", "bob", "bob@example.org", 2),
        ("cairo-2026", "bob\n", "bob@example.org", 7),
        ("cairo-2026", "bob", "bob@example.org\n", 7),  # placed on its player's entry
    ],
    ids=["id", "name", "email"],
)
def test_a_value_ending_in_a_line_break_is_refused(
    tmp_path: Path, game_id: str, name: str, email: str, line: int
) -> None:
    setup = setup_text(tmp_path, game_id, name, email)
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    assert result.output.startswith(f"Error: {setup}: refused\n  line {line}: ")
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("pattern", [NAME, GAME_ID, EMAIL, DURATION, DAILY])
def test_no_pattern_of_a_setup_value_takes_a_trailing_line_break(pattern: object) -> None:
    """``$`` matches before a last line break; the setup's patterns match the whole value."""
    samples = {
        NAME: "bob",
        GAME_ID: "cairo-2026",
        EMAIL: "bob@example.org",
        DURATION: "48h",
        DAILY: "20:00 Europe/Berlin",
    }
    import re

    assert isinstance(pattern, re.Pattern)
    text = samples[pattern]
    assert pattern.match(text)
    assert not pattern.match(text + "\n")


def test_replace_refuses_an_address_ending_in_a_line_break(tmp_path: Path) -> None:
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("replace", table.gamedir, "--player", "bob", "--email", "bob@example.net\n")
    assert result.exit_code == 3, result.output
    assert "is not one mail address" in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == before
