"""An open game (docs/signup.md): ``open``, joins by mail with their confirmation, the seats,
the start, and every refusal; the game it starts plays and verifies like any other."""

from __future__ import annotations

import email.policy
import json
import mailbox
import os
import random
import re
import shutil
import subprocess
import uuid
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from adjudicator.engine.open_game import game_options
from adjudicator.rules import deal
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game
from tests import imapserver, smtpserver
from tests.crashing import KILLED, fork_run, kill_points
from tests.helpers import NAMES, SEED, Table, run
from tests.imapserver import ImapServer
from tests.smtpserver import Server
from tests.ssh import make_key, ssh_sign
from tests.test_mail_games import Player, Post
from tests.test_summary import assert_summaries_handed_out_never_change
from tests.test_verify_forgeries import rechain
from tests.tools import require_tool

PARSER = BytesParser(policy=email.policy.default)
authority = smtpserver.authority
smtp_starttls = smtpserver.smtp_starttls
CONFIG = '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n'


class OpenTable(Table):
    """An open game in a temporary folder: nobody seated by the setup (or ``seated``), each
    would-be player with their ssh-keygen key; its mail goes to ``outbox/``."""

    def __init__(
        self,
        root: Path,
        seats: Any = 3,
        seated: int = 0,
        game: str = "sultan",
        signup: dict[str, Any] | None = None,
        keys: dict[str, Path] | None = None,
        **options: Any,
    ) -> None:
        self.root = root
        self.names = []
        self.keys = keys or {n: make_key(root / "keys", n) for n in NAMES}
        self.setup = {
            "game": game,
            "id": "bazaar",
            "seed": SEED,
            "players": [
                {"name": n, "email": f"{n}@example.org", "key_file": f"{self.keys[n]}.pub"}
                for n in NAMES[:seated]
            ],
            "seats": seats,
            "options": options,
            "deadline": "48h",
            **(signup or {}),
        }
        self.setup_path = root / "setup.yaml"
        root.mkdir(parents=True, exist_ok=True)
        self.setup_path.write_text(yaml.safe_dump(self.setup, sort_keys=False))
        self.gamedir = root / "game"
        self.config = root / "mail.toml"
        self.config.write_text(CONFIG)
        result = run("open", self.gamedir, "--setup", self.setup_path, "--config", self.config)
        assert result.exit_code == 0, result.output
        self.announcement = result.output
        self.shares: dict[str, str] = {}
        self.mails = 0

    def join_file(self, who: str, signer: str | None = None, **given: Any) -> Path:
        """``who``'s join as ``adjudicator join`` makes it (``given`` changes its keys; ``key_of``
        takes another's key), signed with ``signer``'s key (default: the key it carries)."""
        owner = given.pop("key_of", who)
        made = run(
            "join", "bazaar", "--name", who, "--email", f"{who}@example.org",
            "--key", f"{self.keys[owner]}.pub",
        )  # fmt: skip
        assert made.exit_code == 0, made.output
        data = yaml.safe_load(made.output)
        data["join"].update(given)
        self.shares[data["join"]["name"]] = data["join"]["share"]
        self.mails += 1
        path = self.write(f"join-{who}-{self.mails}.yaml", yaml.safe_dump(data))
        ssh_sign(self.keys[signer or owner], path)
        return path

    def leave_file(self, name: str) -> Path:
        self.mails += 1
        text = run("join", "bazaar", "--name", name, "--leave").output
        path = self.write(f"leave-{name}-{self.mails}.yaml", text)
        ssh_sign(self.keys[name], path)
        return path

    def mail(self, path: Path | None, sender: str, subject: str = "join", text: str = "") -> str:
        """A message from ``sender`` with the signed file at ``path`` attached (and its .sig),
        ingested; the output."""
        self.mails += 1
        message = EmailMessage()
        message["From"] = sender
        message["To"] = "gm-bot@example.org"
        message["Subject"] = subject
        message["Message-ID"] = f"<m{self.mails}.{uuid.uuid4().hex}@{sender.split('@')[-1]}>"
        message.set_content(text or "Here it is.\n")
        if path is not None:
            message.add_attachment(path.read_bytes(), "text", "plain", filename=path.name)
            signature = Path(f"{path}.sig").read_bytes()
            message.add_attachment(
                signature, "application", "octet-stream", filename=f"{path.name}.sig"
            )
        raw = message.as_bytes(policy=email.policy.SMTP).decode()
        result = run("ingest", self.gamedir, "--config", self.config, input=raw)
        assert result.exit_code in (0, 75), result.output
        return result.output

    def outbox(self, to: str | None = None, kind: str = "") -> list[EmailMessage]:
        """The mail sent so far (``send`` run first), to ``to``, whose file name holds ``kind``."""
        result = run("send", self.gamedir, "--config", self.config)
        assert result.exit_code == 0, result.output
        found = []
        for path in sorted((self.gamedir / "outbox").glob("*.eml")):
            message: Any = PARSER.parsebytes(path.read_bytes())
            if kind in path.name and (to is None or message["To"] == to):
                found.append(message)
        return found

    def confirm(self, name: str, *, sender: str | None = None) -> str:
        """``name`` answers their confirmation request with their mail program's Reply (from
        ``sender``, default their address)."""
        sender = sender or f"{name}@example.org"
        [request] = self.outbox(sender, "signup-confirm")[-1:]
        return self.mail(None, sender, f"Re: {request['Subject']}")

    def seat(self, name: str) -> str:
        """``name`` joins by mail and confirms."""
        self.mail(self.join_file(name), f"{name}@example.org")
        return self.confirm(name)


