"""The game master is told once, against a real aiosmtpd (tests/smtpserver.py): mail stuck in a
queue, a server that keeps failing, a recipient refused for good and a game folder that cannot
be read each come as one notice (queued to ``[mail] gm``) and one line on tick's standard error,
and again only when the facts change."""

from __future__ import annotations

import email.policy
import shutil
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from adjudicator.mail import nogame, queue
from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.queue import Outbox
from adjudicator.present import mail as present_mail
from adjudicator.rules.contract import Msg
from tests import smtpserver
from tests.helpers import Table, run
from tests.smtpserver import HOST, PASSWORD, USER, Authority, Recorder, Server, running_server

authority = smtpserver.authority

START = datetime.fromisoformat("2026-11-23T10:00:00+00:00")
GM = "gm@example.org"


@pytest.fixture(autouse=True)
def short_timeouts_and_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)


def at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", moment.isoformat())


def settings_for(folder: Path, server: Server) -> Path:
    config = folder / "smtp.toml"
    config.write_text(
        f'[mail]\nfrom = "gm-bot@example.org"\ngm = "{GM}"\n'
        f'[smtp]\nhost = "{HOST}"\nport = {server.port}\nuser = "{USER}"\n'
        f'password_env = "TEST_SMTP_PASSWORD"\nca_file = "{server.ca_file}"\n'
    )
    return config


def to_gm(server: Server) -> list[EmailMessage]:
    parser = BytesParser(policy=email.policy.default)
    found = [parser.parsebytes(r.data) for r in server.received]  # type: ignore[misc]
    return [m for m in found if str(m["To"]) == GM]


def told(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "game master told" in line]


