"""Orders by mail through the commands: ingest, send and tick, with ssh-keygen signatures, the
outbox folder and a real SMTP server."""

from __future__ import annotations

import email.policy
import hashlib
import json
import mailbox
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from adjudicator.mail import queue
from adjudicator.present import rendered
from tests import smtpserver
from tests.helpers import Table, order_mail, run
from tests.smtpserver import PASSWORD, USER, Server

authority = smtpserver.authority
smtp_starttls = smtpserver.smtp_starttls


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path, players=3)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """Settings with no [smtp]: everything goes to GAMEDIR/outbox/."""
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    return path


def outbox_mails(table: Table) -> list[EmailMessage]:
    folder = table.gamedir / "outbox"
    parser = BytesParser(policy=email.policy.default)
    return [parser.parsebytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]  # type: ignore[misc]


def test_reports_are_mailed_once_with_the_form_attached(table: Table, config: Path) -> None:
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    everything = outbox_mails(table)
    welcomes, mails = everything[: len(table.names)], everything[len(table.names) :]
    assert [m["To"] for m in welcomes] == [f"{p}@example.org" for p in table.names], "first"
    assert all("welcome" in str(m["Subject"]) for m in welcomes)
    assert [m["To"] for m in mails] == [f"{p}@example.org" for p in table.names]
    first = mails[0]
    assert first["Subject"] == "[cairo-2026] turn 1: report for alice"
    # the report as the queuing step wrote it: with the chain head just before that step's line
    queued = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()][
        -2
    ]
    assert queued["type"] == "queued"
    owed = table.status()["owed"]
    for player, mail in zip(table.names, mails, strict=True):
        body = mail.get_body(("plain",))
        assert body is not None
        text = body.get_content().replace("\r\n", "\n")
        assert mail["Reply-To"] == "gm-bot@example.org", "answers go to the game's address"
        if player in owed:  # the form's heading points to how to answer, at the mail's end
            assert "at the end of this mail" in text
            assert "No deadline for turn 1: it is adjudicated once every order" in text
            assert f"-f ~/.ssh/id_ed25519 cairo-2026-turn1-{player}.yaml\n" in text
            assert "adjudicator check" not in text
        else:
            report = rendered.report(table.gamedir, player, None, queued["prev"], cache=False)
            assert text == report
    names = [a.get_filename() for m in mails for a in m.iter_attachments()]
    assert names == [  # the form, and the order page beside it
        f"cairo-2026-turn1-{p}.{ext}" for p in table.names if p in owed for ext in ("yaml", "html")
    ]
    again = run("send", table.gamedir, "--config", config)
    assert again.exit_code == 0 and again.output == ""
    assert len(outbox_mails(table)) == len(everything)