def lines(table: Table) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (table.gamedir / "log.jsonl").read_text().splitlines()]


@pytest.mark.seconds
def test_players_join_by_mail_confirm_and_the_last_seat_starts_and_deals_the_game(
    tmp_path: Path,
) -> None:
    table = OpenTable(tmp_path, seats=3)
    [created] = lines(table)
    assert created["commitment"] in table.announcement and len(created["commitment"]) == 64
    assert "gm-bot@example.org" in table.announcement
    status = table.status()
    assert status["phase"] == "signup" and status["seats"]["taken"] == []
    assert status["seats"]["open"] == 3
    assert "alice - accepted" in table.mail(table.join_file("alice"), "alice@example.org")
    [request] = table.outbox("alice@example.org", "signup-confirm")
    code = request["Subject"].rsplit(": ", 1)[1]
    assert re.fullmatch(r"[A-Z0-9]{10,}", code) and request["Subject"].startswith("[bazaar] ")
    assert code in request.get_body(("plain",)).get_content()
    assert table.status()["seats"]["unconfirmed"] == ["alice"]
    assert "alice seated" in table.confirm("alice")
    assert table.status()["seats"]["taken"] == ["alice"]
    [seated] = table.outbox("alice@example.org", "signup-seated")
    assert "1 of 3 seats" in seated.get_body(("plain",)).get_content()
    table.seat("carol")
    out = table.seat("bob")
    assert "bob seated; the game starts" in out
    table.names = ["alice", "carol", "bob"]  # in join order
    status = table.status()
    assert status["turn"] == 1 and "seats" not in status
    assert [w["To"] for w in table.outbox(kind="welcome")] == [
        f"{n}@example.org" for n in table.names
    ]
    meta = json.loads(run("log", table.gamedir, "--json").output)
    assert meta["players"] == table.names
    dealt = deal.dealt_seed(SEED, [table.shares[n] for n in table.names])
    players = json.loads((table.gamedir / "game.json").read_text())
    assert players["players"] == [], "game.json keeps the setup; the journal the seats"
    game = load_game("sultan")
    seats = [{"name": n, "email": f"{n}@example.org"} for n in table.names]
    state = game.setup(seats, game_options(players), Rng(dealt))
    stored = json.loads((table.gamedir / "turns" / "0001" / "state.json").read_text())
    assert stored == json.loads(json.dumps(state)), "the deal follows the joins' shares"
    while not table.status()["over"]:
        table.play_turn()
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 0, result.output
    public = tmp_path / "public.archive"
    assert run("archive", table.gamedir, "--public", "-o", public).exit_code == 0
    assert "example.org" not in public.read_text(), "no address in a public archive"
    assert run("verify", public).exit_code == 0
    # a game master who changes carol's share in the journal, chained again as a forger would
    data = json.loads(archive.read_text())
    at = next(i for i, x in enumerate(data["journal"]) if table.shares["carol"] in x)
    data["journal"][at] = data["journal"][at].replace(table.shares["carol"], "c" * 32)
    data["journal"] = rechain(data["journal"], at)
    archive.write_text(json.dumps(data))
    result = run("verify", archive)
    assert result.exit_code == 3 and "seats/joins/0002-carol.json" in result.output, result.output


