"""Mail going out: settings, composing, the crash-safe queue, and delivery to a real SMTP server
(aiosmtpd with TLS from a throwaway CA, tests/smtpserver.py) or to the outbox folder."""

from __future__ import annotations

import email.policy
import re
import shlex
import socket
import sys
from datetime import timedelta
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from adjudicator.mail import queue
from adjudicator.mail.config import (
    ConfigError,
    MailSettings,
    ServerSettings,
    config_path,
    load_config,
    password,
)
from adjudicator.mail.outgoing import (
    digest_mail,
    new_message_id,
    notice_mail,
    receipt_mail,
    report_mail,
    welcome_mail,
)
from adjudicator.mail.queue import Outbox, SendReport, deliver
from tests import smtpserver
from tests.smtpserver import (
    PASSWORD,
    USER,
    Authority,
    Recorder,
    Server,
    make_authority,
    running_server,
)

# The fixtures: a CA, and SMTP servers with implicit TLS and with STARTTLS, both with a login.
authority = smtpserver.authority
smtp_tls = smtpserver.smtp_tls
smtp_starttls = smtpserver.smtp_starttls

SENDER = "Adjudicator <adjudicator@example.org>"


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test waits long for a server or a lock."""
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)
    monkeypatch.setattr(queue, "LOCK_TIMEOUT", 2.0)


def text_of(part: MIMEPart | None) -> str:
    """A text part's content; a mail's lines end in CRLF, Python's in LF."""
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def parse(data: bytes) -> EmailMessage:
    message = BytesParser(policy=email.policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    return message


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- settings ----------------------------------------------------------------------------------


def test_no_file_counts_as_an_empty_one(tmp_path: Path) -> None:
    settings = load_config(tmp_path / "missing.toml")
    assert settings == MailSettings(sender=None, gm=None, smtp=None, imap=None, source=None)


def test_an_empty_file_has_no_settings(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "")
    settings = load_config(path)
    assert (settings.sender, settings.gm, settings.smtp, settings.imap) == (None,) * 4
    assert settings.source == path


def test_config_path_given_then_environment_then_user_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADJUDICATOR_CONFIG", raising=False)
    default = config_path(None)
    assert default.name == "config.toml"
    assert default.parent.name == "adjudicator"
    from_env = write(tmp_path / "env.toml", '[mail]\nfrom = "adj@example.org"\n')
    monkeypatch.setenv("ADJUDICATOR_CONFIG", str(from_env))
    assert config_path(None) == from_env
    assert load_config(None).sender == "adj@example.org"
    assert load_config(None).source == from_env
    given = write(tmp_path / "given.toml", "")
    assert config_path(given) == given
    assert load_config(given).sender is None


def test_a_full_config(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.pem").write_text("not checked here\n")
    path = write(
        tmp_path / "config.toml",
        """
[mail]
from = "Adjudicator <adjudicator@example.org>"
gm = "gm@example.org"

[smtp]
host = "smtp.example.org"
tls = "starttls"
user = "adj"
password_env = "SMTP_PASSWORD"
ca_file = "certs/ca.pem"

[imap]
host = "imap.example.org"
port = 9993
user = "adj"
password_command = "pass show imap"
folder = "Orders"
done_folder = "Orders/done"
setaside_folder = "Orders/odd"
""",
    )
    settings = load_config(path)
    assert settings.sender == "Adjudicator <adjudicator@example.org>"
    assert settings.gm == "gm@example.org"
    assert settings.smtp == ServerSettings(
        host="smtp.example.org",
        port=587,
        user="adj",
        tls="starttls",
        ca_file=tmp_path / "certs" / "ca.pem",
        password_env="SMTP_PASSWORD",
        password_command=None,
    )
    assert settings.imap is not None
    assert (settings.imap.port, settings.imap.tls) == (9993, "tls")
    assert settings.imap.password_command == "pass show imap"
    assert settings.imap.ca_file is None
    assert (settings.imap.folder, settings.imap.done_folder, settings.imap.setaside_folder) == (
        "Orders",
        "Orders/done",
        "Orders/odd",
    )


@pytest.mark.parametrize(
    ("table", "tls", "port"),
    [
        ("smtp", "tls", 465),
        ("smtp", "starttls", 587),
        ("imap", "tls", 993),
        ("imap", "starttls", 143),
    ],
)
def test_default_ports(tmp_path: Path, table: str, tls: str, port: int) -> None:
    path = write(tmp_path / "c.toml", f'[{table}]\nhost = "h.example.org"\ntls = "{tls}"\n')
    server = getattr(load_config(path), table)
    assert (server.port, server.tls, server.user) == (port, tls, None)


SMTP = '[smtp]\nhost = "smtp.example.org"\n'


@pytest.mark.parametrize("host", ["localhost", "LocalHost", "127.0.0.1", "127.0.0.53", "::1"])
@pytest.mark.parametrize(("table", "port"), [("smtp", 25), ("imap", 143)])
def test_no_tls_for_a_server_on_this_machine(
    tmp_path: Path, table: str, port: int, host: str
) -> None:
    path = write(tmp_path / "c.toml", f'[{table}]\nhost = "{host}"\ntls = "none"\n')
    server = getattr(load_config(path), table)
    assert (server.host, server.port, server.tls) == (host, port, "none")


def test_give_up_after(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", SMTP + 'give_up_after = "36h"\n')
    smtp = load_config(path).smtp
    assert smtp is not None and smtp.give_up_after == timedelta(hours=36)
    default = load_config(write(tmp_path / "d.toml", SMTP)).smtp
    assert default is not None and default.give_up_after == timedelta(days=3)


def test_stuck_after(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", '[mail]\nstuck_after = "90m"\n')
    assert load_config(path).stuck_after == timedelta(minutes=90)
    assert load_config(write(tmp_path / "d.toml", SMTP)).stuck_after == timedelta(hours=1)


def test_tls_is_the_default(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", '[smtp]\nhost = "h.example.org"\n')
    smtp = load_config(path).smtp
    assert smtp is not None
    assert (smtp.tls, smtp.port) == ("tls", 465)
    imap_defaults = write(tmp_path / "i.toml", '[imap]\nhost = "h.example.org"\n')
    imap = load_config(imap_defaults).imap
    assert imap is not None
    assert (imap.folder, imap.done_folder, imap.setaside_folder) == (
        "INBOX",
        "adjudicator/done",
        "adjudicator/set-aside",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[mail\n", "not valid TOML: "),
        ('[mail]\nfrom = "a@example.org"\nfrom = "b@example.org"\n', "not valid TOML: "),
        ("[smtpd]\n", "[smtpd]: unknown table (known: [mail], [smtp] and [imap])"),
        ("mail = 3\n", "mail: must be a table ([mail]), not a number"),
        (
            '[mail]\nsender = "a@example.org"\n',
            "[mail] sender: unknown key (known: from, gm, gm_copy, stuck_after)",
        ),
        ('[mail]\nfrom = "nobody"\n', "[mail] from: 'nobody' is not an email address"),
        ("[mail]\ngm = 7\n", "[mail] gm: must be a string, not a number"),
        ('[mail]\ngm = ""\n', "[mail] gm: must not be empty"),
        ("[smtp]\nport = 465\n", "[smtp] host: missing"),
        (SMTP + "hots = 1\n", "[smtp] hots: unknown key"),
        (SMTP + 'folder = "INBOX"\n', "[smtp] folder: unknown key"),
        (SMTP + 'password = "hunter2"\n', "[smtp] password: passwords are never stored in a file"),
        (SMTP + 'port = "465"\n', "[smtp] port: must be a whole number, not a string"),
        (SMTP + "port = true\n", "[smtp] port: must be a whole number, not a boolean"),
        (SMTP + "port = 0\n", "[smtp] port: must be between 1 and 65535, not 0"),
        (SMTP + "port = 70000\n", "[smtp] port: must be between 1 and 65535, not 70000"),
        (SMTP + 'tls = "none"\n', '[smtp] tls = "none": smtp.example.org is not this machine'),
        (
            '[smtp]\nhost = "localhost.example.org"\ntls = "none"\n',
            '[smtp] tls = "none": localhost.example.org is not this machine',
        ),
        (
            '[imap]\nhost = "192.168.1.2"\ntls = "none"\n',
            '[imap] tls = "none": 192.168.1.2 is not this machine',
        ),
        (SMTP + 'give_up_after = "3 days"\n', "[smtp] give_up_after: '3 days' is not a duration"),
        (SMTP + "give_up_after = 3\n", "[smtp] give_up_after: must be a string, not a number"),
        (SMTP + 'give_up_after = "0m"\n', "[smtp] give_up_after: must be longer than 0m"),
        ('[mail]\nstuck_after = "soon"\n', "[mail] stuck_after: 'soon' is not a duration"),
        ('[imap]\nhost = "i.example.org"\ngive_up_after = "1d"\n', "[imap] give_up_after: unknown"),
        (SMTP + 'tls = "plain"\n', "mail never goes in plain text"),
        (SMTP + "tls = false\n", '[smtp] tls: must be "tls" or "starttls", not false'),
        (SMTP + 'tls = "TLS"\n', '[smtp] tls: must be "tls" or "starttls", not "TLS"'),
        (
            SMTP + 'user = "u"\npassword_env = "P"\npassword_command = "pass x"\n',
            "[smtp]: give password_env or password_command, not both",
        ),
        (SMTP + 'user = "u"\n', "[smtp]: user is set: give password_env"),
        (SMTP + 'password_env = "P"\n', "[smtp] password_env: a password needs a user"),
        (SMTP + 'ca_file = "nowhere.pem"\n', "[smtp] ca_file: no such file: "),
        ('[imap]\nhost = "i.example.org"\nfolder = 3\n', "[imap] folder: must be a string"),
        ('[imap]\nhost = "i.example.org"\ntls = "ssl"\n', '[imap] tls: must be "tls" or'),
    ],
)
def test_config_errors_name_the_file_the_key_and_the_reason(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_toml_error_gives_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", '[smtp]\nhost = "a"\nport = = 3\n')
    with pytest.raises(ConfigError, match=r"line 3, column"):
        load_config(path)


def test_a_config_that_is_no_text_file(tmp_path: Path) -> None:
    binary = tmp_path / "config.toml"
    binary.write_bytes(b"[mail]\nfrom = '\xff'\n")
    with pytest.raises(ConfigError, match=r"config\.toml: not UTF-8 text"):
        load_config(binary)
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


def test_ca_file_is_relative_to_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "ca.pem").write_text("-\n")
    path = write(folder / "config.toml", SMTP + 'ca_file = "ca.pem"\n')
    monkeypatch.chdir(tmp_path)
    smtp = load_config(Path("etc/config.toml")).smtp
    assert smtp is not None
    assert smtp.ca_file is not None
    assert smtp.ca_file.resolve() == (folder / "ca.pem").resolve()
    absolute = write(folder / "abs.toml", SMTP + f"ca_file = '{folder / 'ca.pem'}'\n")
    assert load_config(absolute).smtp == load_config(path).smtp


def server_with(tmp_path: Path, lines: str) -> ServerSettings:
    path = write(tmp_path / "config.toml", SMTP + 'user = "adj"\n' + lines)
    settings = load_config(path)
    assert settings.smtp is not None
    return settings.smtp


def python_command(code: str) -> str:
    """A password_command running this Python (quoted, as a user would write it)."""
    return shlex.join([sys.executable, "-c", code])


def test_password_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = server_with(tmp_path, 'password_env = "ADJ_TEST_PW"\n')
    monkeypatch.setenv("ADJ_TEST_PW", "pässword")
    assert password(server) == "pässword"
    monkeypatch.delenv("ADJ_TEST_PW")
    with pytest.raises(ConfigError) as caught:
        password(server)
    assert str(caught.value) == (
        f"{tmp_path / 'config.toml'}: [smtp] password_env: the environment variable "
        "ADJ_TEST_PW is not set or empty"
    )


def test_password_from_a_command(tmp_path: Path) -> None:
    command = python_command("print('pw one'); print('second line')")
    server = server_with(tmp_path, f"password_command = '''{command}'''\n")
    assert password(server) == "pw one"


def test_a_password_command_runs_without_a_shell(tmp_path: Path) -> None:
    """docs/mail.md: split into words as a shell would, run without one: no variables, no
    ``;``, no pipes, no redirection."""
    marker = tmp_path / "marker"
    command = f'echo "$HOME" ; touch {marker} | cat > x'
    server = server_with(tmp_path, f"password_command = '''{command}'''\n")
    assert password(server) == f"$HOME ; touch {marker} | cat > x"
    assert not marker.exists()


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "import sys; sys.stderr.write('no key\\n'); sys.exit(3)",
            "failed with exit status 3: no key",
        ),
        ("pass", "printed no password"),
        ("print()", "printed no password"),
    ],
)
def test_a_password_command_that_fails(tmp_path: Path, code: str, message: str) -> None:
    server = server_with(tmp_path, f"password_command = '''{python_command(code)}'''\n")
    with pytest.raises(ConfigError) as caught:
        password(server)
    assert str(caught.value).startswith(f"{tmp_path / 'config.toml'}: [smtp] password_command: ")
    assert message in str(caught.value)


def test_a_password_command_that_does_not_exist(tmp_path: Path) -> None:
    server = server_with(tmp_path, "password_command = 'no-such-program-here --x'\n")
    with pytest.raises(ConfigError, match="no such program: no-such-program-here"):
        password(server)
    unbalanced = server_with(tmp_path, "password_command = 'pass \"show'\n")
    with pytest.raises(ConfigError, match="cannot be split into words"):
        password(unbalanced)


def test_no_user_no_password(tmp_path: Path) -> None:
    settings = load_config(write(tmp_path / "c.toml", SMTP))
    assert settings.smtp is not None
    assert password(settings.smtp) is None


# -- composing ---------------------------------------------------------------------------------


def test_message_ids() -> None:
    first = new_message_id(SENDER, "cairo.turn3.alice")
    second = new_message_id(SENDER, "cairo.turn3.alice")
    assert re.fullmatch(r"<cairo\.turn3\.alice\.[0-9a-f]{32}@example\.org>", first)
    assert first != second
    assert re.fullmatch(r"<j-rgen-x\.[0-9a-f]{32}@localhost>", new_message_id("nobody", "jürgen x"))
    assert new_message_id("a@bücher.example", "x").endswith("@xn--bcher-kva.example>")


def test_a_report_with_its_order_form() -> None:
    form = "# Your bids (choose 1-5):\nbids: [3, 5]   # ä\n"
    message = report_mail(
        subject=f"[{'cairo-2026'}] turn {3}: report for {'zoë'}",
        sender=SENDER,
        to="Zoë <zoe@example.org>",
        game_id="cairo-2026",
        player="zoë",
        turn=3,
        body="Turn 3 — the jewels are out.\n",
        form=form,
        message_id="<r1@example.org>",
    )
    data = message.as_bytes()
    assert data.isascii()
    assert all(len(line) <= 998 for line in data.split(b"\r\n"))
    parsed = parse(data)
    assert parsed["Subject"] == "[cairo-2026] turn 3: report for zoë"
    assert parsed["From"] == SENDER
    assert parsed["To"].addresses[0].addr_spec == "zoe@example.org"
    assert parsed["To"].addresses[0].display_name == "Zoë"
    assert parsed["Message-ID"] == "<r1@example.org>"
    assert parsedate_to_datetime(parsed["Date"]).tzinfo is not None
    assert parsed.get_content_type() == "multipart/mixed"
    assert text_of(parsed.get_body(("plain",))) == "Turn 3 — the jewels are out.\n"
    [attachment] = list(parsed.iter_attachments())
    assert isinstance(attachment, EmailMessage)
    assert attachment.get_filename() == "cairo-2026-turn3-zoë.yaml"
    assert attachment.get_content_type() == "text/plain"
    assert attachment.get_content_charset() == "utf-8"
    assert attachment.get_content_disposition() == "attachment"
    assert attachment.get_payload(decode=True) == form.encode("utf-8")


def test_a_report_without_a_form_is_one_text() -> None:
    message = report_mail(
        subject=f"[{'cairo'}] turn {9}: report for {'zoe'}",
        sender=SENDER,
        to="zoe@example.org",
        game_id="cairo",
        player="zoe",
        turn=9,
        body="The game is over.\n",
        form=None,
        message_id="<r2@example.org>",
    )
    parsed = parse(message.as_bytes())
    assert parsed.get_content_type() == "text/plain"
    assert text_of(parsed) == "The game is over.\n"
    assert list(parsed.iter_attachments()) == []


def test_a_receipt_threads_on_the_order_message() -> None:
    message = receipt_mail(
        sender=SENDER,
        to="alice@example.org",
        game_id="cairo",
        subject="[cairo] turn 2: order accepted",
        in_reply_to="<order-2@mail.example>",
        references=["<start@mail.example> <report@example.org>", "<order-2@mail.example>"],
        body="Your order was accepted.\nSHA-256: " + "0" * 64 + "\n",
        message_id="<receipt@example.org>",
    )
    parsed = parse(message.as_bytes())
    assert parsed["Subject"] == "[cairo] turn 2: order accepted"
    assert parsed["In-Reply-To"] == "<order-2@mail.example>"
    assert parsed["References"].split() == [
        "<start@mail.example>",
        "<report@example.org>",
        "<order-2@mail.example>",
    ]
    assert parsed["To"] == "alice@example.org"
    assert parsed["Auto-Submitted"] == "auto-replied"
    assert parsed["Message-ID"] == "<receipt@example.org>"
    assert parsed["Date"]
    assert text_of(parsed).startswith("Your order was accepted.\n")


def test_a_receipt_without_a_parent() -> None:
    message = receipt_mail(
        sender=SENDER,
        to="alice@example.org",
        game_id="cairo",
        subject="orders",
        in_reply_to=None,
        references=[],
        body="x\n",
        message_id="<r@example.org>",
    )
    assert message["In-Reply-To"] is None
    assert message["References"] is None
    only_parent = receipt_mail(
        sender=SENDER,
        to="alice@example.org",
        game_id="cairo",
        subject="orders",
        in_reply_to="<p@example.org>",
        references=[],
        body="x\n",
        message_id="<r@example.org>",
    )
    assert only_parent["References"] == "<p@example.org>"


def test_a_receipt_carries_only_valid_message_ids() -> None:
    """In-Reply-To and References take from the message only what has msg-id syntax."""
    message = receipt_mail(
        sender=SENDER,
        to="alice@example.org",
        game_id="cairo",
        subject="[cairo] turn 1: order accepted",
        in_reply_to="<bad id@x>",
        references=["no-brackets@x <ok@x> <a@b>\r\nBcc: x@evil", "<[1]@x> <two@@x>"],
        body="x\n",
        message_id="<r@example.org>",
    )
    parsed = parse(message.as_bytes())
    assert parsed["In-Reply-To"] is None
    assert parsed["References"].split() == ["<ok@x>", "<a@b>"]
    assert parsed["Bcc"] is None
    many = [f"<m{n}@x>" for n in range(50)]
    threaded = receipt_mail(
        sender=SENDER,
        to="alice@example.org",
        game_id="cairo",
        subject="s",
        in_reply_to="<last@x>",
        references=many,
        body="x\n",
        message_id="<r@example.org>",
    )
    chain = threaded["References"].split()
    # The first id (the start of the thread) and the latest ones.
    assert len(chain) == 20 and chain[-1] == "<last@x>" and chain[:2] == ["<m0@x>", "<m32@x>"]


def test_a_notice_is_one_text_and_carries_nothing() -> None:
    message = notice_mail(
        sender=SENDER,
        to="gm@example.org",
        subject="[cairo] a message was set aside",
        body="A message was set aside.\n",
        message_id="<n@example.org>",
    )
    parsed = parse(message.as_bytes())
    assert parsed["Subject"] == "[cairo] a message was set aside"
    assert parsed.get_content_type() == "text/plain"
    assert list(parsed.iter_attachments()) == []


def every_composer() -> list[tuple[str, EmailMessage]]:
    """One message from each composer in adjudicator.mail.outgoing."""
    return [
        (
            "report_mail",
            report_mail(
                subject=f"[{'cairo'}] turn {1}: report for {'a'}",
                sender=SENDER,
                to="a@example.org",
                game_id="cairo",
                player="a",
                turn=1,
                body="r\n",
                form="bid: {}\n",
                message_id="<1@x>",
            ),
        ),
        (
            "receipt_mail",
            receipt_mail(
                sender=SENDER,
                to="a@example.org",
                game_id="cairo",
                subject="s",
                in_reply_to="<p@x>",
                references=[],
                body="b\n",
                message_id="<2@x>",
            ),
        ),
        (
            "digest_mail",
            digest_mail(
                sender=SENDER,
                to="a@example.org",
                game_id="cairo",
                subject="s",
                body="b\n",
                message_id="<3@x>",
            ),
        ),
        (
            "notice_mail",
            notice_mail(
                sender=SENDER, to="gm@example.org", subject="s", body="b\n", message_id="<4@x>"
            ),
        ),
        (
            "welcome_mail",
            welcome_mail(
                sender=SENDER,
                to="a@example.org",
                subject="s",
                body="b\n",
                html="<p>b</p>",
                message_id="<5@x>",
            ),
        ),
    ]


def test_every_message_sent_is_marked_auto_submitted(monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC 3834: answers are auto-replied, everything else auto-generated; and every composer
    in the module is covered here (a new one must be added to every_composer)."""
    from adjudicator.mail import outgoing

    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T20:00:00+01:00")
    composers = {
        name
        for name, value in vars(outgoing).items()
        if name.endswith("_mail") and callable(value) and not name.startswith("_")
    }
    made = dict(every_composer())
    assert set(made) == composers
    answers = {"receipt_mail", "digest_mail"}
    for name, message in made.items():
        parsed = parse(message.as_bytes())
        want = "auto-replied" if name in answers else "auto-generated"
        assert parsed["Auto-Submitted"] == want, name
        assert parsed["Date"] == "Mon, 23 Nov 2026 19:00:00 +0000", "the adjudicator's clock"


# -- the queue ---------------------------------------------------------------------------------


def report(n: int, to: str = "") -> EmailMessage:
    return report_mail(
        subject=f"[{'cairo'}] turn {1}: report for {f'player{n}'}",
        sender=SENDER,
        to=to or f"player{n}@example.org",
        game_id="cairo",
        player=f"player{n}",
        turn=1,
        body=f"Report {n}.\n.a line starting with a dot\n",
        form="bids: []\n",
        message_id=new_message_id(SENDER, f"cairo.turn1.player{n}"),
    )


def filled(gamedir: Path, count: int, **kwargs: Any) -> Outbox:
    outbox = Outbox(gamedir)
    for n in range(1, count + 1):
        outbox.put(report(n, **kwargs), f"report-1-player{n}")
    return outbox


def names(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_put_names_sort_in_the_order_written(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path)
    assert not (tmp_path / "mail").exists()
    assert outbox.pending() == []
    assert outbox.in_doubt() == []
    labels = ["report-1-zed", "receipt-alice", "setaside-gm", "answer-jürgen/../x"]
    paths = [outbox.put(report(n), label) for n, label in enumerate(labels)]
    assert names(paths) == [
        "000001-report-1-zed.eml",
        "000002-receipt-alice.eml",
        "000003-setaside-gm.eml",
        "000004-answer-j-rgen-..-x.eml",
    ]
    assert outbox.pending() == paths
    assert all(p.parent == tmp_path / "mail" / "queue" for p in paths)
    assert sorted(p.name for p in (tmp_path / "mail" / "queue").iterdir()) == names(paths)


OUTBOX_ONLY = MailSettings(sender=None, gm=None, smtp=None, imap=None, source=None)


def test_without_smtp_messages_go_to_the_outbox_folder(tmp_path: Path) -> None:
    outbox = filled(tmp_path, 3)
    queued = {p.name: p.read_bytes() for p in outbox.pending()}
    result = deliver(outbox, OUTBOX_ONLY)
    assert result == SendReport(sent=[], written=sorted(queued), in_doubt=[], failed=None)
    written = sorted((tmp_path / "outbox").iterdir())
    assert names(written) == sorted(queued)
    assert {p.name: p.read_bytes() for p in written} == queued
    assert names(sorted((tmp_path / "mail" / "sent").iterdir())) == sorted(queued)
    assert outbox.pending() == []
    assert deliver(outbox, OUTBOX_ONLY) == SendReport(sent=[], written=[], in_doubt=[])
    later = outbox.put(report(9), "report-2-player9")
    assert later.name == "000004-report-2-player9.eml"
    assert deliver(outbox, OUTBOX_ONLY).written == [later.name]
    written_again = names(sorted((tmp_path / "outbox").iterdir()))
    assert written_again == [*sorted(queued), later.name]


def test_nothing_pending_connects_to_nothing(tmp_path: Path) -> None:
    def connect(server: ServerSettings, secret: str | None) -> Any:
        raise AssertionError("no connection wanted")

    settings = smtp_settings_for("127.0.0.1", 1, "tls", None, user=None)
    assert deliver(Outbox(tmp_path), settings, connect=connect) == SendReport()


# -- delivery over SMTP ------------------------------------------------------------------------


def smtp_settings_for(
    host: str,
    port: int,
    tls: Any,
    ca_file: Path | None,
    *,
    user: str | None = USER,
    password_env: str | None = "ADJ_TEST_SMTP_PASSWORD",
    password_command: str | None = None,
) -> MailSettings:
    server = ServerSettings(
        host=host,
        port=port,
        user=user,
        tls=tls,
        ca_file=ca_file,
        password_env=password_env if user and not password_command else None,
        password_command=password_command if user else None,
    )
    return MailSettings(sender=SENDER, gm=None, smtp=server, imap=None, source=None)


def settings_for(server: Server, **kwargs: Any) -> MailSettings:
    return smtp_settings_for(server.host, server.port, server.tls, server.ca_file, **kwargs)


@pytest.fixture
def smtp_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJ_TEST_SMTP_PASSWORD", PASSWORD)


def assert_all_sent(
    outbox: Outbox, server: Server, result: SendReport, queued: dict[str, bytes]
) -> None:
    assert result == SendReport(sent=sorted(queued), written=[], in_doubt=[], failed=None)
    assert [r.data for r in server.received] == [queued[name] for name in sorted(queued)]
    assert {r.user for r in server.received} == {USER}
    assert outbox.pending() == []
    assert outbox.in_doubt() == []
    assert names(sorted(outbox.sent.iterdir())) == sorted(queued)
    assert not outbox.outbox.exists()


@pytest.mark.usefixtures("smtp_password")
def test_deliver_over_implicit_tls_with_login(tmp_path: Path, smtp_tls: Server) -> None:
    outbox = filled(tmp_path / "game", 3)
    queued = {p.name: p.read_bytes() for p in outbox.pending()}
    result = deliver(outbox, settings_for(smtp_tls))
    assert_all_sent(outbox, smtp_tls, result, queued)
    first = smtp_tls.received[0]
    assert first.mail_from == "adjudicator@example.org"
    assert first.rcpt_tos == ["player1@example.org"]
    body = parse(first.data).get_body(("plain",))
    assert text_of(body) == "Report 1.\n.a line starting with a dot\n"


def test_deliver_over_starttls_with_a_password_command(
    tmp_path: Path, smtp_starttls: Server
) -> None:
    outbox = filled(tmp_path / "game", 2)
    queued = {p.name: p.read_bytes() for p in outbox.pending()}
    command = python_command(f"print({PASSWORD!r})")
    result = deliver(outbox, settings_for(smtp_starttls, password_command=command))
    assert_all_sent(outbox, smtp_starttls, result, queued)
    assert [r.rcpt_tos for r in smtp_starttls.received] == [
        ["player1@example.org"],
        ["player2@example.org"],
    ]


@pytest.mark.usefixtures("smtp_password")
@pytest.mark.parametrize("tls", ["tls", "starttls"])
def test_a_session_sends_each_write_at_once(tmp_path: Path, tls: str, request: Any) -> None:
    """The SMTP session's socket does not hold back a write until the server acknowledges the
    one before (TCP_NODELAY): the last TLS record of a report with its pictures goes out at
    once, not after the server's delayed acknowledgement (benchmarks/README.md)."""
    server: Server = request.getfixturevalue(f"smtp_{tls}")
    settings = settings_for(server)
    assert settings.smtp is not None
    client = queue.smtp_connect(settings.smtp, PASSWORD)
    try:
        assert client.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        big = "a line of a report with its pictures\r\n" * 2000  # some 76 KB: five records
        message = f"From: {SENDER}\r\nTo: player1@example.org\r\nSubject: big\r\n\r\n{big}"
        client.sendmail("adjudicator@example.org", ["player1@example.org"], message)
    finally:
        client.quit()
    assert server.received[-1].data.endswith(b"a line of a report with its pictures\r\n")


def assert_nothing_sent(outbox: Outbox, queued: list[Path]) -> None:
    assert outbox.pending() == queued
    assert outbox.in_doubt() == []
    assert not outbox.sent.exists() or list(outbox.sent.iterdir()) == []


@pytest.mark.usefixtures("smtp_password")
@pytest.mark.parametrize("tls", ["tls", "starttls"])
def test_a_certificate_from_another_ca_is_refused(tmp_path: Path, tls: Any) -> None:
    trusted = make_authority(tmp_path / "trusted")
    other = make_authority(tmp_path / "other")
    with running_server(other, tls) as server:
        outbox = filled(tmp_path / "game", 2)
        queued = outbox.pending()
        settings = smtp_settings_for(server.host, server.port, tls, trusted.ca_file)
        result = deliver(outbox, settings)
        assert server.received == []
    assert result.sent == []
    assert result.failed is None
    assert result.never_works is not None
    assert result.never_works.startswith(
        f'[smtp] ca_file = "{trusted.ca_file}": '
        f"TLS with the SMTP server 127.0.0.1:{server.port} failed: the certificate was not trusted"
    )
    assert "\n" not in result.never_works
    assert_nothing_sent(outbox, queued)


@pytest.mark.usefixtures("smtp_password")
def test_the_system_trust_store_does_not_know_the_test_ca(tmp_path: Path, smtp_tls: Server) -> None:
    outbox = filled(tmp_path / "game", 1)
    result = deliver(outbox, smtp_settings_for(smtp_tls.host, smtp_tls.port, "tls", None))
    assert result.never_works is not None
    assert result.never_works.startswith("[smtp] ca_file (not set: the system's CAs): TLS with")
    assert "the certificate was not trusted" in result.never_works
    assert smtp_tls.received == []


@pytest.mark.usefixtures("smtp_password")
def test_a_certificate_for_another_host_name_is_refused(
    tmp_path: Path, authority: Authority
) -> None:
    with running_server(authority, "tls", names=("localhost",)) as server:
        outbox = filled(tmp_path / "game", 1)
        result = deliver(outbox, settings_for(server))
        assert server.received == []
    assert result.never_works is not None
    assert result.never_works.startswith(
        f'[smtp] host = "127.0.0.1": the certificate of the SMTP server 127.0.0.1:{server.port} '
        "is not for this name: "
    )
    assert "127.0.0.1" in result.never_works.partition("not for this name")[2]
    assert len(outbox.pending()) == 1


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.usefixtures("smtp_password")
def test_an_unreachable_server_fails_cleanly(tmp_path: Path) -> None:
    outbox = filled(tmp_path / "game", 2)
    queued = outbox.pending()
    port = closed_port()
    result = deliver(outbox, smtp_settings_for("127.0.0.1", port, "tls", None))
    why = f"cannot reach the SMTP server 127.0.0.1:{port}: connection refused"
    assert result == SendReport(failed=why, stopped=why)
    assert_nothing_sent(outbox, queued)


@pytest.mark.usefixtures("smtp_password")
def test_implicit_tls_to_a_starttls_server_fails_cleanly(
    tmp_path: Path, smtp_starttls: Server
) -> None:
    outbox = filled(tmp_path / "game", 1)
    settings = smtp_settings_for(
        smtp_starttls.host, smtp_starttls.port, "tls", smtp_starttls.ca_file
    )
    result = deliver(outbox, settings)
    assert result.failed is not None
    assert result.failed.startswith(f"TLS with the SMTP server 127.0.0.1:{smtp_starttls.port}")
    assert 'is tls = "starttls" meant?' in result.failed
    assert len(outbox.pending()) == 1


@pytest.mark.usefixtures("smtp_password")
def test_starttls_to_an_implicit_tls_server_times_out_cleanly(
    tmp_path: Path, smtp_tls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 0.5)
    outbox = filled(tmp_path / "game", 1)
    settings = smtp_settings_for(smtp_tls.host, smtp_tls.port, "starttls", smtp_tls.ca_file)
    result = deliver(outbox, settings)
    assert result.failed is not None
    assert result.failed == (
        f"the SMTP server 127.0.0.1:{smtp_tls.port} gave no answer within 0.5 seconds"
    )
    assert len(outbox.pending()) == 1


def test_a_wrong_password_is_refused(tmp_path: Path, smtp_starttls: Server, monkeypatch) -> None:
    monkeypatch.setenv("ADJ_TEST_SMTP_PASSWORD", "wrong")
    outbox = filled(tmp_path / "game", 1)
    result = deliver(outbox, settings_for(smtp_starttls))
    assert result.failed is None
    assert result.never_works is not None
    assert result.never_works.startswith(
        f'[smtp] user = "{USER}", password_env = "ADJ_TEST_SMTP_PASSWORD": '
        f"the SMTP server 127.0.0.1:{smtp_starttls.port} refused the login as {USER}: 535"
    )
    assert smtp_starttls.received == []
    assert len(outbox.pending()) == 1


def test_no_login_where_the_server_wants_one(tmp_path: Path, smtp_tls: Server) -> None:
    outbox = filled(tmp_path / "game", 2)
    result = deliver(outbox, settings_for(smtp_tls, user=None))
    assert result.failed is None
    assert result.never_works == (
        f"[smtp] user (not set): the SMTP server 127.0.0.1:{smtp_tls.port} wants a login: "
        "530 5.7.0 Authentication required"
    )
    assert smtp_tls.received == []
    assert len(outbox.pending()) == 2
    assert outbox.in_doubt() == []


def test_a_missing_password_raises_before_anything_moves(
    tmp_path: Path, smtp_tls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADJ_TEST_SMTP_PASSWORD", raising=False)
    outbox = filled(tmp_path / "game", 1)
    queued = outbox.pending()
    with pytest.raises(ConfigError, match="ADJ_TEST_SMTP_PASSWORD is not set"):
        deliver(outbox, settings_for(smtp_tls))
    assert_nothing_sent(outbox, queued)


class SimulatedCrash(BaseException):
    """The process dies here."""


@pytest.mark.usefixtures("smtp_password")
def test_a_crash_after_the_server_accepted_leaves_the_message_in_doubt(
    tmp_path: Path, smtp_tls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    outbox = filled(tmp_path / "game", 2)
    [first, second] = outbox.pending()
    real_move = queue.move_into

    def crash_before_sent(path: Path, folder: Path) -> Path:
        if folder == outbox.sent:
            raise SimulatedCrash
        return real_move(path, folder)

    monkeypatch.setattr(queue, "move_into", crash_before_sent)
    with pytest.raises(SimulatedCrash):
        deliver(outbox, settings_for(smtp_tls))
    assert len(smtp_tls.received) == 1
    assert names(outbox.in_doubt()) == [first.name]
    assert outbox.pending() == [second]

    monkeypatch.setattr(queue, "move_into", real_move)
    result = deliver(outbox, settings_for(smtp_tls))
    assert result == SendReport(sent=[second.name], in_doubt=[first.name])
    assert [r.rcpt_tos for r in smtp_tls.received] == [
        ["player1@example.org"],
        ["player2@example.org"],
    ]
    assert deliver(outbox, settings_for(smtp_tls)) == SendReport(in_doubt=[first.name])
    assert len(smtp_tls.received) == 2


@pytest.mark.usefixtures("smtp_password")
def test_a_connection_lost_before_the_answer_leaves_the_message_in_doubt(
    tmp_path: Path, authority: Authority
) -> None:
    recorder = Recorder(drop_after_data=True)
    with running_server(authority, "tls", recorder=recorder) as server:
        outbox = filled(tmp_path / "game", 2)
        [first, second] = outbox.pending()
        result = deliver(outbox, settings_for(server))
        assert result.sent == []
        assert result.in_doubt == [first.name]
        assert result.failed is not None
        assert result.failed.startswith(f"{first.name}: the connection broke after the message")
        assert outbox.pending() == [second]
        recorder.drop_after_data = False
        again = deliver(outbox, settings_for(server))
        assert again == SendReport(sent=[second.name], in_doubt=[first.name])
        assert [r.rcpt_tos for r in server.received] == [
            ["player1@example.org"],
            ["player2@example.org"],
        ]


def test_a_second_delivery_at_the_same_time_waits_then_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue, "LOCK_TIMEOUT", 0.2)
    outbox = filled(tmp_path, 1)
    queued = outbox.pending()
    with FileLock(str(tmp_path / "mail" / ".send.lock"), timeout=1):
        result = deliver(outbox, OUTBOX_ONLY)
    assert result.failed is not None
    assert "locked by another command" in result.failed
    assert outbox.pending() == queued
    assert deliver(outbox, OUTBOX_ONLY).written == names(queued)
