"""Orders by IMAP, against a real Dovecot: ``ingest --imap`` and ``tick`` take the messages of
the folder, oldest first, and move each to the done or the set-aside folder."""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path
from typing import Literal

import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped]

from adjudicator.mail import imap
from tests import imapserver
from tests.helpers import Table, order_mail, run
from tests.imapserver import PASSWORD, ImapServer
from tests.smtpserver import make_authority

authority = imapserver.authority

DONE = "adjudicator/done"
SET_ASIDE = "adjudicator/set-aside"


@pytest.fixture(autouse=True)
def short_timeouts_and_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(imap, "IMAP_TIMEOUT", 10.0)
    monkeypatch.setenv("TEST_IMAP_PASSWORD", PASSWORD)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path, players=3)


def settings_file(table: Table, imap_table: str) -> Path:
    """Settings with [mail], no [smtp] (mail goes to the outbox) and ``imap_table``."""
    path = table.root / "imap.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n' + imap_table)
    return path


def hello_mail() -> bytes:
    """A message with no order in it, from a stranger."""
    message = EmailMessage()
    message["From"] = "stranger@example.net"
    message["Message-ID"] = "<hello@x>"
    message["Subject"] = "hello"
    message.set_content("Can I join?\n")
    return message.as_bytes().replace(b"\n", b"\r\n")


def orders(table: Table) -> dict[str, bytes]:
    """A signed order mail from every player who owes one, by player."""
    return {
        player: order_mail(table, player, table.legal(player), message_id=f"<{player}@imap>")
        for player in table.status()["waiting_for"]
    }


def receipts(table: Table) -> list[str]:
    return sorted(p.name for p in (table.gamedir / "mail" / "queue").glob("*-receipt-*.eml"))


def stored_orders(table: Table) -> int:
    return len(list((table.gamedir / "turns" / "0001" / "orders").glob("*.yaml")))


@pytest.mark.parametrize("tls", ["tls", "starttls"])
def test_orders_by_imap_are_accepted_and_each_message_filed_away(
    table: Table, imap_server: ImapServer, tls: Literal["tls", "starttls"]
) -> None:
    config = settings_file(table, imap_server.settings(tls))
    mails = orders(table)
    imap_server.append(*mails.values(), hello_mail())
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 0, result.output + imap_server.log()
    assert result.output.splitlines() == [
        *(f"<{player}@imap> cairo-2026 {player} 1 accepted" for player in mails),
        "<hello@x> set aside: no signed order in the message",
    ]
    assert table.status()["received"] == sorted(mails)
    assert receipts(table) == [f"{n:06d}-receipt-{p}.eml" for n, p in enumerate(mails, 1)]
    done, set_aside = imap_server.name(DONE), imap_server.name(SET_ASIDE)
    assert imap_server.counts() == {"INBOX": 0, done: len(mails), set_aside: 1}
    assert imap_server.messages(done) == list(mails.values())
    assert imap_server.messages(set_aside) == [hello_mail()]


def test_running_again_applies_nothing_twice(table: Table, imap_server: ImapServer) -> None:
    config = settings_file(table, imap_server.settings())
    mails = orders(table)
    first = next(iter(mails.values()))
    imap_server.append(first)
    assert run("ingest", table.gamedir, "--config", config, "--imap").exit_code == 0
    again = run("ingest", table.gamedir, "--config", config, "--imap")
    assert again.exit_code == 0 and again.output == "", "the folder is empty now"
    imap_server.append(first)  # as after a run cut short between ingest and the move
    resent = run("ingest", table.gamedir, "--config", config, "--imap")
    assert resent.exit_code == 0, resent.output
    assert resent.output.endswith("set aside: a duplicate of a message processed before\n")
    assert stored_orders(table) == 1 and len(receipts(table)) == 1
    done, set_aside = imap_server.name(DONE), imap_server.name(SET_ASIDE)
    assert imap_server.counts() == {"INBOX": 0, done: 1, set_aside: 1}


def test_tick_without_a_source_reads_the_configured_imap_folder(
    table: Table, imap_server: ImapServer
) -> None:
    config = settings_file(table, imap_server.settings("starttls"))
    imap_server.append(*orders(table).values())
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output + imap_server.log()
    assert "cairo-2026: adjudicated turn 1" in result.output
    assert table.status()["turn"] == 2
    assert imap_server.counts()["INBOX"] == 0