def receipts(table: OpenTable, to: str) -> list[str]:
    return [m.get_body(("plain",)).get_content() for m in table.outbox(to, "receipt")]


def test_every_refused_join_is_answered_with_why_at_its_own_address(tmp_path: Path) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    table.seat("alice")
    refusals = {
        "bob": (table.join_file("bob", name="Alice"), "same name as 'alice'"),
        "carol": (table.join_file("carol", key_of="alice"), "this key is alice's"),
        "dave": (table.join_file("dave", name="gm"), "no player may take"),
        "erin": (table.join_file("erin", share="12ab"), "32 to 128 hex digits"),
    }
    for name, (path, words) in refusals.items():
        out = table.mail(path, f"{name}@example.org")
        assert "refused" in out, out
        [receipt] = receipts(table, f"{name}@example.org")
        assert words in receipt and "was refused" in receipt, receipt
    taken = table.join_file("bob", name="alice")
    assert "refused" in table.mail(taken, "bob@example.org")
    assert "the name 'alice' is taken" in receipts(table, "bob@example.org")[-1]
    forged = table.join_file("carol", signer="dave")  # signed by another key than it carries
    assert "refused" in table.mail(forged, "carol@example.org")
    assert "signature" in receipts(table, "carol@example.org")[-1]
    assert table.status()["seats"]["taken"] == ["alice"]
    assert [n for n in table.status()["seats"]["unconfirmed"]] == []


def test_a_join_from_another_address_is_not_answered_and_its_address_must_confirm(
    tmp_path: Path,
) -> None:
    table = OpenTable(tmp_path, seats=2)
    out = table.mail(table.join_file("alice"), "mallory@example.net")
    assert "alice - accepted" in out
    [request] = table.outbox(kind="signup-confirm")
    assert request["To"] == "alice@example.org", "the request goes to the join's address only"
    refused = table.mail(table.join_file("bob", email="x"), "mallory@example.net")
    assert "not answered" in refused and not receipts(table, "mallory@example.net")
    code = request["Subject"].rsplit(": ", 1)[1]
    out = table.mail(None, "mallory@example.net", f"Re: {request['Subject']}")
    assert "set aside" in out, "only the join's address confirms it"
    auto = EmailMessage()
    auto["From"] = "alice@example.org"
    auto["To"] = "gm-bot@example.org"
    auto["Subject"] = f"Out of office: {request['Subject']}"
    auto["Auto-Submitted"] = "auto-replied"
    auto["Message-ID"] = "<away@example.org>"
    auto.set_content("I am away.\n")
    result = run("ingest", table.gamedir, "--config", table.config, input=auto.as_string())
    assert "seated" not in result.output, "an auto-reply confirms nothing"
    assert table.status()["seats"]["unconfirmed"] == ["alice"]
    out = table.mail(None, "Alice@Example.org", "my seat", f"Here is the code: {code}.")
    assert "alice seated" in out, "any mail from the address holding the code confirms"
    assert table.mail(None, "alice@example.org", f"Re: {request['Subject']}").count("seated") == 0


