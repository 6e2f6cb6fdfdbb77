"""`adjudicate --preview` : what the turn would produce, with nothing changed.

Each test takes the game directory's every file (the journal, the lock, the mail folders) by
hash before and after the preview, then adjudicates for real and compares the preview's
reports with `report`'s. The time is fixed (ADJUDICATOR_NOW), so even the chain heads agree:
the journal line the preview's copy wrote is the one the real adjudication writes.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

import pytest

from adjudicator.store import gamedir as store
from tests.helpers import Table, run

NOW = "2026-11-23T10:00:00+00:00"


@pytest.fixture(autouse=True)
def fixed_time_and_own_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fixed time, and a temporary folder of the test's own (to see the copy go)."""
    monkeypatch.setenv("ADJUDICATOR_NOW", NOW)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` (the lock and journal too), links followed: path ->
    SHA-256 (``folder``; ``not a file`` for a named pipe or the like, which is not read)."""
    found: dict[str, str] = {}
    for top, dirs, names in os.walk(root, followlinks=True):
        for name in dirs:
            found[os.path.relpath(os.path.join(top, name), root) + "/"] = "folder"
        for name in names:
            path = Path(top, name)
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            found[str(path.relative_to(root))] = digest or "not a file"
    return found


def reports(output: str) -> dict[str, str]:
    """The preview's reports by reader's option (``--gm``, ``--player alice``, ``--public``)."""
    found: dict[str, list[str]] = {}
    option: str | None = None
    for line in output.splitlines(keepends=True):
        if line.startswith("===== report for ") and line.rstrip().endswith(") ====="):
            option = line[line.rindex("(") + 1 : line.rindex(")")]
            found[option] = []
        elif option is not None:
            found[option].append(line)
    return {option: "".join(lines) for option, lines in found.items()}


def preview(table: Table, *flags: str) -> tuple[int, str]:
    """Preview; assert the game directory did not change by one byte."""
    before = snapshot(table.gamedir)
    result = run("adjudicate", table.gamedir, "--preview", *flags)
    assert snapshot(table.gamedir) == before
    return result.exit_code, result.output


def submit_all(table: Table) -> None:
    status = table.status()
    paths = [table.signed(p, table.legal(p), f"t{status['turn']}-{p}.yaml") for p in status["owed"]]
    result = run("submit", table.gamedir, *paths)
    assert result.exit_code == 0, result.output


def assert_preview_is_the_adjudication(table: Table, *flags: str) -> str:
    """Preview, then adjudicate for real: the same summary (but for "would") and, for every
    reader, the report `report` shows afterwards, byte for byte. The preview's output."""
    code, output = preview(table, *flags)
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == (
        f"preview of {table.gamedir}: nothing was changed, written or sent; "
        "the chain heads below are the preview's own, not the game's"
    )
    real = run("adjudicate", table.gamedir, *flags)
    assert real.exit_code == 0, real.output
    said = real.output.splitlines()
    assert lines[1 : 1 + len(said)] == [
        line.replace(" adjudicated", " would be adjudicated").replace("is over", "would be over")
        for line in said
    ]
    shown = reports(output)
    expected = ["--gm", *(f"--player {p}" for p in table.names), "--public"]
    assert list(shown) == expected
    for option in expected:
        report = run("report", table.gamedir, *option.split())
        assert report.exit_code == 0, report.output
        assert shown[option] == report.output, option
    return output


def test_sultan_preview_is_what_adjudicate_then_makes_and_changes_nothing(
    tmp_path: Path, fixed_time_and_own_temp: Path
) -> None:
    table = Table(tmp_path)
    output = assert_preview_is_the_adjudication(table, "--default-missing")
    assert "turn 1 would be adjudicated (default orders for carol)" in output
    assert "game master only" in reports(output)["--gm"]  # the game master's own report
    assert list(fixed_time_and_own_temp.iterdir()) == []  # the private copy is gone
    submit_all(table)  # the bids: the seeded draws of the next round show in the reports
    output = assert_preview_is_the_adjudication(table)
    assert f"{table.gamedir}: turn 2 would be adjudicated\n" in output
    assert list(fixed_time_and_own_temp.iterdir()) == []


def test_a_later_adjudication_differs_from_the_preview_only_in_the_chain_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    submit_all(table)
    code, output = preview(table)
    assert code == 0, output
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-24T18:30:00+00:00")  # a day later
    assert run("adjudicate", table.gamedir).exit_code == 0
    for option, text in reports(output).items():
        real = run("report", table.gamedir, *option.split()).output
        assert text != real  # the journal line has its own time, so its own head ...
        head = re.compile(r"Chain head: #[0-9a-f]{32}")
        assert head.sub("HEAD", text) == head.sub("HEAD", real)  # ... and nothing else differs


def test_court_preview_is_what_adjudicate_then_makes(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court")
    submit_all(table)
    output = assert_preview_is_the_adjudication(table)
    assert f"{table.gamedir}: turn 1 would be adjudicated\n" in output


def test_a_preview_that_ends_the_game_says_so(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court", max_rounds=1)
    output = assert_preview_is_the_adjudication(table, "--default-missing")
    assert "\nthe game would be over\n" in output
    assert run("status", table.gamedir).output.endswith("the game is over after turn 1\n")


def test_the_refusals_are_adjudicates_own(tmp_path: Path) -> None:
    table = Table(tmp_path)
    code, output = preview(table)
    real = run("adjudicate", table.gamedir)
    assert (code, output) == (real.exit_code, real.output) == (4, real.output)
    assert "orders missing from carol" in output
    elsewhere = tmp_path / "nothing"
    elsewhere.mkdir()
    shown = run("adjudicate", elsewhere, "--preview")
    real = run("adjudicate", elsewhere)
    assert (shown.exit_code, shown.output) == (real.exit_code, real.output)
    assert shown.exit_code == 2
    assert list(elsewhere.iterdir()) == []


def test_nmr_wait_refuses_the_preview_of_defaults_as_it_refuses_them(tmp_path: Path) -> None:
    table = Table(tmp_path, nmr="wait")
    code, output = preview(table, "--default-missing")
    real = run("adjudicate", table.gamedir, "--default-missing")
    assert (code, output) == (real.exit_code, real.output)
    assert code == 4 and "(nmr: wait)" in output


def test_a_game_that_is_over_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court", max_rounds=1)
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    code, output = preview(table, "--default-missing")
    assert code == 4
    assert output == "Error: game cairo-2026 is over\n"
    assert output == run("adjudicate", table.gamedir, "--default-missing").output


def test_commit_reveal_preview_says_the_reveal_would_open(tmp_path: Path) -> None:
    table = Table(tmp_path, sealing="commit-reveal")
    code, output = preview(table, "--default-missing")
    assert code == 0, output
    assert output.splitlines()[1:] == [
        f"{table.gamedir}: the reveal of turn 1 would open (default orders for carol)",
        "the reveal opens no turn: the reports stay as they are "
        f"(adjudicator report {table.gamedir} --player NAME)",
    ]
    real = run("adjudicate", table.gamedir, "--default-missing")
    assert (
        real.output == f"{table.gamedir}: the reveal of turn 1 is open (default orders for carol)\n"
    )


def test_no_mail_is_queued_or_sent_in_a_game_with_mail_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    sent = sorted(p.name for p in (table.gamedir / "outbox").iterdir())
    assert sent  # the first reports went out (to the outbox: no [smtp])
    monkeypatch.setenv("ADJUDICATOR_CONFIG", str(config))  # mail settings at hand, unused
    code, output = preview(table, "--default-missing")
    assert code == 0, output
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert sorted(p.name for p in (table.gamedir / "outbox").iterdir()) == sent  # nothing due
    assert run("doctor", table.gamedir).exit_code == 0


def test_one_reader_and_html(tmp_path: Path) -> None:
    table = Table(tmp_path)
    code, output = preview(table, "--default-missing", "--player", "bob")
    assert code == 0, output
    assert list(reports(output)) == ["--player bob"]
    result = run("adjudicate", table.gamedir, "--preview", "--default-missing", "--gm")
    assert list(reports(result.output)) == ["--gm"]
    before = snapshot(table.gamedir)
    page = run(
        "adjudicate",
        table.gamedir,
        "--preview",
        "--default-missing",
        "--public",
        "--format",
        "html",
    )
    assert snapshot(table.gamedir) == before
    assert page.exit_code == 0
    assert page.stdout.startswith("<!DOCTYPE html>")
    assert page.stderr.startswith(f"preview of {table.gamedir}: nothing was changed")
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    real = run("report", table.gamedir, "--public", "--format", "html")
    assert page.stdout == real.output


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--player", "bob"], "--player goes with --preview"),
        (["--format", "html"], "--format goes with --preview"),
        (["--preview", "--gm", "--public"], "give at most one of --player NAME, --gm, --public"),
        (["--preview", "--format", "html"], "--format html is one page: add --player NAME"),
        (["--preview", "--player", "zed"], "no player 'zed' in game cairo-2026"),
    ],
)
def test_usage_errors(tmp_path: Path, flags: list[str], message: str) -> None:
    table = Table(tmp_path)
    before = snapshot(table.gamedir)
    result = run("adjudicate", table.gamedir, "--default-missing", *flags)
    assert result.exit_code == 2
    assert message in result.output
    assert snapshot(table.gamedir) == before


def test_a_locked_game_is_not_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from filelock import FileLock

    table = Table(tmp_path)
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.05)
    with FileLock(str(table.gamedir / ".lock")):
        code, output = preview(table, "--default-missing")
    assert code == 4
    assert "the game is locked by another command" in output


def test_a_step_cut_short_is_finished_in_the_copy_only(tmp_path: Path) -> None:
    """A submit killed half-way left its marker and a file: the preview shows what the
    adjudication that discards it first would make, and leaves both where they are."""
    table = Table(tmp_path)
    lines = len((table.gamedir / "log.jsonl").read_bytes().splitlines())
    marker = f'{{"at": "{NOW}", "kind": "submit", "lines": {lines}, "pid": 1}}\n'
    (table.gamedir / ".step").write_text(marker)
    stray = table.gamedir / "turns" / "0001" / "orders" / "carol-1.yaml"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_text("half an order\n")
    assert run("doctor", table.gamedir).exit_code == 3
    assert_preview_is_the_adjudication(table, "--default-missing")  # the real one discards it
    assert (table.gamedir / "discarded" / "0001" / "turns/0001/orders/carol-1.yaml").is_file()
