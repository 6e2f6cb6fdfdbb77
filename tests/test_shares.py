"""The players' share of the deal (docs/randomness.md): the seed a game plays with under
``shares: ask`` is hashed from the game master's committed seed and every player's share."""

from __future__ import annotations

import email.policy
import hashlib
import json
import shutil
import subprocess
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from adjudicator.engine.adjudication import opening_files
from adjudicator.engine.open_game import game_options
from adjudicator.rules import deal
from adjudicator.rules.digests import Digester, file_key
from adjudicator.rules.rng import Rng
from adjudicator.store.registry import load_game
from tests.crashing import KILLED, fork_run
from tests.helpers import SEED, Table, notice_mail, run
from tests.ssh import ssh_sign
from tests.test_verify_forgeries import rechain
from tests.tools import require_tool

SHARES = ["0123456789abcdef0123456789abcdef", "FEDCBA9876543210FEDCBA9876543210ff"]


def test_the_seed_played_is_the_hash_of_the_seed_and_the_shares_in_seat_order() -> None:
    by_hand = hashlib.sha256(
        b"adjudicator-deal/1\n"
        + SEED.encode()
        + b"\n"
        + SHARES[0].encode()
        + b"\n"
        + SHARES[1].encode()
        + b"\n"
    ).hexdigest()
    assert deal.dealt_seed(SEED, SHARES) == by_hand
    assert len(by_hand) == 64 and by_hand == by_hand.lower()
    assert deal.dealt_seed(SEED, SHARES[::-1]) != by_hand, "seat order counts"
    assert deal.dealt_seed(SEED, [SHARES[0], SHARES[1].lower()]) != by_hand, "kept as written"


@pytest.mark.parametrize(
    ("share", "ok"),
    [
        ("0" * 32, True),
        ("aB" * 64, True),
        ("0" * 31, False),
        ("0" * 129, False),
        ("g" * 32, False),
        (" " + "0" * 32, False),
        ("0" * 32 + "\n", False),
    ],
)
def test_a_share_is_32_to_128_hex_digits(share: str, ok: bool) -> None:
    assert deal.is_share(share) is ok


# -- a game that asks for the players' shares -----------------------------------------------------
def share_of(table: Table, player: str, share: str, name: str | None = None) -> Path:
    return table.notice(player, f'share: "{share}"\n', name or f"share-{player}.yaml")


def shares_table(root: Path) -> Table:
    return Table(root, players=3, schedule={"shares": "ask"}, jewel_choice="random")


def journal(table: Table) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]


