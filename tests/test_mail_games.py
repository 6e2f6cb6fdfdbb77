"""Whole games played by email: players read their reports and forms from a real SMTP server
and send signed orders to a real IMAP server (Dovecot) or into a Maildir; `tick`, run as cron
would with the clock moving on, does the rest. On the way one player sends a stale order that
is refused and then sends it right, and one player is late, is reminded, and gets the default
orders at the deadline."""

from __future__ import annotations

import email.policy
import json
import mailbox
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from adjudicator.present import rendered
from adjudicator.store.registry import game_names, load_game
from tests import imapserver, smtpserver
from tests.helpers import Table, run
from tests.imapserver import ImapServer
from tests.smtpserver import PASSWORD, USER, Server
from tests.ssh import ssh_sign

pytestmark = pytest.mark.slow  # whole games by real mail (`make quick` leaves it out)

authority = smtpserver.authority
smtp_starttls = smtpserver.smtp_starttls

START = datetime.fromisoformat("2026-11-23T09:00:00+00:00")
PARSER = BytesParser(policy=email.policy.default)


@dataclass
class Player:
    """What one player has had by mail."""

    name: str
    forms: dict[int, str] = field(default_factory=dict)
    """The order form of each turn, as attached."""
    reports: list[EmailMessage] = field(default_factory=list)
    receipts: list[str] = field(default_factory=list)
    reminders: list[str] = field(default_factory=list)


@dataclass
class Post:
    """Carries the mail: from the SMTP server to the players, from the players to the IMAP
    server's INBOX (or the Maildir without one)."""

    server: Server
    maildir: mailbox.Maildir
    imap: ImapServer | None
    players: dict[str, Player]
    taken: int = 0
    sent: int = 0

    def deliver_to_players(self) -> None:
        for received in self.server.received[self.taken :]:
            [to] = received.rcpt_tos
            message: Any = PARSER.parsebytes(received.data)
            player = self.players[to.split("@")[0]]
            text = message.get_body(("plain",)).get_content()
            subject = str(message["Subject"])
            if "report for" in subject:
                player.reports.append(message)
                for part in message.iter_attachments():
                    turn = int(part.get_filename().rsplit("-turn", 1)[1].split("-")[0])
                    player.forms[turn] = part.get_content()
            elif "reminder" in subject:
                player.reminders.append(text)
            elif message["Auto-Submitted"] == "auto-replied":  # receipts and digests
                player.receipts.append(text)
        self.taken = len(self.server.received)

    def send_order(self, table: Table, player: str, turn: int, stale: bool = False) -> None:
        """A signed order by mail; ``stale`` writes the turn before (it will be refused)."""
        self.sent += 1
        text = table.order_text(player, table.legal(player), turn=turn - 1 if stale else turn)
        path = table.write(f"{player}-{self.sent}.yaml", text)
        ssh_sign(table.keys[player], path)
        message = EmailMessage()
        message["From"] = f"{player}@example.org"
        message["To"] = "gm-bot@example.org"
        message["Subject"] = f"orders turn {turn}"
        message["Message-ID"] = f"<order-{self.sent}@{player}.example.org>"
        message.set_content("My orders.\n")
        message.add_attachment(path.read_bytes(), "text", "plain", filename=path.name)
        signature = Path(f"{path}.sig").read_bytes()
        message.add_attachment(
            signature, "application", "octet-stream", filename=f"{path.name}.sig"
        )
        data = message.as_bytes(policy=email.policy.SMTP)
        if self.imap is not None:
            self.imap.append(data)
        else:
            self.maildir.add(data)


SHORTER = {"sultans_court": {"max_rounds": 12}}
"""Options that keep a game by email short, where a game has them."""


def whole_games() -> list[tuple[str, int, dict[str, Any], str]]:
    """Every registered game by IMAP (3 players where it may), and one by a Maildir."""
    by_imap = []
    for name in game_names():
        game = load_game(name)
        count = min(max(3, game.min_players), game.max_players)
        by_imap.append((name, count, SHORTER.get(name, {}), "imap"))
    return [*by_imap, ("sultan", 2, {}, "maildir")]


