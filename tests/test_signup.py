"""An open game (docs/signup.md): ``open``, joins by mail with their confirmation, the seats,
the start, and every refusal; the game it starts plays and verifies like any other."""

from __future__ import annotations

import email.policy
import json
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.engine.open_game import game_options
from adjudicator.rules import deal
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game
from tests.helpers import NAMES, SEED, Table, run
from tests.ssh import make_key, ssh_sign
from tests.test_verify_forgeries import rechain

PARSER = BytesParser(policy=email.policy.default)
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
        **options: Any,
    ) -> None:
        self.root = root
        self.names = []
        self.keys = {n: make_key(root / "keys", n) for n in NAMES}
        self.setup = {
            "game": game,
            "id": "bazaar",
            "seed": SEED,
            "players": [
                {"name": n, "email": f"{n}@example.org", "key_file": f"keys/{n}.pub"}
                for n in NAMES[:seated]
            ],
            "seats": seats,
            "options": options,
            "deadline": "48h",
            **(signup or {}),
        }
        self.setup_path = root / "setup.yaml"
        self.setup_path.write_text(yaml.safe_dump(self.setup, sort_keys=False))
        self.gamedir = root / "game"
        self.config = root / "mail.toml"
        self.config.write_text(CONFIG)
        result = run("open", self.gamedir, "--setup", self.setup_path, "--config", self.config)
        assert result.exit_code == 0, result.output
        self.announcement = result.output
        self.shares: dict[str, str] = {}
        self.mails = 0

    def join_file(self, name: str, signer: str | None = None, **given: Any) -> Path:
        """``name``'s join as ``adjudicator join`` makes it (``given`` changes its keys),
        signed with ``signer``'s key (default: their own)."""
        key = self.keys[given.pop("key_of", name)]
        made = run(
            "join", "bazaar", "--name", name, "--email", f"{name}@example.org",
            "--key", f"{key}.pub",
        )  # fmt: skip
        assert made.exit_code == 0, made.output
        data = yaml.safe_load(made.output)
        data["join"].update(given)
        self.shares[name] = data["join"]["share"]
        path = self.write(f"join-{name}-{len(self.shares)}-{self.mails}.yaml", yaml.safe_dump(data))
        self.mails += 1
        ssh_sign(self.keys[signer or name], path)
        return path

    def leave_file(self, name: str) -> Path:
        path = self.write(f"leave-{name}.yaml", run("join", "bazaar", "--name", name, "--leave").output)
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
        message["Message-ID"] = f"<m{self.mails}@{sender.split('@')[-1]}>"
        message.set_content(text or "Here it is.\n")
        if path is not None:
            message.add_attachment(path.read_bytes(), "text", "plain", filename=path.name)
            signature = Path(f"{path}.sig").read_bytes()
            message.add_attachment(signature, "application", "octet-stream", filename=f"{path.name}.sig")
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
        """``name`` answers their confirmation request with their mail program's Reply."""
        [request] = self.outbox(f"{name}@example.org", "signup-confirm")[-1:]
        return self.mail(None, sender or f"{name}@example.org", f"Re: {request['Subject']}")

    def seat(self, name: str) -> str:
        """``name`` joins by mail and confirms."""
        self.mail(self.join_file(name), f"{name}@example.org")
        return self.confirm(name)


def lines(table: Table) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (table.gamedir / "log.jsonl").read_text().splitlines()]


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
    assert [w["To"] for w in table.outbox(kind="welcome")] == [f"{n}@example.org" for n in table.names]
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
    assert result.exit_code == 3 and "seats/joins/0002-carol.yaml" in result.output, result.output