@pytest.mark.parametrize("lacking", [{"MOVE"}, {"MOVE", "UIDPLUS"}])
def test_without_move_a_message_is_copied_and_only_it_is_flagged_or_expunged(
    table: Table, imap_server: ImapServer, monkeypatch: pytest.MonkeyPatch, lacking: set[str]
) -> None:
    offers = IMAPClient.has_capability
    monkeypatch.setattr(
        IMAPClient, "has_capability", lambda self, name: name not in lacking and offers(self, name)
    )
    config = settings_file(table, imap_server.settings())
    mine = hello_mail().replace(b"<hello@x>", b"<deleted-by-the-user@x>")
    imap_server.append(mine, flags=(b"\\Deleted",))
    order = next(iter(orders(table).values()))
    imap_server.append(order)
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 0, result.output + imap_server.log()
    assert result.output.endswith(" 1 accepted\n") and len(result.output.splitlines()) == 1
    expunged = "UIDPLUS" not in lacking
    assert imap_server.messages() == ([mine] if expunged else [mine, order])
    assert imap_server.messages(imap_server.name(DONE)) == [order]
    again = run("ingest", table.gamedir, "--config", config, "--imap")
    assert again.exit_code == 0 and again.output == "", "messages flagged deleted are skipped"


@pytest.mark.parametrize("command", ["ingest", "tick"])
def test_a_certificate_from_another_ca_never_works_and_nothing_changes(
    table: Table, imap_server: ImapServer, command: str
) -> None:
    other = make_authority(table.root / "other-ca")
    config = settings_file(table, imap_server.settings(ca_file=other.ca_file))
    mails = orders(table)
    imap_server.append(*mails.values())
    result = run(command, table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 3, result.output
    where = f"IMAP server 127.0.0.1:{imap_server.ports['tls']}"
    assert (
        f'{config}: [imap] ca_file = "{other.ca_file}": TLS with {where} failed: '
        "the certificate was not trusted"
    ) in result.output
    assert table.status()["received"] == [] and receipts(table) == []
    assert imap_server.counts() == {"INBOX": len(mails)}


@pytest.mark.seconds
@pytest.mark.parametrize("command", ["ingest", "tick"])
def test_a_refused_login_never_works_and_names_the_setting(
    table: Table, imap_server: ImapServer, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setenv("TEST_IMAP_PASSWORD", "wrong")
    config = settings_file(table, imap_server.settings())
    imap_server.append(hello_mail())
    result = run(command, table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 3, result.output
    where = f"IMAP server 127.0.0.1:{imap_server.ports['tls']}"
    assert (
        f'{config}: [imap] user = "adjudicator", password_env = "TEST_IMAP_PASSWORD": '
        f"{where} refused the login as adjudicator: [AUTHENTICATIONFAILED]"
    ) in result.output
    assert imap_server.counts() == {"INBOX": 1}


def test_a_missing_folder_never_works_and_names_the_setting(
    table: Table, imap_server: ImapServer
) -> None:
    config = settings_file(table, imap_server.settings() + 'folder = "Orders"\n')
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 3, result.output
    assert (
        f'{config}: [imap] folder = "Orders": IMAP server 127.0.0.1:{imap_server.ports["tls"]} '
        "has no folder 'Orders'"
    ) in result.output


def test_starttls_not_offered_never_works(
    table: Table, imap_server: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    offers = IMAPClient.has_capability
    monkeypatch.setattr(
        IMAPClient, "has_capability", lambda self, name: name != "STARTTLS" and offers(self, name)
    )
    config = settings_file(table, imap_server.settings("starttls"))
    imap_server.append(hello_mail())
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 3, result.output
    assert (
        f'{config}: [imap] tls = "starttls": IMAP server '
        f"127.0.0.1:{imap_server.ports['starttls']} does not offer STARTTLS"
    ) in result.output
    assert imap_server.counts() == {"INBOX": 1}


def test_no_tls_to_a_server_on_this_machine(table: Table, imap_server: ImapServer) -> None:
    """Dovecot counts a connection from 127.0.0.1 to 127.0.0.1 as secured, so it takes the
    login without TLS on its STARTTLS port."""
    plain = imap_server.settings("starttls").replace('tls = "starttls"', 'tls = "none"')
    config = settings_file(table, plain)
    mails = orders(table)
    imap_server.append(*mails.values())
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 0, result.output + imap_server.log()
    assert table.status()["received"] == sorted(mails)
    assert imap_server.counts() == {"INBOX": 0, imap_server.name(DONE): len(mails)}


def test_no_tls_to_another_machine_is_refused(table: Table) -> None:
    config = settings_file(
        table,
        '[imap]\nhost = "imap.example.org"\ntls = "none"\nuser = "adjudicator"\n'
        'password_env = "TEST_IMAP_PASSWORD"\n',
    )
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 3, result.output
    assert f'{config}: [imap] tls = "none": imap.example.org is not this machine' in result.output


def test_an_unreachable_server_is_a_temporary_failure(table: Table) -> None:
    [port] = imapserver.free_ports(1)
    config = settings_file(
        table,
        f'[imap]\nhost = "127.0.0.1"\nport = {port}\nuser = "adjudicator"\n'
        'password_env = "TEST_IMAP_PASSWORD"\n',
    )
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    assert f"cannot reach IMAP server 127.0.0.1:{port}: connection refused" in result.output


def test_imap_needs_an_imap_table(table: Table) -> None:
    config = settings_file(table, "")
    result = run("ingest", table.gamedir, "--config", config, "--imap")
    assert result.exit_code == 2
    assert "--imap: the settings have no [imap] table" in result.output


def test_one_source_at_a_time(table: Table) -> None:
    result = run("ingest", table.gamedir, "--imap", "--mbox", table.root / "mbox")
    assert result.exit_code == 2
    assert "give at most one of --maildir, --mbox and --imap" in result.output


def test_a_message_expunged_by_another_client_meanwhile_is_for_now() -> None:
    """A move that meets a message another session expunged (RFC 5530's EXPUNGEISSUED) is a
    race of the moment, not a setting that can never work (exit 3, naming the folder)."""
    from imapclient.exceptions import IMAPClientError  # type: ignore[import-untyped]

    from adjudicator.mail.config import ServerSettings

    server = ServerSettings(
        host="127.0.0.1", port=993, user=None, tls="tls", ca_file=None, password_env=None,
        password_command=None, table="imap",
    )  # fmt: skip
    said = IMAPClientError("[EXPUNGEISSUED] Some of the requested messages no longer exist")
    assert isinstance(imap._translated(server, "done_folder", said), imap.ImapUnavailable)


def test_a_message_the_server_will_not_give_is_set_aside_and_the_others_are_taken(
    table: Table, imap_server: ImapServer
) -> None:
    """One message Dovecot cannot read (its file unreadable: NO [SERVERBUG] to the FETCH)
    stopped every tick before its clock and its send, run after run (exit 75), and the orders
    behind it were never read. It is moved unread to the set-aside folder, the game master is
    told once, and the run goes on."""
    import contextlib

    config = settings_file(table, imap_server.settings("tls"))
    poison = hello_mail().replace(b"<hello@x>", b"<poison@x>")
    mails = orders(table)
    imap_server.append(poison, *mails.values())
    files = [
        p
        for p in (imap_server.folder / "mail").rglob("*")
        if p.is_file() and b"<poison@x>" in p.read_bytes()
    ]
    assert files
    for path in files:
        path.chmod(0)
    try:
        result = run("tick", table.gamedir, "--config", config)
    finally:
        for path in (imap_server.folder / "mail").rglob("*"):
            with contextlib.suppress(OSError):
                if path.is_file() and not path.stat().st_mode & 0o777:
                    path.chmod(0o600)
    assert result.exit_code == 0, result.output + imap_server.log()
    moved = r"imap:\d+: moved unread to adjudicator/set-aside: the server would not give it"
    assert re.search(moved, result.stderr), result.stderr
    assert "game master told (once): 1 message of the IMAP folder could not be read" in (
        result.stderr
    )
    assert stored_orders(table) == len(mails)
    assert imap_server.counts().get(imap_server.name(SET_ASIDE)) == 1


def test_an_imap_server_that_answers_a_byte_at_a_time_is_given_up(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that sends a byte every tenth of a second never lets a read's timeout expire:
    tick waited on it for as long as it went on. Each exchange has a limit in all: the run
    stops for now (exit 75) and adjudicates nothing."""
    import time

    from tests.drip import dripping

    monkeypatch.setattr(imap, "IMAP_TIMEOUT", 1.0)  # each read: a byte comes within it
    began = time.monotonic()
    with dripping(b"* OK ") as port:
        config = settings_file(
            table,
            f'[imap]\nhost = "127.0.0.1"\nport = {port}\nuser = "adjudicator"\n'
            'password_env = "TEST_IMAP_PASSWORD"\ntls = "none"\n',
        )
        result = run("tick", table.gamedir, "--config", config)
    assert time.monotonic() - began < 10, "given up at the limit, 4 s"
    assert result.exit_code == 75, result.output
    assert "took more than 4 seconds to answer in all" in result.output
