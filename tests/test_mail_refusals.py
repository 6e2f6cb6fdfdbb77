"""What delivery does when the SMTP server says no, against a real aiosmtpd (tests/smtpserver.py):
a refusal for good (5xx) moves the message to mail/failed/ and is not retried; a refusal for now
(4xx) is retried until ``give_up_after`` has passed since the first such refusal; a setting that can
never work stops delivery and names the setting (exit 3); ``tls = "none"`` to this machine."""

from __future__ import annotations

import email.policy
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

from adjudicator.mail import queue
from adjudicator.mail.config import MailSettings, ServerSettings, Tls
from adjudicator.mail.outgoing import new_message_id, report_mail
from adjudicator.mail.queue import Outbox, SendReport, deliver, failure_notice, printable
from adjudicator.mail.tls import not_local
from tests import smtpserver
from tests.helpers import Table, run
from tests.smtpserver import (
    HOST,
    PASSWORD,
    USER,
    Authority,
    LoopbackController,
    Recorder,
    Server,
    authenticator,
    running_server,
)

authority = smtpserver.authority

SENDER = "Adjudicator <adjudicator@example.org>"
PASSWORD_ENV = "ADJ_TEST_SMTP_PASSWORD"


@pytest.fixture(autouse=True)
def short_timeouts_and_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)
    monkeypatch.setattr(queue, "LOCK_TIMEOUT", 2.0)
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    monkeypatch.delenv("ADJUDICATOR_NOW", raising=False)


@dataclass
class Answering(Recorder):
    """A Recorder that gives chosen answers: to MAIL, to RCPT for some addresses, and at the end
    of the data of a message whose first recipient is listed."""

    mail: str | None = None
    rcpt: dict[str, str] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)

    async def handle_MAIL(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        mail_options: list[str],
    ) -> str:
        if self.mail is not None:
            return self.mail
        return await super().handle_MAIL(server, session, envelope, address, mail_options)

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address in self.rcpt:
            return self.rcpt[address]
        return await super().handle_RCPT(server, session, envelope, address, rcpt_options)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        answer = self.data.get(envelope.rcpt_tos[0]) if envelope.rcpt_tos else None
        if answer is not None:
            return answer
        return await super().handle_DATA(server, session, envelope)


@dataclass
class Plain:
    """An SMTP server on 127.0.0.1 without TLS."""

    port: int
    recorder: Recorder


@contextmanager
def plain_server(
    recorder: Recorder, *, login: bool, check: Callable[..., AuthResult] = authenticator
) -> Iterator[Plain]:
    """aiosmtpd on 127.0.0.1 speaking plain text, offering no STARTTLS; with ``login`` it takes
    no mail before a login that ``check`` lets in (AUTH allowed without TLS, as a local relay
    may)."""
    recorder.require_login = login
    options: dict[str, Any] = {}
    if login:
        options.update(authenticator=check, auth_require_tls=False)
    controller = LoopbackController(recorder, hostname=HOST, port=0, **options)
    controller.start()
    try:
        yield Plain(controller.port, recorder)
    finally:
        controller.stop()


def settings(
    port: int,
    tls: Tls,
    ca_file: Path | None,
    *,
    host: str = HOST,
    user: str | None = USER,
    give_up_after: timedelta = timedelta(days=3),
) -> MailSettings:
    server = ServerSettings(
        host=host,
        port=port,
        user=user,
        tls=tls,
        ca_file=ca_file,
        password_env=PASSWORD_ENV if user else None,
        password_command=None,
        give_up_after=give_up_after,
    )
    return MailSettings(sender=SENDER, gm=None, smtp=server, imap=None, source=None)


def over(server: Server, **kwargs: Any) -> MailSettings:
    return settings(server.port, server.tls, server.ca_file, **kwargs)


def filled(gamedir: Path, count: int) -> Outbox:
    """``count`` reports queued, to player1@example.org and on."""
    outbox = Outbox(gamedir)
    for n in range(1, count + 1):
        message = report_mail(
            subject=f"[{'cairo'}] turn {1}: report for {f'player{n}'}",
            sender=SENDER,
            to=f"player{n}@example.org",
            game_id="cairo",
            player=f"player{n}",
            turn=1,
            body=f"Report {n}.\n",
            form=None,
            message_id=new_message_id(SENDER, f"cairo.turn1.player{n}"),
        )
        outbox.put(message, f"report-1-player{n}")
    return outbox


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.eml"))


