"""Every value a player sees that commits to hidden data is salted or keyed with a secret of at
least 128 bits (docs/archive.md): the seed commitment, the chain's digests of
hidden files and of accepted orders. A plain SHA-256 is kept only for public files."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

from adjudicator.rules import digests
from adjudicator.store.journal import order_entries
from tests.helpers import Table, run


def test_the_salt_is_256_random_bits_and_changes_the_commitment_and_the_key() -> None:
    salts = {digests.new_salt() for _ in range(50)}
    assert len(salts) == 50
    assert all(len(salt) == 64 and int(salt, 16) >= 0 for salt in salts)
    seed = "0" * 32
    first, second = sorted(salts)[:2]
    assert digests.commitment(seed, first) != digests.commitment(seed, second)
    assert digests.file_key(seed, first) != digests.file_key(seed, second)
    assert digests.commitment(seed, first) != digests.file_key(seed, first).hex()


def test_the_formulas_are_the_documented_ones() -> None:
    seed, salt = "ab" * 16, "cd" * 32
    text = f"{seed}\n{salt}\n".encode()
    assert (
        digests.commitment(seed, salt)
        == hashlib.sha256(b"adjudicator-seed-commitment/1\n" + text).hexdigest()
    )
    assert (
        digests.file_key(seed, salt) == hashlib.sha256(b"adjudicator-file-key/1\n" + text).digest()
    )


def test_a_game_names_hidden_files_and_orders_by_keyed_digests_and_public_views_plainly(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    meta = json.loads((table.gamedir / "game.json").read_text())
    assert len(meta["salt"]) == 64 and len(meta["seed"]) >= 32
    assert meta["commitment"] == digests.commitment(meta["seed"], meta["salt"])
    key = digests.file_key(meta["seed"], meta["salt"])
    lines = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    assert lines[0]["commitment"] == meta["commitment"]
    assert "email" not in json.dumps(lines[0]["public"])
    named = 0
    for line in lines:
        for rel, digest in (line.get("files") or {}).items():
            data = (table.gamedir / rel).read_bytes()
            plain = hashlib.sha256(data).hexdigest()
            keyed = hmac.new(key, data, hashlib.sha256).hexdigest()
            assert digest == (plain if rel.endswith("/views/public.json") else keyed), rel
            named += 1
        for order in order_entries(line):
            data = (table.gamedir / "turns/0001/orders" / order["file"]).read_bytes()
            assert order["digest"] == hmac.new(key, data, hashlib.sha256).hexdigest()
            assert hashlib.sha256(data).hexdigest() not in json.dumps(lines)
    assert named > 10


def test_the_files_that_hold_addresses_carry_a_secret_the_end_of_the_game_keeps(
    tmp_path: Path,
) -> None:
    """The end of the game reveals the seed and salt, and so the file key: every keyed digest
    in a public archive can then test guesses. game.json and a replacement's addresses file
    hold the players' addresses, the one thing never revealed: each also holds 128 random bits
    of its own, so that a guess of the rest (a demo's game.json can be rebuilt from its setup
    and the revealed seed) does not give the digest. Two games of the same setup differ."""
    games = [Table(tmp_path / name, players=3) for name in ("one", "two")]
    secrets = []
    for table in games:
        meta = json.loads((table.gamedir / "game.json").read_text())
        secrets.append(meta["privacy"])
        key = digests.file_key(meta["seed"], meta["salt"])
        created = json.loads((table.gamedir / "log.jsonl").read_text().splitlines()[0])
        digest = created["files"]["game.json"]
        data = (table.gamedir / "game.json").read_bytes()
        assert digest == hmac.new(key, data, hashlib.sha256).hexdigest()
        replaced = run("replace", table.gamedir, "--player", "bob", "--email", "zoe@example.org")
        assert replaced.exit_code == 0, replaced.output
        [seats] = (table.gamedir / "seats").glob("replaced-*.json")
        held = json.loads(seats.read_text())
        assert set(held) == {"email", "was_email", "privacy"}
        secrets.append(held["privacy"])
    assert all(len(s) == 32 and int(s, 16) >= 0 for s in secrets)
    assert len(set(secrets)) == len(secrets)