def test_the_confirmation_request_names_the_key_it_would_seat(tmp_path: Path) -> None:
    """A stranger's join of alice's name and address, with his own key and a forged From, got
    alice a request she could not tell from one for her own join: her answer seated his key.
    The request names the key's fingerprint, and how to see one's own."""
    from adjudicator.signing import keys

    table = OpenTable(tmp_path, seats=2)
    table.mail(table.join_file("alice", key_of="erin"), "alice@example.org")  # erin: mallory
    [request] = table.outbox("alice@example.org", "signup-confirm")
    text = str(request.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    theirs = keys.fingerprint(Path(f"{table.keys['erin']}.pub").read_text())
    assert theirs in " ".join(text.split())
    assert "ssh-keygen -lf" in text


def test_a_message_carries_one_join(tmp_path: Path) -> None:
    """One message with hundreds of joins, each naming another address, made send mail a
    confirmation request to each of them: the game as a mail cannon. A message takes one join
    (the game master's own submit, many); the others are refused, unanswered."""
    table = OpenTable(tmp_path, seats=4)
    files = [table.join_file(name, email=f"{name}@victims.example") for name in ("bob", "carol")]
    table.mails += 1
    message = EmailMessage()
    message["From"] = "mallory@example.net"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "joins"
    message["Message-ID"] = "<many@example.net>"
    message.set_content("Here.\n")
    for path in files:
        message.add_attachment(path.read_bytes(), "text", "plain", filename=path.name)
        signature = Path(f"{path}.sig").read_bytes()
        message.add_attachment(
            signature, "application", "octet-stream", filename=f"{path.name}.sig"
        )
    raw = message.as_bytes(policy=email.policy.SMTP).decode()
    result = run("ingest", table.gamedir, "--config", table.config, input=raw)
    assert result.exit_code == 0, result.output
    assert "bob - accepted" in result.output
    assert "carol - refused: a message carries one join" in result.output
    requests = table.outbox(kind="signup-confirm")
    assert [m["To"] for m in requests] == ["bob@victims.example"]


@pytest.mark.seconds
def test_a_full_started_or_late_game_refuses_a_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-01T12:00:00+00:00")
    table = OpenTable(tmp_path, seats=2, signup={"signup_until": "7d"})
    assert "accepted" in table.mail(table.join_file("carol"), "carol@example.org")
    table.seat("alice")
    table.seat("bob")  # the last seat: the game starts
    assert table.status()["turn"] == 1
    [told] = table.outbox("carol@example.org", "signup-refused")
    assert "did not confirm" in told.get_body(("plain",)).get_content()
    assert "seated" not in table.confirm("carol"), "the seats were taken first"
    table.mail(table.join_file("dave"), "dave@example.org")
    assert "has started" in receipts(table, "dave@example.org")[-1]
    late = OpenTable(tmp_path / "late", seats=3, signup={"signup_until": "1d"})
    late.seat("alice")
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-02T12:00:01+00:00")
    late.mail(late.join_file("bob"), "bob@example.org")
    assert "sign-up ended" in receipts(late, "bob@example.org")[-1]
    full = OpenTable(tmp_path / "full", seats={"min": 2, "max": 3}, signup={"seating": "approve"})
    for name in ("alice", "bob", "carol", "dave"):
        full.seat(name)
    for name in ("alice", "bob", "carol"):
        assert run("seat", full.gamedir, name).exit_code == 0
    assert full.status()["turn"] == 1, "the last seat taken starts the game"
    result = run("seat", full.gamedir, "dave")
    assert result.exit_code == 4 and "has started" in result.output, result.output


@pytest.mark.seconds
def test_a_leave_frees_the_seat_and_the_game_master_seats_or_refuses_each_join(
    tmp_path: Path,
) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3}, signup={"seating": "approve"})
    for name in ("alice", "bob", "carol"):
        assert "confirmed" in table.seat(name)
    result = run("seat", table.gamedir, "dave")
    assert result.exit_code == 3 and "no join waiting" in result.output, result.output
    assert table.status()["seats"]["confirmed"] == ["alice", "bob", "carol"]
    assert run("seat", table.gamedir, "alice").exit_code == 0
    result = run("refuse", table.gamedir, "bob", "--why", "this game is for the club's members")
    assert result.exit_code == 0, result.output
    [told] = table.outbox("bob@example.org", "signup-refused")
    assert "this game is for the club's members" in told.get_body(("plain",)).get_content()
    table.mail(table.join_file("dave"), "dave@example.org")
    result = run("seat", table.gamedir, "dave")
    assert result.exit_code == 3 and "not confirmed" in result.output, result.output
    out = table.mail(table.leave_file("alice"), "alice@example.org")
    assert "alice - accepted" in out, out
    assert table.status()["seats"]["taken"] == []
    assert "was accepted" in receipts(table, "alice@example.org")[-1]
    result = run("start", table.gamedir)
    assert result.exit_code == 4 and "starts with 2 or more" in result.output, result.output
    assert run("seat", table.gamedir, "carol").exit_code == 0
    table.confirm("dave")
    assert run("seat", table.gamedir, "dave").exit_code == 0
    result = run("start", table.gamedir)
    assert result.exit_code == 0 and "carol, dave; turn 1" in result.output, result.output
    assert [w["To"] for w in table.outbox(kind="welcome")] == [
        "carol@example.org",
        "dave@example.org",
    ]
    # joins, seats, a refusal, a leave and the start: read on line by line
    assert_summaries_handed_out_never_change(table.gamedir)