def later(span: timedelta, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every clock.now() from here is ``span`` from now."""
    moment = datetime.now(UTC) + span
    monkeypatch.setenv("ADJUDICATOR_NOW", moment.isoformat(timespec="seconds"))


# -- refused for good --------------------------------------------------------------------------


def test_a_recipient_refused_for_good_is_failed_and_never_tried_again(
    tmp_path: Path, authority: Authority
) -> None:
    recorder = Answering(rcpt={"player2@example.org": "550 5.1.1 No such user here"})
    with running_server(authority, "starttls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 3)
        [first, second, third] = outbox.pending()
        data = second.read_bytes()
        result = deliver(outbox, over(server))
        assert result == SendReport(
            sent=[first.name, third.name],
            refused_for_good=[
                (second.name, "player2@example.org refused: 550 5.1.1 No such user here")
            ],
        )
        assert [r.rcpt_tos for r in server.received] == [
            ["player1@example.org"],
            ["player3@example.org"],
        ]
        assert outbox.pending() == [] and outbox.in_doubt() == []
        assert names(outbox.failed) == [second.name]
        assert (outbox.failed / second.name).read_bytes() == data, "kept byte for byte"
        recorder.rcpt.clear()
        assert deliver(outbox, over(server)) == SendReport()
        assert len(server.received) == 2
    assert outbox.put(report_mail_for(9), "later").name == "000004-later.eml"


def report_mail_for(n: int) -> Any:
    return report_mail(
        subject=f"[{'cairo'}] turn {2}: report for {f'player{n}'}",
        sender=SENDER,
        to=f"player{n}@example.org",
        game_id="cairo",
        player=f"player{n}",
        turn=2,
        body="Report.\n",
        form=None,
        message_id=new_message_id(SENDER, "x"),
    )


def test_a_failed_message_keeps_its_number_from_being_used_again(tmp_path: Path) -> None:
    outbox = filled(tmp_path, 2)
    [_, last] = outbox.pending()
    queue.move_into(last, outbox.failed)
    assert outbox.put(report_mail_for(3), "next").name == "000003-next.eml"


def test_a_message_refused_at_the_end_of_its_data_is_failed(
    tmp_path: Path, authority: Authority
) -> None:
    recorder = Answering(data={"player1@example.org": "552 5.3.4 Message too big for system"})
    with running_server(authority, "tls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 2)
        [first, second] = outbox.pending()
        result = deliver(outbox, over(server))
    assert result == SendReport(
        sent=[second.name],
        refused_for_good=[
            (first.name, "the server refused the message: 552 5.3.4 Message too big for system")
        ],
    )
    assert names(outbox.failed) == [first.name]
    assert names(outbox.sent) == [second.name]


def test_the_servers_answer_is_one_printable_line() -> None:
    assert printable("550 5.1.1 Nö\r\n such\x1b[31m user\x00") == (
        "550 5.1.1 N\\xf6 such\\x1b[31m user\\x00"
    )
    assert printable("x" * 400) == "x" * 297 + "..."
    assert printable("a\u2028b") == "a b"


def test_the_notice_for_the_game_master(tmp_path: Path) -> None:
    outbox = filled(tmp_path, 1)
    [path] = outbox.pending()
    subject, body = failure_notice(
        path.name, path.read_bytes(), "player1@example.org refused: 550 5.1.1 No\x07 such user"
    )
    assert subject == f"Mail refused for good: {path.name}"
    lines = body.splitlines()
    assert f"File:     mail/failed/{path.name}" in lines
    assert "To:       player1@example.org" in lines
    assert "Subject:  [cairo] turn 1: report for player1" in lines
    assert "Answer:   player1@example.org refused: 550 5.1.1 No\\x07 such user" in lines
    assert all(line.isascii() and line.isprintable() and len(line) <= 100 for line in lines)


# -- refused for now ---------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["rcpt", "data"])
def test_a_refusal_for_now_is_tried_again_then_given_up(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    answer = "450 4.2.1 Mailbox busy, try later"
    recorder = Answering()
    getattr(recorder, where)["player2@example.org"] = answer
    said = (
        f"player2@example.org refused: {answer}"
        if where == "rcpt"
        else f"the server refused the message: {answer}"
    )
    with running_server(authority, "starttls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 2)
        [first, second] = outbox.pending()
        result = deliver(outbox, over(server, give_up_after=timedelta(hours=48)))
        assert result == SendReport(
            sent=[first.name], failed=f"{second.name}: {said} (for now: tried again)"
        )
        assert outbox.pending() == [second]

        later(timedelta(hours=47, minutes=58), monkeypatch)
        again = deliver(outbox, over(server, give_up_after=timedelta(hours=48)))
        assert again.failed is not None and again.refused_for_good == []
        assert outbox.pending() == [second]

        later(timedelta(hours=48, minutes=1), monkeypatch)
        last = deliver(outbox, over(server, give_up_after=timedelta(hours=48)))
        assert last == SendReport(
            refused_for_good=[
                (
                    second.name,
                    f"{said} (still refused 48h after the server first refused it for now; "
                    'give_up_after = "2d")',
                )
            ]
        )
        assert outbox.pending() == [] and names(outbox.failed) == [second.name]
        assert [r.rcpt_tos for r in server.received] == [["player1@example.org"]]


def test_a_refusal_for_now_that_clears_is_sent(tmp_path: Path, authority: Authority) -> None:
    recorder = Answering(rcpt={"player1@example.org": "451 4.7.1 Greylisted, come back later"})
    with running_server(authority, "tls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 1)
        [only] = outbox.pending()
        assert deliver(outbox, over(server)).failed is not None
        recorder.rcpt.clear()
        assert deliver(outbox, over(server)) == SendReport(sent=[only.name])
    assert [r.rcpt_tos for r in server.received] == [["player1@example.org"]]


@pytest.mark.parametrize("kept", [{}, {"since": "yesterday"}, {"since": "2026-11-20T10:00"}])
def test_a_first_refusal_remembered_wrong_counts_from_now(
    tmp_path: Path, kept: dict[str, str]
) -> None:
    """The memory of first refusals is a file in the user's data folder, which a hand may
    change: an entry without a time, or with one that is none or has no offset, ended the
    delivery in a traceback. It counts from now, and is written so."""
    from adjudicator.mail import nogame, told

    outbox = filled(tmp_path / "game", 1)
    [message] = outbox.pending()
    key = f"{outbox.gamedir.resolve()}/{message.name}"
    memory = nogame.root() / "deferred.json"
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(json.dumps({key: kept}))
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert queue._first_refused(outbox, message, now) == now
    with told.memory("deferred") as state:
        assert state[key] == {"since": now.isoformat()}


def test_without_its_memory_the_age_is_read_from_the_date_header(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the first refusals cannot be remembered (the user's data folder cannot be
    written), a message queued long ago (by its Date) is given up at the first refusal for
    now; one dated in an offset other than UTC is read right."""
    from adjudicator.mail import told

    def no_memory(name: str = "told") -> Any:
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(told, "memory", no_memory)
    recorder = Answering(
        rcpt={
            "player1@example.org": "452 4.3.1 Insufficient system storage",
            "player2@example.org": "452 4.3.1 Insufficient system storage",
        }
    )
    outbox = filled(tmp_path / "game", 2)
    [old, recent] = outbox.pending()
    old.write_bytes(
        _dated(old.read_bytes(), datetime.now(UTC) - timedelta(days=3, minutes=1), "+0100")
    )
    recent.write_bytes(
        _dated(recent.read_bytes(), datetime.now(UTC) - timedelta(days=2, hours=23), "-0500")
    )
    with running_server(authority, "tls", recorder=recorder) as server:
        result = deliver(outbox, over(server))
    assert [name for name, _ in result.refused_for_good] == [old.name]
    assert result.failed is not None and result.failed.startswith(recent.name)
    assert outbox.pending() == [recent]


def _dated(data: bytes, moment: datetime, offset: str) -> bytes:
    """``data`` with its Date header replaced by ``moment`` written with the given offset."""
    hours = int(offset[:3])
    local = moment.astimezone(UTC) + timedelta(hours=hours)
    date = local.strftime("%a, %d %b %Y %H:%M:%S ") + offset
    headers, _, body = data.partition(b"\r\n\r\n")
    lines = [
        f"Date: {date}".encode() if line.startswith(b"Date:") else line
        for line in headers.split(b"\r\n")
    ]
    parsed = BytesParser(policy=email.policy.default).parsebytes(b"\r\n".join(lines) + b"\r\n\r\n")
    assert parsed["Date"].datetime == moment.replace(microsecond=0)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def test_a_421_stops_delivery_for_now(tmp_path: Path, authority: Authority) -> None:
    recorder = Answering(rcpt={"player1@example.org": "421 4.3.2 Shutting down"})
    with running_server(authority, "tls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 2)
        queued = outbox.pending()
        result = deliver(outbox, over(server))
    assert result.failed is not None and "421" in result.failed
    assert result.refused_for_good == [] and result.never_works is None
    assert outbox.pending() == queued


# -- settings that can never work ----------------------------------------------------------------


def test_starttls_not_offered_never_works(tmp_path: Path) -> None:
    with plain_server(Recorder(), login=False) as server:
        outbox = filled(tmp_path / "game", 1)
        queued = outbox.pending()
        result = deliver(outbox, settings(server.port, "starttls", None, user=None))
        assert server.recorder.received == []
    never = (
        f'[smtp] tls = "starttls": the SMTP server {HOST}:{server.port} does not '
        "offer STARTTLS (plain text is never used)"
    )
    assert result == SendReport(never_works=never, stopped=never)
    assert outbox.pending() == queued


@pytest.mark.parametrize("code", ["550 5.7.1 Sender not allowed", "553 5.7.1 Not your address"])
def test_a_sender_refused_for_good_never_works(
    tmp_path: Path, authority: Authority, code: str
) -> None:
    with running_server(authority, "tls", recorder=Answering(mail=code)) as server:
        outbox = filled(tmp_path / "game", 2)
        queued = outbox.pending()
        result = deliver(outbox, over(server))
    assert result.never_works == (
        f"[mail] from: the SMTP server {HOST}:{server.port} refused the sender "
        f"adjudicator@example.org: {code}"
    )
    assert result.failed is None and outbox.pending() == queued


def test_a_sender_refused_for_now_is_tried_again(tmp_path: Path, authority: Authority) -> None:
    recorder = Answering(mail="451 4.3.0 Try again later")
    with running_server(authority, "tls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 1)
        result = deliver(outbox, over(server))
    assert result.never_works is None
    assert result.failed == (
        f"the SMTP server {HOST}:{server.port} refused the sender adjudicator@example.org: "
        "451 4.3.0 Try again later"
    )
    assert len(outbox.pending()) == 1


# -- tls = "none" to this machine ----------------------------------------------------------------


@pytest.mark.parametrize("login", [False, True])
def test_no_tls_to_a_relay_on_this_machine(tmp_path: Path, login: bool) -> None:
    with plain_server(Recorder(), login=login) as server:
        outbox = filled(tmp_path / "game", 2)
        queued = [p.name for p in outbox.pending()]
        user = USER if login else None
        result = deliver(outbox, settings(server.port, "none", None, user=user))
        received = server.recorder.received
    assert result == SendReport(sent=queued)
    assert [r.rcpt_tos for r in received] == [["player1@example.org"], ["player2@example.org"]]
    assert {r.user for r in received} == {user}


def test_no_tls_with_a_login_the_relay_does_not_offer(tmp_path: Path) -> None:
    with plain_server(Recorder(), login=False) as server:
        outbox = filled(tmp_path / "game", 1)
        result = deliver(outbox, settings(server.port, "none", None))
    assert result.never_works == (
        f'[smtp] user = "{USER}": the SMTP server {HOST}:{server.port} offers no login (AUTH) '
        "here; leave out user if it takes mail without one"
    )


def test_a_login_that_cannot_be_checked_now_is_tried_again(tmp_path: Path) -> None:
    def unavailable(*args: Any) -> AuthResult:
        return AuthResult(success=False, handled=False, message="454 4.7.0 Try again later")

    with plain_server(Recorder(), login=True, check=unavailable) as server:
        outbox = filled(tmp_path / "game", 1)
        result = deliver(outbox, settings(server.port, "none", None))
    assert result.never_works is None
    assert result.failed == (
        f"the SMTP server {HOST}:{server.port} refused the login as {USER}: "
        "454 4.7.0 Try again later"
    )
    assert len(outbox.pending()) == 1


def test_no_tls_is_refused_when_the_other_end_is_not_this_machine() -> None:
    class Elsewhere:
        def getpeername(self) -> tuple[str, int]:
            return ("192.0.2.7", 25)

    server = ServerSettings(
        host="localhost",
        port=25,
        user=None,
        tls="none",
        ca_file=None,
        password_env=None,
        password_command=None,
    )
    problem = not_local("the SMTP server localhost:25", server, Elsewhere())  # type: ignore[arg-type]
    assert problem == (
        '[smtp] tls = "none": the SMTP server localhost:25 was reached at 192.0.2.7, which is '
        "not this machine: no TLS is only for a server on this machine"
    )


class LoopbackPeer:
    def __init__(self, address: str) -> None:
        self.address = address

    def getpeername(self) -> tuple[str, int]:
        return (self.address, 25)


@pytest.mark.parametrize("address", ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"])
def test_no_tls_to_any_loopback_address(address: str) -> None:
    server = settings(25, "none", None, host="localhost").smtp
    assert server is not None
    assert not_local("x", server, LoopbackPeer(address)) is None  # type: ignore[arg-type]


# -- through the commands: exit codes ------------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path, players=3)


def config_for(table: Table, port: int, extra: str = "", ca_file: Path | None = None) -> Path:
    path = table.root / "smtp.toml"
    path.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n'
        f'[smtp]\nhost = "{HOST}"\nport = {port}\nuser = "{USER}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n'
        + (f'ca_file = "{ca_file}"\n' if ca_file else "")
        + extra
    )
    return path


def folder(table: Table, name: str) -> list[str]:
    return names(table.gamedir / "mail" / name)


@pytest.mark.seconds
def test_send_exits_0_when_a_mail_is_refused_for_good(table: Table, authority: Authority) -> None:
    recorder = Answering(rcpt={"bob@example.org": "550 5.1.1 No such user here"})
    with running_server(authority, "starttls", recorder=recorder) as server:
        config = config_for(table, server.port, 'tls = "starttls"\n', server.ca_file)
        result = run("send", table.gamedir, "--config", config)
        assert result.exit_code == 0, result.output
        failed = folder(table, "failed")  # bob's welcome and report
        assert [f.split("-", 1)[1] for f in failed] == ["welcome-bob.eml", "report-1-bob.eml"]
        for name in failed:
            assert (
                f"cairo-2026: refused for good, kept in mail/failed/: {name}: "
                "bob@example.org refused: 550 5.1.1 No such user here"
            ) in result.output.splitlines()
        assert [r.rcpt_tos for r in server.received] == [
            ["alice@example.org"],
            ["carol@example.org"],
        ] * 2
        again = run("send", table.gamedir, "--config", config)  # the game master is told
        assert again.exit_code == 0
        # once for the recipient and the server's answer, not once for each message (the
        # players are told the game is paused: bob's report of the turn never reached him)
        [notice] = [r for r in server.received[4:] if r.rcpt_tos == ["gm@example.org"]]
        assert f"File:     mail/failed/{failed[0]}" in notice.data.decode()
        count = len(server.received)
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        assert len(server.received) == count


def test_send_exits_75_for_a_refusal_for_now_then_0_once_given_up(
    table: Table, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Answering(rcpt={"bob@example.org": "450 4.2.1 Mailbox busy"})
    with running_server(authority, "tls", recorder=recorder) as server:
        config = config_for(table, server.port, 'give_up_after = "30m"\n', server.ca_file)
        result = run("send", table.gamedir, "--config", config)
        assert result.exit_code == 75, result.output
        assert "bob@example.org refused: 450 4.2.1 Mailbox busy (for now" in result.output
        assert [p.endswith("-bob.eml") for p in folder(table, "queue")] == [True, True]
        later(timedelta(minutes=31), monkeypatch)
        given_up = run("send", table.gamedir, "--config", config)
        assert given_up.exit_code == 0, given_up.output
        assert 'give_up_after = "30m")' in given_up.output
        assert len(folder(table, "failed")) == 2, "bob's welcome and report"
        assert [p.endswith("-failed-gm.eml") for p in folder(table, "queue")] == [True]


def test_mail_that_waited_out_an_outage_is_not_given_up_at_its_first_refusal(
    table: Table, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server could not be reached for three days, then greylisted the first try (450):
    the mail was older than give_up_after, and went to mail/failed/ at that first refusal
    ("still refused 73h after it was queued"), though it had been refused once. give_up_after
    counts from the server's first refusal for now."""
    config = config_for(table, 9, 'give_up_after = "1d"\n')  # port 9: nothing listens
    assert run("send", table.gamedir, "--config", config).exit_code == 75
    queued = folder(table, "queue")
    later(timedelta(days=3), monkeypatch)
    recorder = Answering(rcpt={"bob@example.org": "450 4.7.1 Greylisted, try again later"})
    with running_server(authority, "tls", recorder=recorder) as server:
        config = config_for(table, server.port, 'give_up_after = "1d"\n', server.ca_file)
        result = run("send", table.gamedir, "--config", config)
        assert result.exit_code == 75, result.output
        assert folder(table, "failed") == []
        assert [name for name in queued if name.endswith("-bob.eml")] == folder(table, "queue")
        later(timedelta(days=4, minutes=1), monkeypatch)  # a day after the first refusal
        given_up = run("send", table.gamedir, "--config", config)
        assert given_up.exit_code == 0, given_up.output
        assert "after the server first refused it for now" in given_up.output
        assert len(folder(table, "failed")) == 2, "bob's welcome and report"


def test_a_refusal_for_now_puts_neither_address_nor_server_words_in_the_journal(
    table: Table, authority: Authority
) -> None:
    """A public archive holds the journal: a server's answer, which often names the recipient,
    would tell whose an unnamed receipt (of grey press, of a vote) is. The game master reads
    it in the command's output."""
    answer = "452 4.2.2 <bob@example.org>: Mailbox full, try again later"
    recorder = Answering(rcpt={"bob@example.org": answer})
    with running_server(authority, "tls", recorder=recorder) as server:
        config = config_for(table, server.port, ca_file=server.ca_file)
        result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    assert "bob@example.org refused: 452 4.2.2 <bob@example.org>: Mailbox full" in result.output
    journal = (table.gamedir / "log.jsonl").read_text(encoding="utf-8")
    [sent] = [line for line in journal.splitlines() if json.loads(line)["type"] == "sent"]
    assert json.loads(sent)["sent"], "the others' mail went"
    assert "bob@example.org" not in journal
    assert "Mailbox full" not in journal


def test_send_exits_3_naming_the_setting_for_a_refused_login(
    table: Table, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_SMTP_PASSWORD", "wrong")
    with running_server(authority, "tls") as server:
        config = config_for(table, server.port, ca_file=server.ca_file)
        result = run("send", table.gamedir, "--config", config)
        assert server.received == []
    assert result.exit_code == 3, result.output
    assert (
        f'{config}: [smtp] user = "{USER}", password_env = "TEST_SMTP_PASSWORD": the SMTP server '
        f"{HOST}:{server.port} refused the login as {USER}: 535"
    ) in result.output
    assert len(folder(table, "queue")) == 6, "the welcomes and the reports"


def test_send_exits_3_naming_the_setting_when_starttls_is_not_offered(table: Table) -> None:
    with plain_server(Recorder(), login=False) as server:
        config = config_for(table, server.port, 'tls = "starttls"\n')
        result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 3, result.output
    assert (
        f'{config}: [smtp] tls = "starttls": the SMTP server {HOST}:{server.port} does not offer '
        "STARTTLS"
    ) in result.output


def test_send_exits_3_for_a_certificate_that_does_not_verify(
    table: Table, authority: Authority
) -> None:
    with running_server(authority, "tls") as server:
        config = config_for(table, server.port)
        result = run("send", table.gamedir, "--config", config)
        assert server.received == []
    assert result.exit_code == 3, result.output
    assert f"{config}: [smtp] ca_file (not set: the system's CAs): TLS with" in result.output
    assert len(folder(table, "queue")) == 6, "the welcomes and the reports"


def test_send_exits_3_for_no_tls_to_another_machine(table: Table) -> None:
    config = table.root / "smtp.toml"
    config.write_text('[smtp]\nhost = "mail.example.org"\ntls = "none"\n')
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 3, result.output
    assert f'{config}: [smtp] tls = "none": mail.example.org is not this machine' in result.output


def test_send_with_no_tls_to_a_local_relay(table: Table) -> None:
    with plain_server(Recorder(), login=False) as server:
        config = table.root / "smtp.toml"
        config.write_text(f'[smtp]\nhost = "localhost"\nport = {server.port}\ntls = "none"\n')
        result = run("send", table.gamedir, "--config", config)
        assert result.exit_code == 0, result.output
        assert len(server.recorder.received) == 6, "the welcomes and the reports"


def test_a_missing_password_exits_3(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_SMTP_PASSWORD")
    config = config_for(table, 25)
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 3, result.output
    assert "[smtp] password_env: the environment variable TEST_SMTP_PASSWORD" in result.output


@dataclass
class CountingSessions(Recorder):
    """A Recorder that counts the sessions (EHLOs) it is asked for."""

    sessions: int = 0

    async def handle_EHLO(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        self.sessions += 1
        return responses


def test_never_works_is_not_tried_again_for_the_next_game(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two games: the login refused for the first is not tried again for the second (a server
    may lock an account out after a few refused logins); the second's mail stays queued."""
    monkeypatch.setenv("TEST_SMTP_PASSWORD", "wrong")
    first, second = Table(tmp_path / "a", players=2), Table(tmp_path / "b", players=2)
    recorder = CountingSessions()
    with running_server(authority, "tls", recorder=recorder) as server:
        config = config_for(first, server.port, ca_file=server.ca_file)
        result = run("send", first.gamedir, second.gamedir, "--config", config)
    assert result.exit_code == 3, result.output
    assert recorder.sessions == 1
    assert len(folder(first, "queue")) == 4 and len(folder(second, "queue")) == 4


def test_a_report_refused_for_good_pauses_the_game_and_send_retry_delivers_it(
    table: Table, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game master walk-through: a player's report refused (after give_up_after) let the clock
    run, and the player got default orders for a turn never seen; moving the file back to the
    queue, as the notice said, left the journal naming a file that was gone and stopped the
    game (files-lost). Now the refusal pauses the game; `send --retry` queues a copy to the
    seat's address as it is now, in a step the journal follows; `resume` starts the clock."""
    recorder = Answering(rcpt={"bob@example.org": "550 5.1.1 No such user here"})
    with running_server(authority, "starttls", recorder=recorder) as server:
        config = config_for(table, server.port, 'tls = "starttls"\n', server.ca_file)
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        assert table.status()["paused"] is True
        assert table.status()["refused"] == 2  # bob's welcome and report, for the game master
        assert "2 messages refused for good in mail/failed/" in run("doctor", table.gamedir).output
        log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
        assert log[-1]["type"] == "paused" and log[-1]["refused"][0].endswith("report-1-bob.eml")
        replaced = run("replace", table.gamedir, "--player", "bob", "--email", "bob@new.example")
        assert replaced.exit_code == 0, replaced.output
        retried = run("send", table.gamedir, "--config", config, "--retry")
        assert retried.exit_code == 0, retried.output
        assert "cairo-2026: queued again from mail/failed/: " in retried.output
        assert run("doctor", table.gamedir).exit_code == 0
        to_bob = [r for r in server.received if r.rcpt_tos == ["bob@new.example"]]
        subjects = [
            BytesParser(policy=email.policy.default).parsebytes(r.data)["Subject"] for r in to_bob
        ]
        assert any("report for bob" in str(s) for s in subjects), subjects
        # each refused file moved on to failed/retried/ (the notice of the new address to the
        # old one is refused in its turn)
        assert not [name for name in folder(table, "failed") if "-report-" in name]
        assert run("resume", table.gamedir).exit_code == 0
        assert table.status()["paused"] is False
        assert table.status()["refused"] == 1  # the notice of the new address to the old one
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        assert table.status()["paused"] is False, "a refusal named once pauses once"


def test_a_send_cut_short_before_its_pause_pauses_at_the_next(
    table: Table, authority: Authority
) -> None:
    """The pause is read from mail/failed/ and the journal, not from one delivery's report: a
    send killed between its delivery step and the pause (here: the delivery step alone) leaves
    the game running, and the next send pauses it."""
    from adjudicator.mail import send
    from adjudicator.mail.config import load_config

    recorder = Answering(rcpt={"bob@example.org": "550 5.1.1 No such user here"})
    with running_server(authority, "starttls", recorder=recorder) as server:
        config = config_for(table, server.port, 'tls = "starttls"\n', server.ca_file)
        settings = load_config(config)
        send.queue_due(table.gamedir, settings)
        send._deliver(table.gamedir, settings)  # the delivery step, and then the kill
        assert [n for n in folder(table, "failed") if "-report-1-bob" in n]
        assert table.status()["paused"] is False
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        assert table.status()["paused"] is True


def test_send_retry_queues_nothing_from_a_refused_message_changed_by_hand(
    table: Table, authority: Authority
) -> None:
    """A refused message changed by hand in mail/failed/ was queued again as changed, then the
    step could not follow its move (a traceback, and every later `send` the same)."""
    recorder = Answering(rcpt={"bob@example.org": "550 5.1.1 No such user here"})
    with running_server(authority, "starttls", recorder=recorder) as server:
        config = config_for(table, server.port, 'tls = "starttls"\n', server.ca_file)
        assert run("send", table.gamedir, "--config", config).exit_code == 0
        [refused] = [
            table.gamedir / "mail" / "failed" / name
            for name in folder(table, "failed")
            if "-report-" in name
        ]
        refused.write_bytes(refused.read_bytes().replace(b"bob@example.org", b"x@evil.example"))
        for _ in range(2):
            retried = run("send", table.gamedir, "--config", config, "--retry")
            assert retried.exit_code in (4, 75), retried.output
            rel = refused.relative_to(table.gamedir)
            assert f"{rel} no longer holds what the journal named" in retried.output
            assert not [name for name in folder(table, "queue") if "-report-" in name]
            assert not [r for r in server.received if b"x@evil.example" in r.data]


def test_a_recipient_no_server_takes_is_failed_and_the_queue_goes_on(
    tmp_path: Path, authority: Authority
) -> None:
    """A message queued to an address that is not ASCII (taken by a game made before addresses
    were held to mail's rule) ended every send in the SMTP library's UnicodeEncodeError (exit
    75) and held every message queued after it, for ever. It is refused for good now, as a
    server's 5xx is, and the rest goes out."""
    with running_server(authority, "starttls") as server:
        outbox = filled(tmp_path / "game", 3)
        [first, second, third] = outbox.pending()
        data = second.read_bytes().replace(b"player2@example.org", "\u00fcx@example.org".encode())
        second.write_bytes(data)
        result = deliver(outbox, over(server))
        assert result.sent == [first.name, third.name], result
        [(name, why)] = result.refused_for_good
        assert name == second.name and "not an address a mail server takes" in why, why
        assert [r.rcpt_tos for r in server.received] == [
            ["player1@example.org"],
            ["player3@example.org"],
        ]
        assert names(outbox.failed) == [second.name]


@pytest.mark.parametrize("arrived", [True, False])
def test_mail_in_doubt_is_told_once_and_settled_by_send(
    table: Table, authority: Authority, arrived: bool
) -> None:
    """The connection broke after a message was handed over, before the server answered: it
    may have arrived. The game master was never told (that run exited 75, every later one 0),
    and the docs' advice, to move the file by hand, left the journal naming a file that was
    gone: every command stopped on the game. tick tells it once; `send --in-doubt arrived`
    (or `resend`) settles it in a step the journal records, and doctor finds nothing amiss."""
    with running_server(authority, "tls", recorder=Recorder(drop_after_data=True)) as server:
        config = config_for(table, server.port, ca_file=server.ca_file)
        first = run("send", table.gamedir, "--config", config)
        assert first.exit_code == 75, first.output
        [doubt] = folder(table, "sending")
        server.recorder.drop_after_data = False
        told = run("tick", table.gamedir, "--config", config)
        assert told.exit_code == 0, told.output
        assert f"game master told (once): 1 message of game cairo-2026 is in doubt: {doubt}" in (
            told.stderr
        )
        again = run("tick", table.gamedir, "--config", config)
        assert "in doubt" not in again.stderr, "once"
        count = len(server.received)
        word = "arrived" if arrived else "resend"
        settled = run("send", table.gamedir, "--config", config, "--in-doubt", word)
        assert settled.exit_code == 0, settled.output
        assert folder(table, "sending") == []
        assert (doubt in folder(table, "sent")) is True
        if arrived:
            assert f"{doubt} was in doubt and arrived: moved to mail/sent/" in settled.output
            assert len(server.received) == count
        else:
            assert f"{doubt} was in doubt and did not arrive: queued again" in settled.output
            assert len(server.received) == count + 1
        doctor = run("doctor", table.gamedir)
        assert doctor.exit_code == 0, doctor.output
        later = run("tick", table.gamedir, "--config", config)
        assert "resolved: no mail of game cairo-2026 is in doubt any more" in later.stderr


def test_a_server_that_answers_a_byte_at_a_time_is_given_up(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read's timeout never expires when the server sends a byte every few tenths of a
    second: send held the game's lock for as long as the server went on (a review killed it
    after 150 s). Each exchange (the session's opening, a message's transaction) now has a
    limit in all: the delivery stops for now, the mail stays queued."""
    import time

    from tests.drip import dripping

    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 1.0)  # each read: a byte comes within it
    began = time.monotonic()
    with dripping(b"220-") as port:
        result = run("send", table.gamedir, "--config", config_for(table, port, 'tls = "none"\n'))
    assert time.monotonic() - began < 10, "given up at the limit, 4 s"
    assert result.exit_code == 75, result.output
    assert "took more than 4 seconds to answer in all" in result.output
    assert len(folder(table, "queue")) == 6, "the welcomes and the reports wait"
