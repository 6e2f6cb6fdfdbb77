"""A hostile review of `archive`, `verify` and `sealing: commit-reveal`: each test shows a bug it
found (a cheat verify let pass, a crash on a stranger's archive, a leak), now mended."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from adjudicator.rules import sealing
from adjudicator.rules.digests import Digester, file_key
from adjudicator.store.gamedir import GENESIS
from tests.helpers import Table, run
from tests.ssh import ssh_sign
from tests.test_verify import archive, demo_game, rechain, save, verify


def bare(
    journal: list[str], files: list[dict[str, str]] | None = None, **more: Any
) -> dict[str, Any]:
    """A minimal archive a stranger can send: only the journal and the files given."""
    return {
        "format": "adjudicator-archive",
        "version": 1,
        "made_by": "x",
        "public": False,
        "game": "sultan",
        "id": "x",
        "over": False,
        "journal": journal,
        "files": files or [],
        **more,
    }


# -- crashes (exit 1) on archives a stranger can send ----------------------------------------------


def test_a_journal_line_with_a_lone_surrogate_is_refused_not_a_crash(tmp_path: Path) -> None:
    line = json.dumps({"type": "created", "prev": GENESIS, "x": "\ud800"}, ensure_ascii=False)
    path = tmp_path / "a.json"
    path.write_text(json.dumps(bare([line])), encoding="utf-8")  # \ud800 escaped: valid JSON
    code, lines = verify(path)
    assert code == 3, lines


def test_a_deeply_nested_journal_line_is_refused_not_a_crash(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    line = '{"type": "created", "prev": "' + GENESIS + '", "x": ' + deep + "}"
    code, lines = verify(save(bare([line]), tmp_path / "a.json"))
    assert code == 3, lines


def test_a_deeply_nested_game_json_with_a_wrong_seed_is_refused_not_a_crash(
    tmp_path: Path,
) -> None:
    """The commitment does not open, so verify looks for the seed the game recorded in
    game.json (before its digest is checked) and json.loads it unguarded."""
    created = {"type": "created", "prev": GENESIS, "turn": 1, "commitment": "ab" * 32}
    created["at"] = "2026-01-01T00:00:00+00:00"
    deep = "[" * 100_000 + "]" * 100_000
    data = bare([json.dumps(created)], [{"path": "game.json", "text": deep}], seed="1", salt="2")
    code, lines = verify(save(data, tmp_path / "a.json"))
    assert code == 3, lines


# -- a game master who cheats and verify says everything agrees ------------------------------------


@pytest.mark.seconds
def test_an_order_without_a_signature_is_not_played_again_as_if_signed(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    """The game master journals orders without their signatures (or writes the orders
    themselves): verify replays them all, says `this archive holds no order yet`, exit 0."""
    _, data = finished
    forged = json.loads(json.dumps(data))
    first = None
    for number, text in enumerate(forged["journal"]):
        entry = json.loads(text)
        signatures = [p for p in entry.get("files") or {} if p.endswith(".yaml.sig")]
        for rel in signatures:
            del entry["files"][rel]
        if signatures:
            first = number if first is None else first
            forged["journal"][number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    forged["files"] = [f for f in forged["files"] if not f["path"].endswith(".yaml.sig")]
    assert first is not None
    forged["journal"] = rechain(forged["journal"], first)
    code, lines = verify(save(forged, tmp_path / "f.json"))
    assert code == 3, lines


@pytest.mark.seconds
def test_a_commitment_accepted_after_the_others_reveals_is_found(tmp_path: Path) -> None:
    """Carol (who runs the game) commits again once alice's and bob's reveals of turn 2 are in,
    and reveals that: the commitment phase was over, but verify says everything agrees."""
    gamedir = demo_game(tmp_path, "sultan", 3, 6, sealing="commit-reveal", nmr="wait")
    data = archive(gamedir, tmp_path / "full.json")
    kinds = [
        [(o["player"], o["turn"], o.get("kind")) for o in json.loads(t).get("orders") or []]
        for t in data["journal"]
    ]
    opened = next(
        i for i, t in enumerate(data["journal"]) if '"reveal": {' in t and ', "turn": 2' in t
    )
    # the demo submits a turn's reveals in one step: forged below into alice's and bob's, then
    # carol's commitment and reveal made after them
    carol = kinds.index([("alice", 2, None), ("bob", 2, None), ("carol", 2, None)])
    assert opened < carol
    digester = Digester(file_key(data["seed"], data["salt"]))
    held = {f["path"]: f for f in data["files"]}
    old = held["turns/0002/orders/carol-2.yaml"]["text"]
    reveal = re.sub(r"salt: [0-9a-f]+", "salt: " + "ab" * 32, old).encode()
    promise = sealing.commitment_file({"id": data["id"], "player": "carol", "turn": 2}, reveal)
    key = gamedir.parent / "keys" / "carol"
    made: dict[str, bytes] = {}
    for name, body in (("carol-3.yaml", promise), ("carol-4.yaml", reveal)):
        (tmp_path / name).write_bytes(body)
        made[f"turns/0002/orders/{name}"] = body
        made[f"turns/0002/orders/{name}.sig"] = ssh_sign(key, tmp_path / name).read_bytes()
    at = json.loads(data["journal"][carol])["at"]

    def line(name: str, kind: str | None) -> str:
        rel = f"turns/0002/orders/{name}"
        order = {"at": at, "digest": digester.hidden(made[rel]), "file": name, "player": "carol"}
        order.update(replaces=True, turn=2, **({"kind": kind} if kind else {}))
        named = {rel: order["digest"], rel + ".sig": digester.hidden(made[rel + ".sig"])}
        entry = {"at": at, "files": named, "orders": [order], "prev": "", "type": "submitted"}
        return json.dumps(entry, sort_keys=True)

    forged = json.loads(json.dumps(data))
    journal = forged["journal"]
    revealed = json.loads(journal[carol])
    revealed["orders"] = [o for o in revealed["orders"] if o["player"] != "carol"]
    revealed["files"] = {k: v for k, v in revealed["files"].items() if "/carol-2." not in k}
    journal[carol : carol + 1] = [
        json.dumps(revealed, sort_keys=True),
        line("carol-3.yaml", "commitment"),
        line("carol-4.yaml", None),
    ]
    forged["journal"] = rechain(journal, carol)
    kept = [f for f in forged["files"] if not f["path"].startswith("turns/0002/orders/carol-2")]
    added = [{"path": rel, "text": body.decode()} for rel, body in made.items()]
    forged["files"] = sorted(kept + added, key=lambda f: f["path"])
    code, lines = verify(save(forged, tmp_path / "f.json"))
    assert code == 3, lines
    assert "carol-3.yaml" in lines[0] and "the reveal of turn 2 is open" in lines[0], lines


def test_a_public_archive_of_a_finished_game_cannot_claim_it_runs_to_keep_the_seed(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    """The game is over (its last public view says so, and even holds the seed), but the
    archive says `over: false` and leaves out the seed: verify says `the game ends before it is
    revealed` and exit 0, and never replays."""
    gamedir, _ = finished
    data = archive(gamedir, tmp_path / "public.json", "--public")
    assert data["over"]
    forged = {key: value for key, value in data.items() if key not in ("seed", "salt")}
    forged["over"] = False
    forged["files"] = [f for f in data["files"] if f["path"].endswith("views/public.json")]
    code, lines = verify(save(forged, tmp_path / "f.json"))
    assert code == 3, lines


# -- hidden information ----------------------------------------------------------------------------


def test_a_public_archive_holds_no_address(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    result = run("replace", table.gamedir, "--player", "bob", "--email", "bob2@private.example")
    assert result.exit_code == 0, result.output
    archive(table.gamedir, tmp_path / "public.json", "--public")
    text = (tmp_path / "public.json").read_text(encoding="utf-8")
    assert "bob2@private.example" not in text
    assert "bob@example.org" not in text


# -- wording ---------------------------------------------------------------------------------------


def test_verify_takes_the_head_as_a_report_shows_it(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    gamedir, data = finished
    report = run("report", gamedir, "--player", "alice", "--turn", "3").output
    shown = re.search(r"#[0-9a-f]{32}\b", report)
    assert shown is not None
    expected = hashlib.sha256(data["journal"][-1].encode() + b"\n").hexdigest()[:32]
    assert shown.group(0) == "#" + expected
    code, lines = verify(save(data, tmp_path / "a.json"), "--head", shown.group(0))
    assert code == 0, lines