def test_the_sign_up_deadline_starts_the_game_or_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-01T12:00:00+00:00")
    games = tmp_path / "games"
    made = {}
    for folder, joined in (("enough", ("alice", "bob")), ("few", ("alice",))):
        table = OpenTable(
            tmp_path / folder, seats={"min": 2, "max": 4}, signup={"signup_until": "3d"}
        )
        for name in joined:
            table.seat(name)
        games.mkdir(exist_ok=True)
        (games / folder).symlink_to(table.gamedir)
        made[folder] = table
    mailbox.Maildir(tmp_path / "Maildir", create=True)
    result = run("tick", games, "--config", made["few"].config, "--maildir", tmp_path / "Maildir")
    assert result.exit_code == 0, result.output
    assert made["enough"].status()["phase"] == "signup", "nothing before the deadline"
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-04T12:00:00+00:00")
    result = run("tick", games, "--config", made["few"].config, "--maildir", tmp_path / "Maildir")
    assert result.exit_code == 0, result.output
    assert "bazaar: the sign-up ended; the game started" in result.output
    assert made["enough"].status()["turn"] == 1
    few = made["few"].status()
    assert few["phase"] == "closed" and few["over"], few
    [told] = made["few"].outbox("alice@example.org", "signup-closed")
    assert "did not start" in told.get_body(("plain",)).get_content()
    assert "did not start" in run("status", made["few"].gamedir).output
    result = run("submit", made["few"].gamedir, made["few"].join_file("carol"))
    assert result.exit_code == 4, result.output


def test_an_open_setup_is_checked_and_its_keys_belong_to_open(tmp_path: Path) -> None:
    setup = {"game": "sultan", "id": "bazaar", "players": [], "seats": 6}
    path = tmp_path / "setup.yaml"
    for given, words in (
        ({"seats": 6}, "takes 2–5 players"),
        ({"seats": {"min": 3, "max": 2}}, "takes 2–5 players"),
        ({"seats": "many"}, "seats is a number"),
        ({"signup_until": "2020-01-01 12:00"}, "not in the future"),
        ({"signup_until": "soon"}, "is not a time"),
        ({"signup_until": "99999999d"}, "is past the last time every time zone can show"),
        ({"signup_until": "9999-12-31 12:00"}, "is past the last time every time zone can show"),
        ({"seating": "lottery"}, "seating"),
        ({"options": {"press": "grey"}}, "with 2 players"),
    ):
        path.write_text(yaml.safe_dump({**setup, "seats": 2, **given}))
        result = run("open", tmp_path / "g", "--setup", path, "--config", "/dev/null")
        assert result.exit_code == 3 and words in result.output, (given, result.output)
        assert not (tmp_path / "g").exists()
    # a zone that is none is that setup's one problem: its time in that zone is read in UTC
    path.write_text(
        yaml.safe_dump(
            {**setup, "seats": 2, "timezone": "Mars/Olympus", "signup_until": "2099-01-01 12:00"}
        )
    )
    result = run("open", tmp_path / "g", "--setup", path, "--config", "/dev/null")
    assert result.exit_code == 3 and "Mars/Olympus" in result.output, result.output
    assert "signup_until" not in result.output, result.output
    path.write_text(yaml.safe_dump({**setup, "seats": 3, "players": []}))
    result = run("new", tmp_path / "g", "--setup", path)
    assert result.exit_code == 3 and "adjudicator open" in result.output, result.output


