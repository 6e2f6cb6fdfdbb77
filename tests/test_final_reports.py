"""The final reports reveal every order used, the last turn's included, as the record does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.present import rendered
from tests.helpers import DEMO_NO_SITE, run


def revealed(report: str, word: str) -> dict[str, list[str]]:
    """The reveal's orders: ``{turn: [player, ...]}`` in the order printed."""
    lines = report.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("Every order, by")))
    found: dict[str, list[str]] = {}
    turn = ""
    for line in lines[start + 1 :]:
        if line.startswith(f"  {word} "):
            turn = line.removeprefix(f"  {word} ").rstrip(":")
            found[turn] = []
        elif line.startswith("    "):
            found[turn].append(line.strip().split(":", 1)[0])
        else:
            break
    return found


@pytest.mark.seconds
@pytest.mark.parametrize(("game", "word"), [("sultan", "turn"), ("sultans_court", "round")])
def test_the_final_reports_reveal_every_order_of_the_record(
    tmp_path: Path, game: str, word: str
) -> None:
    result = run(*DEMO_NO_SITE, game, "--players", "4", "--seed", "7", "--dir", tmp_path / "demo")
    assert result.exit_code == 0, result.output
    gamedir = tmp_path / "demo" / "game"
    record = json.loads(run("log", gamedir, "--json").output)
    assert record["over"]
    wanted = {turn: list(orders) for turn, orders in record["orders"].items()}
    last = json.loads(run("status", gamedir, "--json").output)["turn"] - 1
    assert list(wanted)[-1] == str(last)
    for reader in ("--public", "--gm", "--player"):
        args = [reader, record["players"][0]] if reader == "--player" else [reader]
        report = run("report", gamedir, *args).output
        assert revealed(report, word) == wanted


@pytest.mark.seconds
def test_a_tie_on_points_says_the_most_jewels_won(tmp_path: Path) -> None:
    """bob and alice both score 59 in this game; bob wins on jewels, 17 to 16 (docs/rulings.md S9),
    and the final table says why, in every language and in HTML."""
    options = ["--option", "placement=sequential", "--option", "screens=false"]
    result = run(*DEMO_NO_SITE, "sultan", "--players", 2, *options, "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    assert "1      bob" in result.output and "59  WINNER" in result.output
    said = "Equal totals (59 points): the player with the most jewels wins (RULINGS S9); jewels: "
    assert said + "bob 17, alice 16." in result.output
    gamedir = tmp_path / "d" / "game"
    german = rendered.report(gamedir, "public", None, None, lang="de", cache=False)
    assert "Gleiche Summe (59 Punkte): Es gewinnt, wer die meisten Juwelen hat" in german
    assert "bob 17, alice 16" in german
    page = run("report", gamedir, "--player", "alice", "--format", "html")
    assert said + "bob 17, alice 16." in page.output