@pytest.mark.seconds
def test_a_game_waits_for_every_share_deals_from_them_and_verifies(tmp_path: Path) -> None:
    table = shares_table(tmp_path)
    assert not (table.gamedir / "turns").exists(), "no deal before the shares"
    status = table.status()
    assert (status["turn"], status["shares_owed"]) == (0, table.names)
    assert "waiting for shares from alice, bob, carol" in run("status", table.gamedir).output
    early = run("submit", table.gamedir, table.signed("alice", {"bid": {"cushion": 1, "card": 1}}))
    assert early.exit_code == 3 and "shares" in early.output, early.output
    shares = {"alice": "a1" * 16, "bob": "B0" * 20, "carol": "c3" * 64}
    first = [share_of(table, p, shares[p]) for p in ("bob", "alice")]
    result = run("submit", table.gamedir, *first)
    assert result.exit_code == 0, result.output
    assert table.status()["shares_owed"] == ["carol"]
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    raw = notice_mail(share_of(table, "carol", shares["carol"]), "carol@example.org", "<s@m>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert "accepted" in result.output
    assert journal(table)[-1]["dealt"]["turn"] == 1
    status = table.status()
    assert status["turn"] == 1 and "shares_owed" not in status
    derived = deal.dealt_seed(SEED, [shares[p] for p in table.names])
    meta = json.loads((table.gamedir / "game.json").read_text())
    game = load_game("sultan")
    dealt = game.setup(meta["players"], game_options(meta), Rng(derived))
    state = json.loads((table.gamedir / "turns" / "0001" / "state.json").read_text())
    assert state == json.loads(json.dumps(dealt)), "the deal follows the shares"
    while not table.status()["over"]:
        table.play_turn()
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["shares"] == [shares[p] for p in table.names]
    assert deal.dealt_seed(record["seed"], record["shares"]) == derived
    schema = Path(__file__).parents[1] / "docs" / "schemas" / "sultan-record.schema.json"
    jsonschema.validate(record, json.loads(schema.read_text()))
    out = table.root / "game.archive"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    result = run("verify", out)
    assert result.exit_code == 0, result.output
    public = table.root / "public.archive"
    assert run("archive", table.gamedir, "--public", "-o", public).exit_code == 0
    assert "notices/share/0001.yaml" in public.read_text(), "shares are public"
    assert run("verify", public).exit_code == 0
    data = json.loads(out.read_text())
    for item in data["files"]:
        if item["path"] == "notices/share/0001.yaml":
            item["text"] = item["text"].replace(shares["bob"], "b0" * 20)
    out.write_text(json.dumps(data))
    result = run("verify", out)
    assert result.exit_code == 3, result.output
    assert "notices/share/0001.yaml" in result.output


def test_a_share_twice_late_malformed_or_unsigned_is_refused(tmp_path: Path) -> None:
    table = shares_table(tmp_path)
    assert run("submit", table.gamedir, share_of(table, "alice", "0" * 32)).exit_code == 0
    refusals = {
        "twice": (share_of(table, "alice", "1" * 32, "again.yaml"), "sent a share already"),
        "short": (share_of(table, "bob", "12ab", "short.yaml"), "32 to 128 hex digits"),
        "not hex": (share_of(table, "bob", "z" * 32, "z.yaml"), "32 to 128 hex digits"),
        "a number": (table.notice("bob", f"share: {'1' * 32}\n", "n.yaml"), "in quotes"),
    }
    unsigned = table.write("unsigned.yaml", f"id: cairo-2026\nplayer: bob\nshare: {'2' * 32}\n")
    for path, words in refusals.values():
        result = run("submit", table.gamedir, path)
        assert result.exit_code == 3 and words in result.output, result.output
    result = run("submit", table.gamedir, unsigned)
    assert result.exit_code == 3 and "signature" in result.output, result.output
    assert table.status()["shares_owed"] == ["bob", "carol"]
    for player in ("bob", "carol"):
        assert run("submit", table.gamedir, share_of(table, player, "3" * 32)).exit_code == 0
    late = run("submit", table.gamedir, share_of(table, "bob", "4" * 40, "late.yaml"))
    assert late.exit_code == 3 and "dealt already" in late.output, late.output


def test_a_game_that_asks_for_no_shares_refuses_one(tmp_path: Path) -> None:
    table = Table(tmp_path)
    result = run("submit", table.gamedir, share_of(table, "alice", "0" * 32))
    assert result.exit_code == 3 and "asks for no shares" in result.output, result.output


def test_nothing_shows_the_seed_before_the_end(tmp_path: Path) -> None:
    table = shares_table(tmp_path)
    shown = [run("status", table.gamedir, "--json").output, run("log", table.gamedir).output]
    for player in table.names:
        assert run("submit", table.gamedir, share_of(table, player, "5" * 32)).exit_code == 0
    derived = deal.dealt_seed(SEED, ["5" * 32] * 3)
    shown += [run("status", table.gamedir, "--json").output, json.dumps(table.view("alice"))]
    shown += [run("log", table.gamedir, "--json").output]
    shown += [run("report", table.gamedir, "--player", p).output for p in table.names]
    secret = ("game.json", "setup.yaml")  # the game master's own files hold the seed
    kept = [p for p in table.gamedir.rglob("*") if p.is_file() and p.name not in secret]
    shown += [p.read_bytes().decode("utf-8", "replace") for p in kept]
    for text in shown:
        assert SEED not in text and derived not in text
    assert derived not in (table.gamedir / "game.json").read_text(), "never written down"


def test_a_player_makes_a_share_file_signs_it_and_it_is_taken(tmp_path: Path) -> None:
    table = shares_table(tmp_path)
    made = run("share", "cairo-2026", "--player", "alice")
    assert made.exit_code == 0, made.output
    lines = made.output.splitlines()
    assert lines[:2] == ["id: cairo-2026", "player: alice"]
    share = lines[2].split('"')[1]
    assert deal.is_share(share) and len(share) == 32
    assert run("share", "cairo-2026", "--player", "alice").output != made.output, "drawn anew"
    path = table.write("alice-share.yaml", made.output)
    ssh_sign(table.keys["alice"], path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0 and "accepted (alice, share)" in result.output, result.output
    bad = run("share", "cairo 2026", "--player", "alice")
    assert bad.exit_code == 2 and "cairo 2026" in bad.output


def test_before_the_deal_the_game_has_no_turn_to_show_or_time(tmp_path: Path) -> None:
    table = Table(tmp_path, schedule={"shares": "ask", "deadline": "48h"})
    for args in (
        ("report", "--player", "alice"),
        ("form", "--player", "alice"),
        ("adjudicate", "--default-missing"),
        ("extend", "--by", "24h"),
        ("pause",),
        ("resign", "--player", "bob"),
    ):
        result = run(args[0], table.gamedir, *args[1:])
        assert result.exit_code == 4, (args, result.output)
        assert "has not dealt yet" in result.output and "alice, bob, carol" in result.output
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    asked = sorted(p.name for p in (table.gamedir / "mail").rglob("*.eml"))
    assert [name.split("-", 1)[1] for name in asked] == [f"share-{p}.eml" for p in table.names], (
        "the welcome waits for the deal; each player is asked for a share"
    )
    text = next((table.gamedir / "mail").rglob("*share-bob.eml")).read_text()
    assert "adjudicator share cairo-2026 --player bob > share.yaml" in text
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert len(list((table.gamedir / "mail").rglob("*.eml"))) == 3, "asked once"
    assert table.status()["deadline"] is None
    out = table.root / "waiting.archive"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    result = run("verify", out)
    assert result.exit_code == 0, result.output
    for player in table.names:
        assert run("submit", table.gamedir, share_of(table, player, "6" * 32)).exit_code == 0
    status = table.status()
    assert status["turn"] == 1 and status["deadline"] is not None
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    mails = sorted(p.name for p in (table.gamedir / "mail").rglob("*.eml"))
    assert any("welcome-alice" in name for name in mails), mails
    assert any("report-1-alice" in name for name in mails), mails


@pytest.mark.slow
def test_the_deal_killed_at_any_instant_deals_once_the_same(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, schedule={"shares": "ask"})
    assert run("submit", table.gamedir, share_of(table, "alice", "7" * 32)).exit_code == 0
    last = share_of(table, "bob", "8" * 32)
    pristine = tmp_path / "pristine"
    shutil.copytree(table.gamedir, pristine)
    args = ["submit", str(table.gamedir), str(last)]
    whole = fork_run(args, {})
    assert whole.code == 0 and whole.failpoints > 5, whole.printed
    dealt = (table.gamedir / "turns" / "0001" / "state.json").read_bytes()
    for point in range(1, whole.failpoints + 1):
        shutil.rmtree(table.gamedir)
        shutil.copytree(pristine, table.gamedir)
        killed = fork_run(args, {}, kill_at=point)
        assert killed.code == KILLED, (point, killed.printed)
        again = run("submit", table.gamedir, last)  # the next command finishes or discards it
        assert again.exit_code in (0, 3), (point, again.output)
        assert run("doctor", table.gamedir).exit_code == 0, point
        assert table.status()["turn"] == 1, point
        state = (table.gamedir / "turns" / "0001" / "state.json").read_bytes()
        assert state == dealt, point
        assert sum(1 for line in journal(table) if line.get("dealt")) == 1, point


def test_a_deal_made_from_the_game_masters_seed_alone_is_caught(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, schedule={"shares": "ask"})
    for player in table.names:
        assert run("submit", table.gamedir, share_of(table, player, "9" * 32)).exit_code == 0
    out = table.root / "game.archive"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    assert run("verify", out).exit_code == 0
    data = json.loads(out.read_text())
    meta = json.loads((table.gamedir / "game.json").read_text())
    game = load_game("sultan")
    alone = game.setup(meta["players"], game_options(meta), Rng(SEED))  # no share in it
    forged = opening_files(game, meta, 1, alone, None)
    digester = Digester(file_key(SEED, meta["salt"]))
    lines = data["journal"]
    at = next(i for i, text in enumerate(lines) if json.loads(text).get("dealt"))
    entry = json.loads(lines[at])
    for item in data["files"]:
        if item["path"] in forged:
            item["text"] = forged[item["path"]].decode()
            entry["files"][item["path"]] = digester.data(item["path"], forged[item["path"]])
    lines[at] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(lines, at)
    out.write_text(json.dumps(data))
    result = run("verify", out)
    assert result.exit_code == 3, result.output
    assert "turns/0001/" in result.output and "comes out otherwise" in result.output


@pytest.mark.parametrize(
    ("lang", "words", "asked"),
    [
        ("de", "hat schon einen Anteil geschickt", "DEIN ANTEIL AM AUSTEILEN"),
        ("nl", "heeft al een aandeel gestuurd", "JOUW AANDEEL IN HET DELEN"),
        ("fr", "a déjà envoyé une part", "VOTRE PART DE LA DONNE"),
    ],
)
def test_a_refused_share_and_the_mail_asking_for_one_are_in_the_games_language(
    tmp_path: Path, lang: str, words: str, asked: str
) -> None:
    table = Table(tmp_path, players=2, schedule={"shares": "ask", "lang": lang})
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    raw = next((table.gamedir / "mail").rglob("*share-bob.eml")).read_bytes()
    message = BytesParser(policy=email.policy.default).parsebytes(raw)
    body = message.get_body(("plain",))
    assert body is not None and asked in body.get_content()
    assert run("submit", table.gamedir, share_of(table, "alice", "a" * 32)).exit_code == 0
    again = run("submit", table.gamedir, share_of(table, "alice", "b" * 32, "again.yaml"))
    assert again.exit_code == 3 and words in again.output, again.output


def test_the_by_hand_line_of_the_docs_gives_the_seed_played() -> None:
    tool = require_tool("sha256sum", "the by-hand check of docs/randomness.md")
    shares = ["a1" * 16, "B2" * 16, "c3" * 20]
    line = "printf 'adjudicator-deal/1\\n%s\\n%s\\n%s\\n%s\\n' SEED SHARE_1 SHARE_2 SHARE_3"
    assert (
        f"{line} | sha256sum" in (Path(__file__).parents[1] / "docs" / "randomness.md").read_text()
    )
    for number, share in enumerate(shares, 1):
        line = line.replace(f"SHARE_{number}", share)
    printed = subprocess.run(["sh", "-c", line.replace("SEED", SEED)], capture_output=True)
    done = subprocess.run([tool], input=printed.stdout, capture_output=True, check=True)
    assert done.stdout.split()[0].decode() == deal.dealt_seed(SEED, shares)


def test_a_journal_that_deals_at_another_line_than_the_last_share_is_named(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, players=2, schedule={"shares": "ask"})
    for player in table.names:
        assert run("submit", table.gamedir, share_of(table, player, "c" * 32)).exit_code == 0
    out = table.root / "game.archive"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    data = json.loads(out.read_text())
    lines = data["journal"]
    at = next(i for i, text in enumerate(lines) if json.loads(text).get("dealt"))
    entry = json.loads(lines[at])
    del entry["dealt"]  # the last share taken, and no deal
    lines[at] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(lines, at)
    out.write_text(json.dumps(data))
    result = run("verify", out)
    assert result.exit_code == 3, result.output
    assert f"line {at + 1}: the shares before it deal the game otherwise" in result.output


def share_requests(table: Table) -> dict[str, Any]:
    """``send`` the requests for shares: each player's mail, parsed."""
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    return {
        name: parser.parsebytes(
            next((table.gamedir / "mail").rglob(f"*share-{name}.eml")).read_bytes()
        )
        for name in table.names
    }


def test_the_mails_openssh_lines_make_a_share_without_the_program(tmp_path: Path) -> None:
    """The request for a share told the player to run `adjudicator share`, which a player
    without the program does not have: its OpenSSH lines, run as written (the key's path
    aside), make a signed share that mail takes, and the last such share deals."""
    import subprocess

    from tests.helpers import notice_mail

    table = shares_table(tmp_path)
    config = table.root / "mail.toml"
    for name, mail in share_requests(table).items():
        words = mail.get_body(("plain",)).get_content()
        lines = [
            line.strip()
            for line in words.splitlines()
            if line.startswith("    ") and line.split()[0] in ("printf", "ssh-keygen")
        ]
        assert len(lines) == 2, words
        work = tmp_path / f"player-{name}"
        work.mkdir()
        for line in lines:
            line = line.replace("~/.ssh/id_ed25519", str(table.keys[name]))
            done = subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stderr)
        [share] = work.glob("*.yaml")
        sent = notice_mail(share, f"{name}@example.org", f"<share-{name}@mail>", "my share")
        result = run("ingest", table.gamedir, "--config", config, input=sent)  # type: ignore[arg-type]
        assert result.output.endswith("accepted\n"), result.output
    assert table.status()["turn"] == 1  # dealt