def test_status_log_and_site_show_the_seats_taken_and_open_and_no_address(
    tmp_path: Path,
) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 4})
    table.seat("alice")
    table.mail(table.join_file("bob"), "bob@example.org")
    status = table.status()
    assert status["seats"]["taken"] == ["alice"] and status["seats"]["open"] == 3
    assert status["seats"]["unconfirmed"] == ["bob"]
    text = run("status", table.gamedir).output
    assert "1 of 2–4 seats taken (alice)" in text and "not confirmed yet: bob" in text
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["seats"] == {"taken": ["alice"], "open": 3, "min": 2, "max": 4}
    schema = Path(__file__).parents[1] / "docs" / "schemas" / "sultan-record.schema.json"
    jsonschema.validate(record, json.loads(schema.read_text()))
    assert "1 of 2–4 seats taken, 3 open" in run("log", table.gamedir).output
    site = tmp_path / "site"
    assert run("site", table.gamedir, "-o", site).exit_code == 0
    page = (site / "index.html").read_text()
    assert "1 of 4 seats taken, 3 open" in page and record["commitment"] in page
    shown = [run("log", table.gamedir, "--json").output, *(p.read_text() for p in site.iterdir())]
    assert not any("example.org" in text for text in shown), "no address"


@pytest.mark.seconds
def test_players_seated_by_the_setup_send_their_share_and_the_deal_waits_for_it(
    tmp_path: Path,
) -> None:
    table = OpenTable(tmp_path, seats=3, seated=1)
    assert table.status()["seats"]["taken"] == ["alice"]
    table.seat("bob")
    table.seat("carol")
    table.names = ["alice", "bob", "carol"]
    status = table.status()
    assert status["turn"] == 0 and status["shares_owed"] == ["alice"], status
    asked = table.outbox(kind="share-")
    assert [m["To"] for m in asked] == ["alice@example.org"], "only the seat without a share"
    share = table.notice("alice", 'share: "' + "a1" * 16 + '"\n', "share-alice.yaml")
    assert run("submit", table.gamedir, share).exit_code == 0
    assert table.status()["turn"] == 1
    shares = ["a1" * 16, table.shares["bob"], table.shares["carol"]]
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["players"] == table.names
    while not table.status()["over"]:
        table.play_turn()
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["shares"] == shares