@pytest.mark.parametrize(("game", "players", "options", "source"), whole_games())
def test_a_whole_game_by_email(
    tmp_path: Path,
    smtp_starttls: Server,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    game: str,
    players: int,
    options: dict[str, Any],
    source: str,
) -> None:
    imap: ImapServer | None = None
    if source == "imap":
        imap = request.getfixturevalue("imap_server")
        monkeypatch.setenv("TEST_IMAP_PASSWORD", imapserver.PASSWORD)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    now = START
    monkeypatch.setenv("ADJUDICATOR_NOW", now.isoformat())
    schedule = {"deadline": "48h", "timezone": "Europe/Berlin", "reminders": ["2h"]}
    table = Table(tmp_path, players=players, game=game, schedule=schedule, **options)
    config = tmp_path / "mail.toml"
    config.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n'
        f'[smtp]\nhost = "{smtp_starttls.host}"\nport = {smtp_starttls.port}\n'
        f'user = "{USER}"\ntls = "starttls"\nca_file = "{smtp_starttls.ca_file}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n' + (imap.settings() if imap else "")
    )
    post = Post(
        smtp_starttls,
        mailbox.Maildir(tmp_path / "Maildir", create=True),
        imap,
        {name: Player(name) for name in table.names},
    )
    source_options = [] if imap else ["--maildir", tmp_path / "Maildir"]
    late: tuple[str, int] | None = None
    stale: tuple[str, int] | None = None
    answered: set[tuple[str, int]] = set()
    for _ in range(300):
        result = run("tick", table.gamedir, "--config", config, *source_options)
        assert result.exit_code == 0, result.output
        post.deliver_to_players()
        status = table.status()
        if status["over"]:
            break
        turn, sent = status["turn"], 0
        if late is None and len(status["owed"]) >= 2 and turn > 1:
            late = (status["waiting_for"][-1], turn)
        for name in status["waiting_for"]:
            if turn not in post.players[name].forms or (name, turn) == late:
                continue
            if stale is None:
                stale = (name, turn)
                post.send_order(table, name, turn, stale=True)
            elif (name, turn) not in answered:
                post.send_order(table, name, turn)
                answered.add((name, turn))
            sent += 1
        if not sent:  # nothing to do but wait: to the reminder, then to the deadline
            deadline = datetime.fromisoformat(status["deadline"])
            now = max(now, deadline - timedelta(hours=1) if now < deadline - timedelta(hours=2)
                      else deadline)  # fmt: skip
            monkeypatch.setenv("ADJUDICATOR_NOW", now.isoformat())
    else:
        pytest.fail("the game did not end")

    assert late is not None and stale is not None
    # the stale order was refused with its reason, the one sent after it accepted
    refused = [r for r in post.players[stale[0]].receipts if "was refused" in r]
    assert len(refused) == 1 and f"turn {stale[1] - 1}" in refused[0]
    word = "round" if game == "sultans_court" else "turn"  # the Court's turn is a round
    assert any(f"{word} {stale[1]}, was accepted" in r for r in post.players[stale[0]].receipts)
    # the late player was reminded, and the deadline brought the default orders
    assert any(f"{word} {late[1]}, have not come yet" in r for r in post.players[late[0]].reminders)
    log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    [by_deadline] = [e for e in log if e["type"] == "adjudicated" and e["why"] == "deadline"]
    assert by_deadline["turn"] == late[1] and by_deadline["defaulted"] == [late[0]]
    # every player got every turn's report, the last one being the final report
    final = table.status()["turn"]
    # the final reports show the chain head just before the line of the step that queued them
    [queued] = [e for e in log if e["type"] == "queued" and final in e.get("turns", [])]
    for name, player in post.players.items():
        subjects = [str(m["Subject"]) for m in player.reports]
        assert subjects == [
            f"[cairo-2026] {word} {t}: report for {name}" for t in range(1, final + 1)
        ]
        body: Any = player.reports[-1].get_body(("plain",))
        shown = rendered.report(table.gamedir, name, None, queued["prev"], cache=False)
        assert body.get_content().replace("\r\n", "\n") == shown
    # mail went to registered addresses only
    registered = {f"{n}@example.org" for n in table.names} | {"gm@example.org"}
    assert {to for r in smtp_starttls.received for to in r.rcpt_tos} <= registered
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["over"] is True and "result" in record
    if imap is not None:  # every order message was handled and moved, none deleted
        counts = imap.counts()
        assert counts["INBOX"] == 0
        assert counts[imap.name("adjudicator/done")] == post.sent