def test_an_order_by_mail_is_accepted_and_receipted(table: Table, config: Path) -> None:
    run("send", table.gamedir, "--config", config)
    before = len(outbox_mails(table))
    player = table.status()["waiting_for"][0]
    raw = order_mail(table, player, table.legal(player), message_id="<m1@mail>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)
    assert result.exit_code == 0, result.output
    assert result.output == f"<m1@mail> cairo-2026 {player} 1 accepted\n"
    assert table.status()["received"] == [player]
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    receipt = outbox_mails(table)[before]
    assert receipt["To"] == f"{player}@example.org"
    assert receipt["In-Reply-To"] == "<m1@mail>"
    assert receipt["Subject"] == "[cairo-2026] turn 1: order accepted", "never the player's"
    assert receipt["Auto-Submitted"] == "auto-replied"
    stored = next((table.gamedir / "turns" / "0001" / "orders").glob("*.yaml")).read_bytes()
    text = receipt.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert f"SHA-256: {hashlib.sha256(stored).hexdigest()}" in text
    duplicate = run("ingest", table.gamedir, "--config", config, input=raw)
    assert duplicate.output == "<m1@mail> set aside: a duplicate of a message processed before\n"


def test_the_journal_keeps_a_message_id_keyed_and_still_knows_it_again(
    table: Table, config: Path
) -> None:
    """A Message-ID names the sender's host (``@mail.gmail.com``), and the journal, which a
    public archive holds, names the player of the orders in the same line: it keeps the
    Message-ID as its HMAC-SHA-256 under the game's file key. The same message is still known
    again, and so is one that a journal written before keeps as received."""
    from adjudicator.rules.digests import Digester
    from tests.test_verify import rechain

    player = table.status()["waiting_for"][0]
    message_id = "<CAF=Qx3mK9+bZ7w@mail.gmail.com>"
    raw = order_mail(table, player, table.legal(player), message_id=message_id)
    assert run("ingest", table.gamedir, "--config", config, input=raw).exit_code == 0
    journal = table.gamedir / "log.jsonl"
    lines = journal.read_text().splitlines()
    [number] = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "mail"]
    entry = json.loads(lines[number])
    meta = json.loads((table.gamedir / "game.json").read_text())
    assert entry["message_id"] == Digester.of(meta).hidden(message_id.encode())
    assert "gmail" not in journal.read_text() and "CAF=" not in journal.read_text()
    again = run("ingest", table.gamedir, "--config", config, input=raw)
    assert again.output == f"{message_id} set aside: a duplicate of a message processed before\n"
    assert run("doctor", table.gamedir).exit_code == 0
    for flags in ([], ["--public"]):
        out = table.root / f"archive{len(flags)}.json"
        assert run("archive", table.gamedir, *flags, "-o", out).exit_code == 0
        checked = run("verify", out)
        assert checked.exit_code == 0, checked.output
    # a journal written before Message-IDs were keyed holds it as received
    lines[number] = json.dumps({**entry, "message_id": message_id}, sort_keys=True)
    journal.write_text("\n".join(rechain(lines, number)) + "\n")
    assert message_id in journal.read_text()
    old = run("ingest", table.gamedir, "--config", config, input=raw)
    assert old.output == f"{message_id} set aside: a duplicate of a message processed before\n"


def test_the_player_is_known_by_the_signature_not_the_from_header(
    table: Table, config: Path
) -> None:
    player = table.status()["waiting_for"][0]
    raw = order_mail(
        table, player, table.legal(player), sender="mallory@evil.example", message_id="<m2@x>"
    )
    result = run("ingest", table.gamedir, "--config", config, input=raw)
    assert result.output == f"<m2@x> cairo-2026 {player} 1 accepted\n"
    run("send", table.gamedir, "--config", config)
    receipts = [m for m in outbox_mails(table) if m["In-Reply-To"] == "<m2@x>"]
    assert [m["To"] for m in receipts] == [f"{player}@example.org"]


def test_a_tampered_order_is_set_aside_answered_to_nobody_and_changes_nothing(
    table: Table, config: Path
) -> None:
    """Its signature verifies with no registered key: anyone may have sent it, so nobody is
    answered (a receipt would let a stranger mail the player); the game master is told."""
    run("send", table.gamedir, "--config", config)
    before = len(outbox_mails(table))
    player = table.status()["waiting_for"][0]
    raw = order_mail(table, player, table.legal(player), message_id="<m3@x>", tamper=True)
    result = run("ingest", table.gamedir, "--config", config, input=raw)
    assert result.exit_code == 0
    assert result.output == (
        "<m3@x> set aside: orders.yaml: no signature that verifies against a registered key "
        "of game cairo-2026\n"
    )
    assert table.status()["received"] == []
    run("send", table.gamedir, "--config", config)
    assert [m["To"] for m in outbox_mails(table)[before:]] == ["gm@example.org"]


def test_mail_without_an_order_is_set_aside_and_strangers_get_no_answer(
    table: Table, config: Path
) -> None:
    message = EmailMessage()
    message["From"] = "stranger@example.net"
    message["Message-ID"] = "<hello@x>"
    message["Subject"] = "hello"
    message.set_content("Can I join?\n")
    result = run("ingest", table.gamedir, "--config", config, input=message.as_bytes())
    assert result.exit_code == 0
    assert result.output == "<hello@x> set aside: no signed order in the message\n"
    kept = list((table.root / "user-data" / "adjudicator" / "setaside").glob("*.eml"))
    assert [p.read_bytes() for p in kept] == [message.as_bytes()], "it names no game"
    run("send", table.gamedir, "--config", config)
    about = [
        m
        for m in outbox_mails(table)
        if "report for" not in str(m["Subject"]) and "welcome" not in str(m["Subject"])
    ]
    assert about == [], "it belongs to no game"
    parser = BytesParser(policy=email.policy.default)
    folder = table.root / "user-data" / "adjudicator" / "outbox"
    about = [parser.parsebytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]  # type: ignore[misc]
    assert [m["To"] for m in about] == ["gm@example.org"], "the game master only"
    assert "Message-ID:  <hello@x>" in str(about[0].get_body(("plain",)).get_content())  # type: ignore[union-attr]


