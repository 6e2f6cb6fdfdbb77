"""Forgeries a game master can build from the files in their hands, each caught by `verify`."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from adjudicator import demo
from tests.helpers import run


def rechain(lines: list[str], start: int) -> list[str]:
    """Each line from ``start`` on chained again to the one before it, as a forger would."""
    result = list(lines[:start])
    for text in lines[start:]:
        entry = json.loads(text)
        entry["prev"] = hashlib.sha256(result[-1].encode() + b"\n").hexdigest()
        result.append(json.dumps(entry, sort_keys=True, ensure_ascii=False))
    return result


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("forge")
    options = {"max_rounds": 2}
    return demo.run("sultans_court", 4, 8, tmp / "d", lambda _l: None, options=options)


def archived(gamedir: Path, out: Path, *flags: str) -> dict[str, Any]:
    assert run("archive", gamedir, *flags, "-o", out).exit_code == 0
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def verified(data: dict[str, Any], path: Path) -> tuple[int, str]:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = run("verify", path)
    return result.exit_code, result.output


@pytest.mark.parametrize("kind", ["full", "public"])
def test_the_same_signed_order_taken_twice_is_named(game: Path, tmp_path: Path, kind: str) -> None:
    """The engine refuses an order whose signed bytes it accepted before; a forger who appends
    a second `submitted` line for the same bytes (a copy under a new name) and chains the
    journal again must not pass."""
    flags = ["--public"] if kind == "public" else []
    data = archived(game, tmp_path / "a.json", *flags)
    assert verified(data, tmp_path / "ok.json")[0] == 0
    forged = copy.deepcopy(data)
    lines = forged["journal"]
    number, entry = next(
        (i, json.loads(t))
        for i, t in enumerate(lines)
        if json.loads(t)["type"] == "submitted" and json.loads(t).get("orders")
    )
    order = entry["orders"][0]
    origin = f"turns/{order['turn']:04d}/orders/{order['file']}"
    copied = order["file"].replace(".yaml", "-again.yaml")
    again = {
        **entry,
        "files": {
            f"turns/{order['turn']:04d}/orders/{copied}{end}": entry["files"][origin + end]
            for end in ("", ".sig")
        },
        "orders": [{**order, "file": copied, "replaces": True}],
    }
    lines.insert(number + 1, json.dumps(again, sort_keys=True))
    forged["journal"] = rechain(lines, number + 1)
    held = {f["path"]: f for f in forged["files"]}
    for end in ("", ".sig"):
        if origin + end in held:
            copy_of = {
                **held[origin + end],
                "path": f"turns/{order['turn']:04d}/orders/{copied}{end}",
            }
            forged["files"].append(copy_of)
    code, output = verified(forged, tmp_path / "forged.json")
    assert code == 3, output
    assert "the same signed order was accepted before" in output, output


@pytest.mark.parametrize(
    "left_out", [r"turns/0001/orders/[a-z]+-1\.yaml", r"turns/0002/state\.json"]
)
def test_a_finished_games_public_archive_holds_every_file_the_journal_names_public(
    game: Path, tmp_path: Path, left_out: str
) -> None:
    """Once the game is over, every order, notice, state, resolution and view is public: a
    public archive that leaves one out (a withdrawn vote put back, whose withdrawal is left out)
    is refused, naming the file, even with the head a player holds."""
    import re

    data = archived(game, tmp_path / "p.json", "--public")
    assert data["over"]
    gone = next(f["path"] for f in data["files"] if re.fullmatch(left_out, f["path"]))
    forged = {**data, "files": [f for f in data["files"] if f["path"] != gone]}
    code, output = verified(forged, tmp_path / "forged.json")
    assert code == 3, output
    assert gone in output and "the journal names it, but the archive does not hold it" in output


def test_every_key_a_seat_held_is_in_the_summary_and_a_player_checks_their_own(
    tmp_path: Path,
) -> None:
    """A game master who swaps a player's key in for one order and swaps it back leaves two
    `replaced` lines; verify lists both, and `--player NAME --key FILE` names the order that was
    accepted under a key the player never held."""
    from adjudicator.signing import keys
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    table.play_turn()
    alice_pub = tmp_path / "keys" / "alice.pub"
    impostor = tmp_path / "keys" / "impostor"
    assert run("keygen", impostor).exit_code == 0
    swap = run("replace", table.gamedir, "--player", "alice", "--key-file", f"{impostor}.pub")
    assert swap.exit_code == 0, swap.output
    table.keys["alice"] = impostor
    forged = table.signed("alice", table.legal("alice"), "forged-alice.yaml")
    assert run("submit", table.gamedir, forged).exit_code == 0
    back = run("replace", table.gamedir, "--player", "alice", "--key-file", alice_pub)
    assert back.exit_code == 0, back.output
    table.keys["alice"] = tmp_path / "keys" / "alice"
    others = [table.signed(p, table.legal(p), f"t2-{p}.yaml") for p in ("bob", "carol")]
    assert run("submit", table.gamedir, *others).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert run("archive", table.gamedir, "-o", tmp_path / "full.json").exit_code == 0

    mine = keys.fingerprint(alice_pub.read_text().strip())
    theirs = keys.fingerprint((tmp_path / "keys" / "impostor.pub").read_text().strip())
    result = run("verify", tmp_path / "full.json")
    assert result.exit_code == 0, result.output
    assert f"keys: at turn 2, alice's key {mine} was replaced by {theirs}" in result.output
    assert f"keys: at turn 2, alice's key {theirs} was replaced by {mine}" in result.output
    bob = run(
        "verify", tmp_path / "full.json", "--player", "bob", "--key", tmp_path / "keys" / "bob.pub"
    )
    assert bob.exit_code == 0, bob.output
    assert "bob: every order and notice of this seat was accepted under your key" in bob.output
    alice = run("verify", tmp_path / "full.json", "--player", "alice", "--key", alice_pub)
    assert alice.exit_code == 3, alice.output
    assert "turns/0002/orders/" in alice.output
    assert f"accepted under alice's key {theirs}, not under your key {mine}" in alice.output
    assert run("verify", tmp_path / "full.json", "--player", "alice").exit_code == 2
    nobody = run("verify", tmp_path / "full.json", "--player", "zed", "--key", alice_pub)
    assert nobody.exit_code == 2
    assert "there is no player zed in this archive" in nobody.output


def test_a_game_whose_keys_never_changed_says_so(game: Path, tmp_path: Path) -> None:
    data = archived(game, tmp_path / "a.json")
    code, output = verified(data, tmp_path / "ok.json")
    assert code == 0
    assert "keys: every seat kept the key it had when the game was created" in output
