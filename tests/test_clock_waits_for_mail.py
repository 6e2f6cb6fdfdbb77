"""The clock waits for the mail: a turn's deadline counts from the moment its last report was
handed to the SMTP server, against a real aiosmtpd (tests/smtpserver.py). While a report of the
turn stays queued, the game stands as if paused; the send that hands over the last one journals
the deadline moved by the wait."""

from __future__ import annotations

import email.policy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from adjudicator.mail import queue
from adjudicator.present.record_text import record_text
from adjudicator.store import journal as journal_of
from tests import smtpserver
from tests.helpers import Table, run
from tests.smtpserver import HOST, PASSWORD, USER, Authority, Server, running_server
from tests.test_summary import assert_summaries_handed_out_never_change

authority = smtpserver.authority
DOCS = Path(__file__).parent.parent / "docs"

START = datetime.fromisoformat("2026-11-23T10:00:00+00:00")
ADJUDICATED = START + timedelta(hours=1)
BACK = ADJUDICATED + timedelta(hours=60)
"""The server is back: past the deadline the turn would have had (48h after it opened)."""


@pytest.fixture(autouse=True)
def short_timeouts_and_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)


def at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", moment.isoformat())


@contextmanager
def server_up(authority: Authority, table: Table) -> Iterator[tuple[Server, Path]]:
    """A running SMTP server and the settings that reach it."""
    with running_server(authority, "tls") as server:
        config = table.root / "smtp.toml"
        config.write_text(
            '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n'
            f'[smtp]\nhost = "{HOST}"\nport = {server.port}\nuser = "{USER}"\n'
            f'password_env = "TEST_SMTP_PASSWORD"\nca_file = "{server.ca_file}"\n'
        )
        yield server, config


def journal(table: Table, kind: str) -> list[dict[str, Any]]:
    lines = (table.gamedir / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == kind]


def mails(server: Server, since: int = 0) -> list[EmailMessage]:
    parser = BytesParser(policy=email.policy.default)
    return [parser.parsebytes(r.data) for r in server.received[since:]]  # type: ignore[misc]


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return " ".join(str(body.get_content()).split())