@pytest.mark.seconds
def test_mail_stuck_is_told_once_and_sent_when_the_server_is_back(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    with running_server(authority, "tls") as gone:
        config = settings_for(tmp_path, gone)  # stopped on leaving: nobody answers there
    ticks = []
    for hours in (0, 1.1, 2.2, 3.3):
        at(monkeypatch, START + timedelta(hours=hours))
        result = run("tick", table.gamedir, "--config", config)
        assert result.exit_code == 75, result.output
        ticks.append(told(result.stderr))
    first, second, third, fourth = ticks
    assert first == [], "nothing waited an hour yet"
    [stuck] = [line for line in second if "waiting to be sent" in line]
    [server] = [line for line in second if "failing" in line]
    assert "cairo-2026" in stuck and "waiting to be sent since 2026-11-23 10:00 UTC" in stuck
    assert "adjudicator send" in stuck and "connection refused" in stuck
    assert "SMTP server" in server and "failing since 2026-11-23 10:00 UTC" in server
    assert third == [] and fourth == [], "the same facts are not told again"

    with running_server(authority, "tls") as back:
        at(monkeypatch, START + timedelta(hours=4))
        result = run("tick", table.gamedir, "--config", settings_for(tmp_path, back))
        assert result.exit_code == 0, result.output
        [notice] = [m for m in to_gm(back) if "waiting to be sent" in str(m["Subject"])]
        assert "cairo-2026" in str(notice["Subject"])
        assert len([m for m in to_gm(back) if "SMTP server" in str(m["Subject"])]) == 1
        assert "resolved" in result.stderr
    at(monkeypatch, START + timedelta(hours=5))
    with running_server(authority, "tls") as again:
        result = run("tick", table.gamedir, "--config", settings_for(tmp_path, again))
        assert result.exit_code == 0, result.output
        assert told(result.stderr) == [] and "resolved" not in result.stderr
        assert to_gm(again) == []


def test_a_recipient_refused_for_good_is_told_once(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    at(monkeypatch, START)
    refused = f"{table.names[0]}@example.org"
    recorder = Recorder(refuse={refused})
    with running_server(authority, "tls", recorder=recorder) as server:
        config = settings_for(tmp_path, server)
        lines = []
        for hours in (0, 1, 2):
            at(monkeypatch, START + timedelta(hours=hours))
            if hours:  # one more message to the refused address
                message = notice_mail(
                    sender="gm-bot@example.org",
                    to=refused,
                    subject="[cairo-2026] a word",
                    body="Hello.\n",
                    message_id=new_message_id("gm-bot@example.org", "word"),
                )
                Outbox(table.gamedir).put(message, "word")
            result = run("tick", table.gamedir, "--config", config)
            assert result.exit_code == 0, result.output
            lines += told(result.stderr)
        run("tick", table.gamedir, "--config", config)  # the notices queued last go out
        [line] = lines
        assert refused in line and "550 5.1.1 No such user here" in line
        [notice] = [m for m in to_gm(server) if "refused" in str(m["Subject"]).lower()]
        assert refused in str(notice.get_body(("plain",)).get_content())  # type: ignore[union-attr]


def test_an_unreadable_game_folder_is_told_once_by_mail(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = tmp_path / "games"
    games.mkdir()
    for name in ("cairo-2026", "giza-2026"):
        table = Table(tmp_path / name, players=3, game_id=name)
        shutil.move(table.gamedir, games / name)
    (games / "giza-2026" / "game.json").write_text("{ not json")
    with running_server(authority, "tls") as server:
        config = settings_for(tmp_path, server)
        lines = []
        for hours in (0, 1, 2):
            at(monkeypatch, START + timedelta(hours=hours))
            result = run("tick", games, "--config", config)
            assert result.exit_code == 75, result.output
            assert "giza-2026: left for a later run: the game cannot be read" in result.stderr
            lines += told(result.stderr)
        [line] = lines
        assert "giza-2026" in line and "cannot be read" in line
        [notice] = [m for m in to_gm(server) if "cannot be read" in str(m["Subject"])]
        assert "giza-2026" in str(notice["Subject"])


def test_the_notice_is_in_the_game_masters_language() -> None:
    about = Msg("mail-told-unreadable-subject", {"folder": "giza-2026"})
    text = Msg("told-unreadable", {"folder": "games/giza-2026", "why": "ValueError: x"})
    words = present_mail.told(about=about, text=text, lang="de")
    assert words.subject == "[adjudicator] der Spielordner giza-2026 kann nicht gelesen werden"
    assert "`adjudicator doctor games/giza-2026` sagt, warum." in words.body
    assert "erneut nur, wenn es sich ändert" in words.body


def test_a_damaged_memory_tells_again_and_one_that_cannot_be_written_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = tmp_path / "games"
    games.mkdir()
    Table(tmp_path / "giza", players=3, game_id="giza-2026")
    shutil.move(tmp_path / "giza" / "game", games / "giza-2026")
    (games / "giza-2026" / "game.json").write_text("{ not json")
    at(monkeypatch, START)
    memory = nogame.root() / "told.json"
    memory.parent.mkdir(parents=True)
    memory.write_text("[damaged")
    result = run("tick", games)
    assert result.exit_code == 75, result.output
    [line] = told(result.stderr)
    assert "here only: no [mail] gm" in line and "giza-2026" in line
    assert told(run("tick", games).stderr) == []
    memory.unlink()
    memory.mkdir()  # it can be neither read nor replaced
    result = run("tick", games)
    assert result.exit_code == 75, result.output
    assert "what the game master was told cannot be remembered" in result.stderr


def test_what_changes_is_told_again(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    with running_server(authority, "tls") as first:
        config = settings_for(tmp_path, first)
    moved = tmp_path / "moved.toml"  # the same port by another name: other words
    moved.write_text(config.read_text().replace(f'host = "{HOST}"', 'host = "localhost"'))
    counts = []
    for hours, settings in ((0, config), (1.1, config), (2.2, moved), (3.3, moved)):
        at(monkeypatch, START + timedelta(hours=hours))
        result = run("tick", table.gamedir, "--config", settings)
        assert result.exit_code == 75, result.output
        counts.append(len(told(result.stderr)))
    # the server's words name another host: the stuck mail and the server are told again
    assert counts == [0, 2, 2, 0]


def test_mail_refused_for_now_is_told_once_though_more_comes_for_that_address(
    tmp_path: Path, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game master's walk-through with a greylisting relay was told of the stuck mail at 1, 2
    and 3 messages: the server's words named each file. The files and their ages are no new
    facts; the server's answer is."""
    from tests.test_mail_refusals import Answering

    table = Table(tmp_path, players=3)
    greylisted = f"{table.names[0]}@example.org"
    recorder = Answering(rcpt={greylisted: "451 4.7.1 Greylisted, come back later"})
    with running_server(authority, "tls", recorder=recorder) as server:
        config = settings_for(tmp_path, server)
        lines = []
        for hours in (0, 1.1, 2.2, 3.3):
            at(monkeypatch, START + timedelta(hours=hours))
            message = notice_mail(  # one more message to the greylisted address each time
                sender="gm-bot@example.org",
                to=greylisted,
                subject="[cairo-2026] a word",
                body="Hello.\n",
                message_id=new_message_id("gm-bot@example.org", "word"),
            )
            Outbox(table.gamedir).put(message, "word")
            result = run("tick", table.gamedir, "--config", config)
            lines += [line for line in told(result.stderr) if "waiting to be sent" in line]
        assert len(lines) == 1, lines
        assert "451 4.7.1 Greylisted" in lines[0]