@pytest.mark.seconds
@pytest.mark.parametrize("fmt", ["plain", "html"])
def test_a_players_mail_shows_nothing_of_another_players_address(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = {n: make_key(tmp_path / "keys", n) for n in NAMES}
    seen = []
    for world in ("one", "two"):
        # both worlds at one moment: their deadlines, a minute apart, would differ otherwise
        monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-01T12:00:59+00:00")
        table = OpenTable(tmp_path / world, seats=2, keys=keys)
        table.mail(table.join_file("alice", share="a" * 32), "alice@example.org")
        table.confirm("alice")
        bob = f"bob-{world}@example.net"
        table.mail(table.join_file("bob", email=bob, share="b" * 32), bob)
        table.confirm("bob", sender=bob)
        assert table.status()["turn"] == 1
        mails = table.outbox("alice@example.org")
        kinds = [m["Subject"].split("] ", 1)[1].split(":")[0] for m in mails]
        assert kinds == ["confirm your seat", "you have a seat", "welcome, alice", "turn 1"], kinds
        bodies = []
        for message in mails:
            part = message.get_body((fmt,))
            if part is not None:
                bodies.append(part.get_content())
        assert not any(bob in body for body in bodies)
        seen.append(bodies)
    varies = re.compile(r"[0-9a-f]{32,64}|[A-Z0-9]{12}")  # chain heads, commitments, codes

    def same(texts: list[str]) -> list[str]:
        return [varies.sub("#", text) for text in texts]

    assert same(seen[0]) == same(seen[1])


@pytest.mark.slow
def test_a_whole_game_from_open_to_its_end_by_real_mail(
    tmp_path: Path, smtp_starttls: Server, imap_server: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The announcement, the joins, the confirmations, the start and every turn over the real
    SMTP and IMAP servers, with ``tick`` run as cron would."""
    monkeypatch.setenv("TEST_IMAP_PASSWORD", imapserver.PASSWORD)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", smtpserver.PASSWORD)
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T09:00:00+00:00")
    table = OpenTable(tmp_path, seats=3)
    table.config.write_text(
        CONFIG + f'[smtp]\nhost = "{smtp_starttls.host}"\nport = {smtp_starttls.port}\n'
        f'user = "{smtpserver.USER}"\ntls = "starttls"\nca_file = "{smtp_starttls.ca_file}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n' + imap_server.settings()
    )
    joining = ["carol", "alice", "bob"]
    for name in joining:
        imap_server.append(_mail_text(table.join_file(name), f"{name}@example.org").encode())
    post = Post(
        smtp_starttls, mailbox.Maildir(tmp_path / "Maildir", create=True), imap_server,
        {name: Player(name) for name in joining},
    )  # fmt: skip
    confirmed: set[str] = set()
    for _ in range(200):
        result = run("tick", table.gamedir, "--config", table.config)
        assert result.exit_code == 0, result.output
        for received in smtp_starttls.received[post.taken :]:
            message: Any = PARSER.parsebytes(received.data)
            if "confirm your seat" in str(message["Subject"]):
                [to] = received.rcpt_tos
                reply = EmailMessage()
                reply["From"] = to
                reply["To"] = str(message["Reply-To"])
                reply["Subject"] = f"Re: {message['Subject']}"
                reply["In-Reply-To"] = message["Message-ID"]
                reply["Message-ID"] = f"<yes-{to}>"
                reply.set_content("Yes, that was me.\n")
                imap_server.append(reply.as_bytes(policy=email.policy.SMTP))
                confirmed.add(to.split("@")[0])
        post.deliver_to_players()
        status = table.status()
        if status["over"]:
            break
        if status["turn"] == 0:
            continue
        table.names = joining
        for name in status["waiting_for"]:
            if status["turn"] in post.players[name].forms:
                post.send_order(table, name, status["turn"])
    else:
        pytest.fail("the game did not end")
    assert confirmed == set(joining)
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["players"] == joining, "seats in join order"
    assert record["shares"] == [table.shares[n] for n in joining]
    assert deal.dealt_seed(record["seed"], record["shares"]) == deal.dealt_seed(
        SEED, [table.shares[n] for n in joining]
    )
    for name in joining:
        assert post.players[name].reports, name
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 0, result.output
    assert imap_server.counts()["INBOX"] == 0


def _mail_text(path: Path, sender: str) -> str:
    """A message from ``sender`` with the signed file at ``path`` and its .sig attached."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "join"
    message["Message-ID"] = f"<{path.name}@{sender.split('@')[1]}>"
    message.set_content("My join.\n")
    message.add_attachment(path.read_bytes(), "text", "plain", filename=path.name)
    signature = Path(f"{path}.sig").read_bytes()
    message.add_attachment(signature, "application", "octet-stream", filename=f"{path.name}.sig")
    return message.as_bytes(policy=email.policy.SMTP).decode()


@pytest.mark.seconds
def test_a_confirmation_that_starts_the_game_killed_at_any_instant_starts_it_once(
    tmp_path: Path,
) -> None:
    """The mail that fills the last seat starts and deals the game in one step: killed at any
    of a sample of its instants (the first and the last among them), the next ingest of the
    same mail finishes or discards it, and the game starts once, as it would have."""
    table = OpenTable(tmp_path, seats=2)
    table.seat("alice")
    table.mail(table.join_file("bob"), "bob@example.org")
    [request] = table.outbox("bob@example.org", "signup-confirm")
    reply = EmailMessage()
    reply["From"] = "bob@example.org"
    reply["To"] = "gm-bot@example.org"
    reply["Subject"] = f"Re: {request['Subject']}"
    reply["Message-ID"] = "<yes@bob.example.org>"
    reply.set_content("yes\n")
    box = tmp_path / "reply.mbox"
    kept = mailbox.mbox(box)
    kept.add(reply)
    kept.close()
    pristine = tmp_path / "pristine"
    shutil.copytree(table.gamedir, pristine)
    args = ["ingest", str(table.gamedir), "--mbox", str(box), "--config", str(table.config)]
    whole = fork_run(args, {})
    assert whole.code == 0 and whole.failpoints > 5, whole.printed
    dealt = (table.gamedir / "turns" / "0001" / "state.json").read_bytes()
    for point in kill_points(whole.failpoints, 12, random.Random(7)):
        shutil.rmtree(table.gamedir)
        shutil.copytree(pristine, table.gamedir)
        killed = fork_run(args, {}, kill_at=point)
        assert killed.code == KILLED, (point, killed.printed)
        again = run("ingest", table.gamedir, "--mbox", box, "--config", table.config)
        assert again.exit_code == 0, (point, again.output)
        assert run("doctor", table.gamedir).exit_code == 0, point
        assert table.status()["turn"] == 1, point
        assert (table.gamedir / "turns" / "0001" / "state.json").read_bytes() == dealt, point
        assert sum(1 for line in lines(table) if line.get("started")) == 1, point


@pytest.mark.seconds
def test_open_killed_at_any_instant_is_finished_or_discarded(tmp_path: Path) -> None:
    table = OpenTable(tmp_path, seats=2)
    shutil.rmtree(table.gamedir)
    args = [
        "open",
        str(table.gamedir),
        "--setup",
        str(table.setup_path),
        "--config",
        str(table.config),
    ]
    whole = fork_run(args, {})
    assert whole.code == 0 and whole.failpoints > 2, whole.printed
    for point in range(1, whole.failpoints + 1):
        shutil.rmtree(table.gamedir)
        killed = fork_run(args, {}, kill_at=point)
        assert killed.code == KILLED, (point, killed.printed)
        again = run("open", table.gamedir, "--setup", table.setup_path, "--config", table.config)
        if again.exit_code != 0:  # it had committed: the game is there, whole
            assert "must not exist or must be empty" in again.output, (point, again.output)
        assert run("doctor", table.gamedir).exit_code == 0, point
        assert table.status()["phase"] == "signup", point


def test_the_announcements_openssh_lines_make_a_join_that_is_taken(tmp_path: Path) -> None:
    """A player with nothing but OpenSSH (and openssl for the share) runs the two lines the
    announcement gives, as written, with their name, address and key in place."""
    bash = require_tool("bash", "the shell the announcement's lines are written for")
    require_tool("openssl", "the share the announcement's line draws")
    table = OpenTable(tmp_path, seats=2)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    for suffix in ("", ".pub"):
        shutil.copy(f"{table.keys['alice']}{suffix}", home / ".ssh" / f"id_ed25519{suffix}")
    lines_given = [x.strip() for x in table.announcement.splitlines() if x.startswith("    ")]
    made = [x for x in lines_given if x.startswith(("printf", "ssh-keygen -Y sign"))]
    assert len(made) == 2, table.announcement
    script = (
        "\n".join(made).replace("YOURNAME", "alice").replace("you@example.org", "alice@example.org")
    )
    done = subprocess.run(
        [bash, "-c", script], cwd=tmp_path, env={**os.environ, "HOME": str(home)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = table.mail(tmp_path / "bazaar-join.yaml", "alice@example.org")
    assert "alice - accepted" in out, out


def test_open_with_mail_settings_it_cannot_read_says_why_and_makes_nothing(tmp_path: Path) -> None:
    table = OpenTable(tmp_path, seats=2)
    bad = tmp_path / "bad.toml"
    bad.write_text("from = [\n")
    result = run("open", tmp_path / "other", "--setup", table.setup_path, "--config", bad)
    assert result.exit_code == 3 and "bad.toml" in result.output, result.output
    assert not (tmp_path / "other").exists()


@pytest.mark.parametrize("name", ["gm", "Public", "ALL", "no"])
def test_join_refuses_a_name_no_player_may_take(tmp_path: Path, name: str) -> None:
    """`adjudicator join --name gm` printed a join bound to be refused when it came in (the
    join page refuses that name at once): the command refuses it, saying why."""
    from tests.ssh import make_key

    key = make_key(tmp_path, "k")
    result = run(
        "join", "bazaar", "--name", name, "--email", "x@example.org", "--key", f"{key}.pub"
    )
    assert result.exit_code == 2, result.output
    assert f"--name {name!r}: player name" in result.output
    assert "join:" not in result.output


@pytest.mark.parametrize("why", ["", "  ", "read \x1b[2Jthis", "left\u202eright"])
def test_refuse_takes_words_a_mail_can_carry(tmp_path: Path, why: str) -> None:
    """`refuse --why` took an empty text, and kept escape sequences and direction overrides in
    the journal and the mail to the player: it refuses them, changing nothing."""
    table = OpenTable(tmp_path, seats=2, signup={"seating": "approve"})
    table.seat("alice")
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("refuse", table.gamedir, "alice", "--why", why)
    assert result.exit_code == 2, result.output
    assert "--why" in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == before