def a_turn_adjudicated_while_the_server_is_down(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> tuple[Table, Path]:
    """Turn 1 mailed; every order in; then ``tick`` adjudicates with the server down (exit 75),
    the reports of turn 2 queued. The settings that reached the server are returned."""
    table = Table(
        tmp_path,
        players=3,
        schedule={"deadline": "48h", "timezone": "Europe/Berlin", "reminders": ["24h"]},
        jewel_choice="random",
    )
    at(monkeypatch, START)
    with server_up(authority, table) as (_, config):
        assert run("send", table.gamedir, "--config", config).exit_code == 0
    for player in table.names:
        order = table.signed(player, table.legal(player), f"t1-{player}.yaml")
        assert run("submit", table.gamedir, order).exit_code == 0
    at(monkeypatch, ADJUDICATED)
    down = run("tick", table.gamedir, "--config", config)
    assert down.exit_code == 75, down.output
    assert "cairo-2026: adjudicated turn 1" in down.output
    return table, config


@pytest.mark.seconds
def test_the_deadline_counts_from_when_the_last_report_left(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, _ = a_turn_adjudicated_while_the_server_is_down(tmp_path, authority, monkeypatch)
    original = ADJUDICATED + timedelta(hours=48)
    moved = original + (BACK - ADJUDICATED)
    [opened] = journal(table, "adjudicated")
    assert opened["deadline"] == original.isoformat()

    at(monkeypatch, BACK)  # past the original deadline, the server still down
    status = table.status()
    assert status["turn"] == 2
    assert status["deadline"] == moved.isoformat(), "as it would be if the reports left now"
    assert status["queued"]["count"] == len(table.names)
    assert status["waiting_for_mail"] is True
    text = run("status", table.gamedir).output
    assert "the reports of turn 2 wait to be sent: the clock stands still" in text

    with server_up(authority, table) as (server, config):
        back = run("tick", table.gamedir, "--config", config)
        assert back.exit_code == 0, back.output
        assert "adjudicated" not in back.output and "reminded" not in back.output
        reports, notices = mails(server)[:3], mails(server)[3:]
        assert sorted(str(m["To"]) for m in reports) == [f"{p}@example.org" for p in table.names]
        assert {str(m["Subject"]).split(":")[0] for m in reports} == {"[cairo-2026] turn 2"}
        # the reports say the deadline as it stood; a notice right after them, the moved one
        assert sorted(str(m["To"]) for m in notices) == [f"{p}@example.org" for p in table.names]
        assert {str(m["Subject"]) for m in notices} == {"[cairo-2026] deadline moved"}
        assert all(
            "the deadline for turn 2 is now 2026-11-27 23:00 UTC (2026-11-28 00:00 CET, "
            "Europe/Berlin)." in text_of(m)
            for m in notices
        )

        assert len(journal(table, "adjudicated")) == 1, "no deadline passed"
        assert opened["defaulted"] == [], "no default order was played"
        [line] = [e for e in journal(table, "sent") if e.get("mailed")]
        assert line["mailed"] == {
            "turn": 2,
            "deadline": moved.isoformat(),
            "was": original.isoformat(),
            "since": ADJUDICATED.isoformat(),
        }
        status = table.status()
        assert status["deadline"] == moved.isoformat()
        assert status["waiting_for_mail"] is False and status["queued"] is None
        record = run("log", table.gamedir)
        assert (
            "deadline moved: turn 2: 2026-11-27 23:00 UTC (was 2026-11-25 11:00 UTC): the clock "
            "stood still while the turn's reports waited to be sent"
        ) in record.output
        data = json.loads(run("log", table.gamedir, "--json").output)
        assert data["deadlines_moved"] == [
            {"turn": 2, "deadline": moved.isoformat(), "was": original.isoformat(), "why": "mail"}
        ]
        schema = json.loads((DOCS / "schemas" / "sultan-record.schema.json").read_text())
        assert [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(data)] == []

        # the reminder states the moved deadline, 24 hours before it
        at(monkeypatch, moved - timedelta(hours=24, seconds=1))
        assert "reminded" not in run("tick", table.gamedir, "--config", config).output
        at(monkeypatch, moved - timedelta(hours=24))
        before = len(server.received)
        reminded = run("tick", table.gamedir, "--config", config)
        assert "reminded alice, bob, carol (24h before the deadline)" in reminded.output
        shown = "2026-11-27 23:00 UTC (2026-11-28 00:00 CET, Europe/Berlin), 1d 0h 0m left"
        assert moved.isoformat() == "2026-11-27T23:00:00+00:00"
        assert all(shown in text_of(m) for m in mails(server, before))

    out = tmp_path / "cairo-2026.json"  # the journal with its moved deadline still verifies
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    verified = run("verify", out)
    assert verified.exit_code == 0, verified.output
    # reports queued, held and sent, a deadline moved, a reminder: read on line by line
    assert_summaries_handed_out_never_change(table.gamedir)


def test_a_game_without_mail_keeps_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3, schedule={"deadline": "48h"}, jewel_choice="random")
    at(monkeypatch, START)
    table.play_turn()
    at(monkeypatch, BACK)
    status = table.status()
    assert status["deadline"] == (START + timedelta(hours=48)).isoformat()
    assert status["waiting_for_mail"] is False


def mail_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **schedule: object
) -> tuple[Table, Path]:
    """A game of 48-hour turns made at START, and settings that write its mail to outbox/."""
    at(monkeypatch, START)
    table = Table(
        tmp_path, players=3, schedule={"deadline": "48h", **schedule}, jewel_choice="random"
    )
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    return table, config


