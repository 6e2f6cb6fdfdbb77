"""Building games for tests: real keys and signatures from OpenSSH's ssh-keygen."""

from __future__ import annotations

import email.policy
import hashlib
import json
import marshal
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from adjudicator import demo
from adjudicator.cli import cli
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.rules.rng import Rng
from adjudicator.store import summary
from tests.ssh import make_key, ssh_sign

NAMES = ["alice", "bob", "carol", "dave", "erin"]
SEED = "3f9a2c7e5b1d4086a9e2f71c0b8d5e34"
"""The tests' setup seed: 32 hex digits, as the setup file asks (any fixed value will do)."""
DEMO_NO_SITE = ("demo", "--no-site")
"""The demo command without its static site, for a test of the game a demo plays: the site's
tests make it (the sites were over half the CPU time of the suite's demos)."""


def bot_round(game: Any, state: Any, rng: Rng) -> Any:
    """``state`` after one round of the bots' orders, each drawn from its own stream of ``rng``
    (named after the player and the turn), resolved with ``rng``."""
    orders = {
        p: game.bot(game.view(state, p), rng.stream(f"bot {p} {state['turn']}"))
        for p in game.owed(state)
    }
    return game.resolve(state, orders, rng).state


def run(*args: str | Path, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def demo_game(tmp: Path, game: str, players: int, seed: int, **options: Any) -> Path:
    """A finished bot game played through the signed-order path; its game directory."""
    return demo.run(
        game, players, seed, tmp / "demo", lambda _line: None, options=options, site=False
    )


def archive(gamedir: Path, out: Path, *flags: str) -> dict[str, Any]:
    result = run("archive", gamedir, *flags, "-o", out)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A finished 3-player Sultan game, its first mail queued, and its whole archive: one per
    test process (tests/conftest.py registers it), for tests that only read them (a game takes
    some 4 s)."""
    tmp = tmp_path_factory.mktemp("finished")
    gamedir = demo_game(tmp, "sultan", 3, 11)
    (tmp / "no-mail.toml").write_text("")  # no [smtp]: every mail goes to the game's outbox/
    result = run("send", gamedir, "--config", tmp / "no-mail.toml")
    assert result.exit_code == 0, result.output
    return gamedir, archive(gamedir, tmp / "full.json")


class Table:
    """A game in a temporary folder, with each player's ssh-keygen key."""

    def __init__(
        self,
        root: Path,
        players: int = 3,
        seed: str = SEED,
        game: str = "sultan",
        schedule: dict[str, Any] | None = None,
        game_id: str = "cairo-2026",
        **options: Any,
    ) -> None:
        """``schedule`` adds setup keys such as ``deadline``, ``timezone`` and ``reminders``."""
        self.root = root
        self.names = NAMES[:players]
        self.keys = {n: make_key(root / "keys", n) for n in self.names}
        self.setup = {
            "game": game,
            "id": game_id,
            "seed": seed,
            "players": [
                {"name": n, "email": f"{n}@example.org", "key_file": f"keys/{n}.pub"}
                for n in self.names
            ],
            "options": options,
            **(schedule or {}),
        }
        self.setup_path = root / "setup.yaml"
        self.setup_path.write_text(yaml.safe_dump(self.setup, sort_keys=False))
        self.gamedir = root / "game"
        result = run("new", self.gamedir, "--setup", self.setup_path)
        assert result.exit_code == 0, result.output

    def status(self) -> dict[str, Any]:
        result = run("status", self.gamedir, "--json")
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.output)
        return data

    def view(self, player: str) -> dict[str, Any]:
        result = run("view", self.gamedir, "--player", player, "--json")
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.output)
        return data

    def write(self, name: str, text: str) -> Path:
        path = self.root / "orders" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def order_text(self, player: str, body: dict[str, Any], turn: int | None = None) -> str:
        turn = self.status()["turn"] if turn is None else turn
        head = f"id: {self.setup['id']}\nplayer: {player}\nturn: {turn}\n"
        return head + yaml.safe_dump(body, sort_keys=False)

    def signed(
        self, player: str, body: dict[str, Any], name: str | None = None, signer: str | None = None
    ) -> Path:
        path = self.write(name or f"{player}.yaml", self.order_text(player, body))
        ssh_sign(self.keys[signer or player], path)
        return path

    def notice(self, player: str, body: str, name: str, signer: str | None = None) -> Path:
        """A signed notice (press, absence or vote): ``body`` is its YAML after the envelope."""
        path = self.write(name, f"id: {self.setup['id']}\nplayer: {player}\n{body}")
        ssh_sign(self.keys[signer or player], path)
        return path

    def legal(self, player: str) -> dict[str, Any]:
        """A simple legal order for ``player`` from their view."""
        view = self.view(player)
        to_do = view.get("order", view["to_do"])  # sealed by commit-reveal: the order sealed
        if view.get("game") == "sultans_court":
            return COURT.bot(view, Rng(0).stream(f"{player} {view['turn']}"))
        if to_do == "return":
            return {"return": view["drawn"][0]}
        hand = sorted(view["hand"])
        if to_do == "bids":
            return {"bids": [{"cushion": 1, "card": hand[0]}, {"cushion": 2, "card": hand[1]}]}
        return {"bid": {"cushion": 1, "card": hand[0]}}

    def play_turn(self) -> None:
        """Every owed order signed, submitted and adjudicated."""
        status = self.status()
        paths = [
            self.signed(p, self.legal(p), f"t{status['turn']}-{p}.yaml") for p in status["owed"]
        ]
        result = run("submit", self.gamedir, *paths)
        assert result.exit_code == 0, result.output
        result = run("adjudicate", self.gamedir)
        assert result.exit_code == 0, result.output


def notice_mail(path: Path, sender: str, message_id: str, subject: str = "notice") -> bytes:
    """A message with the signed notice at ``path`` and its .sig attached, as a mail client
    sends it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm-bot@example.org"
    message["Subject"] = subject
    message["Message-ID"] = message_id
    message.set_content("Here it is.\n")
    message.add_attachment(path.read_bytes(), maintype="text", subtype="yaml", filename=path.name)
    signature = Path(f"{path}.sig").read_bytes()
    message.add_attachment(
        signature, maintype="application", subtype="octet-stream", filename=f"{path.name}.sig"
    )
    return message.as_bytes(policy=email.policy.SMTP)


def order_mail(
    table: Table,
    player: str,
    body: dict[str, object],
    sender: str | None = None,
    message_id: str | None = None,
    tamper: bool = False,
) -> bytes:
    """A message with the signed order file and its .sig attached, as a mail client sends it."""
    path = table.signed(player, body, name=f"{player}-{message_id or 'x'}.yaml")
    order = path.read_bytes()
    if tamper:
        order = order.replace(b"turn:", b"turn:  ")
    message = EmailMessage()
    message["From"] = sender or f"{player}@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "my orders"
    message["Message-ID"] = message_id or f"<{player}.{hashlib.md5(order).hexdigest()}@mail>"
    message.set_content("Here are my orders.\n")
    message.add_attachment(order, maintype="text", subtype="yaml", filename="orders.yaml")
    signature = Path(f"{path}.sig").read_bytes()
    message.add_attachment(
        signature, maintype="application", subtype="octet-stream", filename="orders.yaml.sig"
    )
    return message.as_bytes(policy=email.policy.SMTP)


def summary_as_it_is(kept: summary.Summary) -> Any:
    """The journal's summary ``kept`` as plain values, copied whole (nothing shared with it)."""
    return marshal.loads(marshal.dumps(summary._plain(kept)))
