"""What came from an archive, a mail or a file reaches the terminal with its control characters
escaped: an escape sequence in an archive's id or file name could erase "Error:" on a player's
terminal and print a fake success in its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator import demo
from tests.helpers import run

ERASE = "\x1b[2K\r"
"""Erase the line, back to its start: what a forger puts before a fake "all agrees"."""


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("term")
    options = {"max_rounds": 1}
    gamedir = demo.run(
        "sultans_court", 4, 5, tmp / "d", lambda _l: None, options=options, site=False
    )
    out = tmp / "a.json"
    assert run("archive", gamedir, "-o", out).exit_code == 0
    return out


def no_control(text: str) -> bool:
    return not any(ord(c) < 32 and c not in "\n\t" for c in text) and "\x7f" not in text


def test_an_archive_id_with_an_escape_sequence_is_shown_escaped(
    archived: Path, tmp_path: Path
) -> None:
    data = json.loads(archived.read_text(encoding="utf-8"))
    data["id"] = f"x{ERASE}verify: all agrees\u202e"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data), encoding="utf-8")
    result = run("verify", forged)
    assert result.exit_code == 3, result.output
    assert no_control(result.output), repr(result.output)
    assert "\u202e" not in result.output


def test_an_archive_file_name_with_an_escape_sequence_is_shown_escaped(
    archived: Path, tmp_path: Path
) -> None:
    named = tmp_path / f"cairo{ERASE}ok.json"
    named.write_bytes(archived.read_bytes())
    result = run("verify", named)
    assert result.exit_code == 0, result.output
    assert no_control(result.output), repr(result.output)
    broken = tmp_path / f"broken{ERASE}.json"
    broken.write_text("{", encoding="utf-8")
    result = run("verify", broken)
    assert result.exit_code == 3
    assert no_control(result.output), repr(result.output)
    assert "\\x1b[2K\\r" in result.output


def test_an_order_file_name_with_an_escape_sequence_is_shown_escaped(tmp_path: Path) -> None:
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    named = tmp_path / f"order{ERASE}.yaml"
    named.write_text("id: cairo-2026\nplayer: alice\nturn: 1\n", encoding="utf-8")
    result = run("submit", table.gamedir, named)
    assert result.exit_code == 3
    assert no_control(result.output), repr(result.output)


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "é and ü",
        "bidi \u202e override",
        "del \x7f",
        "nel \x85",
        "tag \U000e0001",
        "\u2028",
    ],
)
def test_json_output_escapes_what_does_not_print_and_stays_the_same_json(text: str) -> None:
    from adjudicator.present.quoting import terminal_json

    raw = json.dumps({"text": text, "list": [text]}, indent=2, ensure_ascii=False)
    shown = terminal_json(raw)
    assert json.loads(shown) == json.loads(raw)
    assert all(c.isprintable() or c == "\n" for c in shown)


def test_terminal_keeps_line_breaks_tabs_and_letters() -> None:
    from adjudicator.present.quoting import terminal

    assert terminal("turn 3\n\talice: Müller\n") == "turn 3\n\talice: Müller\n"
    assert terminal("a\x1b[2K\rb\u202e") == "a\\x1b[2K\\rb\\u202e"