def test_tick_takes_a_maildir_adjudicates_and_sends(table: Table, config: Path) -> None:
    maildir = mailbox.Maildir(table.root / "Maildir")
    for player in table.status()["waiting_for"]:
        maildir.add(order_mail(table, player, table.legal(player), message_id=f"<{player}@t>"))
    result = run("tick", table.gamedir, "--config", config, "--maildir", table.root / "Maildir")
    assert result.exit_code == 0, result.output
    assert "cairo-2026: adjudicated turn 1" in result.output
    assert table.status()["turn"] == 2
    subjects = [str(m["Subject"]) for m in outbox_mails(table)]
    assert "[cairo-2026] turn 2: report for alice" in subjects
    again = run("tick", table.gamedir, "--config", config, "--maildir", table.root / "Maildir")
    assert again.exit_code == 0 and again.output == "", "every message was marked seen"


def test_send_over_starttls_to_a_real_server(
    table: Table, smtp_starttls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    config = table.root / "smtp.toml"
    config.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\n'
        f'[smtp]\nhost = "{smtp_starttls.host}"\nport = {smtp_starttls.port}\n'
        f'user = "{USER}"\ntls = "starttls"\nca_file = "{smtp_starttls.ca_file}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n'
    )
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    assert [r.rcpt_tos for r in smtp_starttls.received] == [
        [f"{p}@example.org"] for p in table.names * 2
    ], "each player's welcome, then each player's report"
    assert not (table.gamedir / "outbox").exists()


def test_the_game_masters_copy_and_a_notice_of_no_game_go_over_a_real_server(
    table: Table, smtp_starttls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[mail] gm_copy``: the game master's report goes with the players'; a notice about a
    message that names no game goes from the user's data folder in the same run."""
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    config = table.root / "smtp.toml"
    config.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\ngm_copy = true\n'
        f'[smtp]\nhost = "{smtp_starttls.host}"\nport = {smtp_starttls.port}\n'
        f'user = "{USER}"\ntls = "starttls"\nca_file = "{smtp_starttls.ca_file}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n'
    )
    stranger = EmailMessage()
    stranger["From"] = "stranger@example.net"
    stranger["Message-ID"] = "<join@x>"
    stranger.set_content("Can I join?\n")
    result = run("ingest", table.gamedir, "--config", config, input=stranger.as_bytes())
    assert result.exit_code == 0, result.output
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    received = smtp_starttls.received
    assert [r.rcpt_tos for r in received] == [
        *([f"{p}@example.org"] for p in table.names),  # the welcomes
        *([f"{p}@example.org"] for p in table.names),  # the reports of turn 1
        ["gm@example.org"],
        ["gm@example.org"],
    ]
    parser = BytesParser(policy=email.policy.default)
    copy, notice = (parser.parsebytes(r.data) for r in received[-2:])
    assert copy["Subject"] == "[cairo-2026] turn 1: the game master's report"
    assert notice["Subject"] == "[adjudicator] a message that names no game was set aside"
    assert result.output.endswith("(no game): sent 000001-setaside-gm.eml\n")


def test_an_unreachable_server_is_a_temporary_failure(table: Table) -> None:
    config = table.root / "smtp.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n[smtp]\nhost = "127.0.0.1"\nport = 9\n')
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    assert "not everything could be sent; run again" in result.output
    queued = list((table.gamedir / "mail" / "queue").glob("*.eml"))
    assert len(queued) == 2 * len(table.names), "the welcomes and the reports"