def adjudicated_at_the_command_line(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every owed order of turn 1 submitted, and the turn adjudicated by the game master at
    ADJUDICATED (no send after it)."""
    for player in table.status()["owed"]:
        order = table.signed(player, table.legal(player), f"t1-{player}.yaml")
        assert run("submit", table.gamedir, order).exit_code == 0
    at(monkeypatch, ADJUDICATED)
    assert run("adjudicate", table.gamedir).exit_code == 0


def test_the_wait_counts_from_the_turns_opening_when_its_reports_are_queued_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game master adjudicates at the command line (or an outage keeps tick from ever
    reaching its send): the turn's reports are queued and leave 40 hours after the turn opened.
    The wait counted from their queuing, so the players had 8 of their 48 hours; it counts from
    the turn's opening."""
    table, config = mail_game(tmp_path, monkeypatch)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    adjudicated_at_the_command_line(table, monkeypatch)
    left = ADJUDICATED + timedelta(hours=40)
    at(monkeypatch, left)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert table.status()["deadline"] == (left + timedelta(hours=48)).isoformat()
    [line] = [e for e in journal(table, "sent") if e.get("mailed")]
    assert line["mailed"]["since"] == ADJUDICATED.isoformat()
    assert line["mailed"]["was"] == (ADJUDICATED + timedelta(hours=48)).isoformat()


def test_a_turn_whose_reports_were_never_queued_does_not_pass_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game played by mail; the game master adjudicates turn 1 at the command line, and no
    run reaches its send for 49 hours (an outage of the mail server it reads, say). The next
    tick found turn 2 past its deadline and played every seat's default orders: the players had
    never had the turn's report. It now sends the reports and counts the wait from the turn's
    opening."""
    table, config = mail_game(tmp_path, monkeypatch)
    assert run("tick", table.gamedir, "--config", config).exit_code == 0
    adjudicated_at_the_command_line(table, monkeypatch)
    back = ADJUDICATED + timedelta(hours=49)
    at(monkeypatch, back)
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    assert "adjudicated" not in result.output
    assert len(journal(table, "adjudicated")) == 1
    assert table.status()["turn"] == 2
    assert table.status()["deadline"] == (back + timedelta(hours=48)).isoformat()
    reports = sorted((table.gamedir / "outbox").glob("*-report-2-*.eml"))
    assert len(reports) == len(table.names)


def test_a_game_first_ticked_past_its_first_deadline_mails_turn_1_and_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cron was set up three days after `new`: the first tick adjudicated turn 1 with every
    seat's default orders, then mailed the welcomes and the reports of turns 1 and 2. It now
    mails turn 1, and the players' 48 hours count from then."""
    table, config = mail_game(tmp_path, monkeypatch)
    at(monkeypatch, START + timedelta(days=3))
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    assert "adjudicated" not in result.output
    assert "the turn's reports were never queued: the deadline waits" in result.output
    assert table.status()["turn"] == 1
    assert table.status()["deadline"] == (START + timedelta(days=5)).isoformat()
    assert len(sorted((table.gamedir / "outbox").glob("*-report-1-*.eml"))) == 3


def test_no_reminder_goes_before_the_turns_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first tick came 30 hours after `new`, past the 24h reminder's time: it queued the
    reminder before the welcomes and the reports, stating a deadline the same run then moved,
    and sent it again 24 hours before the moved one. Nothing is reminded of a turn whose
    reports were never queued; the reminder goes once, before the moved deadline."""
    table, config = mail_game(tmp_path, monkeypatch, reminders=["24h"])
    at(monkeypatch, START + timedelta(hours=30))
    first = run("tick", table.gamedir, "--config", config)
    assert first.exit_code == 0, first.output
    assert "reminded" not in first.output
    moved = START + timedelta(hours=78)
    assert table.status()["deadline"] == moved.isoformat()
    at(monkeypatch, moved - timedelta(hours=24))
    assert "reminded alice, bob, carol" in run("tick", table.gamedir, "--config", config).output
    reminders = sorted((table.gamedir / "outbox").glob("*reminder*.eml"))
    assert len(reminders) == 3, "one each"


@pytest.mark.parametrize(
    ("lang", "reason"),
    [
        ("en", "the clock stood still while the turn's reports waited to be sent"),
        ("de", "die Uhr stand still, solange die Berichte des Zuges auf den Versand warteten"),
        (
            "nl",
            "de klok stond stil zolang de verslagen van de beurt wachtten om verzonden te worden",
        ),
        ("fr", "le temps était suspendu tant que les rapports du tour attendaient d'être envoyés"),
    ],
)
def test_the_record_says_why_a_deadline_moved_in_each_language(lang: str, reason: str) -> None:
    moved = {"turn": 2, "deadline": "2026-11-27T23:00:00+00:00", "why": "mail"}
    record = {
        "game": "sultan",
        "id": "cairo-2026",
        "players": ["alice", "bob"],
        "options": {},
        "over": False,
        "rounds": [],
        "deadlines_moved": [{**moved, "was": "2026-11-25T11:00:00+00:00"}],
    }
    text = record_text(record, "Sultan", lang)
    line = f"deadline moved: turn 2: 2026-11-27 23:00 UTC (was 2026-11-25 11:00 UTC): {reason}"
    assert line in text.splitlines()


@pytest.mark.seconds
def test_a_pause_during_the_wait_moves_the_deadline_once(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, _ = a_turn_adjudicated_while_the_server_is_down(tmp_path, authority, monkeypatch)
    original = ADJUDICATED + timedelta(hours=48)
    at(monkeypatch, ADJUDICATED + timedelta(hours=10))
    assert run("pause", table.gamedir).exit_code == 0
    at(monkeypatch, ADJUDICATED + timedelta(hours=20))
    assert run("resume", table.gamedir).exit_code == 0
    at(monkeypatch, ADJUDICATED + timedelta(hours=30))
    assert table.status()["deadline"] == (original + timedelta(hours=30)).isoformat()
    at(monkeypatch, BACK)
    with server_up(authority, table) as (server, config):
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        assert len(server.received) == 4 * len(table.names), "reports, pause, resume, moved"
    moved = original + (BACK - ADJUDICATED)
    [line] = [e for e in journal(table, "sent") if e.get("mailed")]
    assert line["mailed"]["deadline"] == moved.isoformat(), "the pause is counted once"
    assert table.status()["deadline"] == moved.isoformat()


def test_only_a_players_queued_report_of_the_turn_holds_the_clock() -> None:
    assert journal_of.is_report("mail/queue/000007-report-2-bob.eml", 2)
    assert not journal_of.is_report("mail/queue/000010-report-2-gm.eml", 2), "the gm's copy"
    assert not journal_of.is_report("mail/queue/000007-report-12-bob.eml", 1)
    assert not journal_of.is_report("mail/queue/000007-receipt-bob.eml", 2)
    assert not journal_of.is_report("mail/sent/000007-report-2-bob.eml", 2)
