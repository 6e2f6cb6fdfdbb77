"""`verify` follows an open game's seats by the sign-up's own rules (docs/signup.md): no more
seats than the most, none for a join whose address never confirmed, under ``first-come`` each
confirmed join seated at once or turned away only when the game is full, and a start with at
least the fewest. Each forgery here is what a game master's changed program writes, so its
journal is whole and chained; the honest game beside it verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adjudicator.engine import signup
from adjudicator.engine.open_game import OpenGame
from tests.helpers import run
from tests.test_signup import OpenTable
from tests.test_verify_forgeries import rechain

pytestmark = pytest.mark.seconds


def verified(table: OpenTable, tmp_path: Path, name: str = "game.archive") -> tuple[int, str]:
    archive = tmp_path / name
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    return result.exit_code, result.output


def test_an_honest_sign_up_of_both_seatings_verifies(tmp_path: Path) -> None:
    first = OpenTable(tmp_path / "first", seats={"min": 2, "max": 3})
    for name in ("alice", "bob", "carol"):
        first.seat(name)
    assert first.status()["turn"] == 1
    assert verified(first, tmp_path)[0] == 0
    key = f"{first.keys['alice']}.pub"  # a seat that joined: asked about by its own key
    result = run("verify", tmp_path / "game.archive", "--player", "alice", "--key", key)
    assert result.exit_code == 0, result.output
    approve = OpenTable(
        tmp_path / "approve", seats={"min": 2, "max": 3}, signup={"seating": "approve"}
    )
    for name in ("alice", "bob"):
        approve.seat(name)
        assert run("seat", approve.gamedir, name).exit_code == 0
    assert run("start", approve.gamedir).exit_code == 0
    assert verified(approve, tmp_path, "approve.archive")[0] == 0


def test_more_seats_than_the_most_are_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3}, signup={"seating": "approve"})
    for name in ("alice", "bob", "carol", "dave"):
        table.seat(name)  # each join taken and confirmed while seats are open
    monkeypatch.setattr(signup, "_most", lambda handle: 9)  # the game master's own program
    for name in ("alice", "bob", "carol", "dave"):
        assert run("seat", table.gamedir, name).exit_code == 0
    assert run("start", table.gamedir).exit_code == 0
    code, out = verified(table, tmp_path)
    assert code == 3 and "seats 4 players; the game has at most 3" in out, out


def test_a_seat_for_a_join_never_confirmed_is_caught(tmp_path: Path) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3}, signup={"seating": "approve"})
    for name in ("alice", "bob"):
        table.seat(name)
        assert run("seat", table.gamedir, name).exit_code == 0
    assert run("start", table.gamedir).exit_code == 0
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    data = json.loads(archive.read_text())
    lines = [json.loads(x) for x in data["journal"]]
    at = next(i for i, x in enumerate(lines) if "bob" in (x.get("confirmed") or []))
    data["journal"][at] = data["journal"][at].replace('"confirmed": ["bob"]', '"confirmed": []')
    assert data["journal"][at] != json.dumps(lines[at], sort_keys=True, ensure_ascii=False)
    data["journal"] = rechain(data["journal"], at)
    archive.write_text(json.dumps(data))
    result = run("verify", archive)
    assert result.exit_code == 3, result.output
    assert "seats bob, whose address never confirmed the join" in result.output, result.output


def _cheating_confirm(monkeypatch: pytest.MonkeyPatch, victim: str, seat_taken: bool) -> None:
    """``confirm`` as a game master may change it: ``victim``'s confirmation is taken, then
    ``victim`` is turned away as if the game were full (``seat_taken``: left waiting)."""
    honest = signup.confirm

    def confirm(handle: OpenGame, name: str) -> None:
        if name != victim:
            honest(handle, name)
            return
        handle.seating.setdefault("confirmed", []).append(name)
        if not seat_taken:
            handle.seating.setdefault("turned_away", []).append({"name": name, "why": "full"})

    monkeypatch.setattr(signup, "confirm", confirm)


@pytest.mark.parametrize(
    ("left_waiting", "said"),
    [
        (False, "turns alice away as the game is full, but 0 of 3 seats are taken"),
        (True, "takes alice's confirmation but neither seats alice nor turns alice away"),
    ],
)
def test_first_come_seats_go_to_the_first_who_confirm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, left_waiting: bool, said: str
) -> None:
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    _cheating_confirm(monkeypatch, "alice", left_waiting)
    for name in ("alice", "bob", "carol", "dave"):
        table.seat(name)
    assert table.status()["turn"] == 1
    code, out = verified(table, tmp_path)
    assert code == 3 and said in out, out


def test_a_start_with_fewer_than_the_fewest_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = OpenTable(tmp_path, seats={"min": 3, "max": 4})
    for name in ("alice", "bob"):
        table.seat(name)
    honest = signup._open_for_gm

    def lax(root: Path) -> Any:
        handle = honest(root)
        handle.meta["signup"] = {**handle.meta["signup"], "seats": {"min": 2, "max": 4}}
        return handle

    monkeypatch.setattr(signup, "_open_for_gm", lax)
    assert run("start", table.gamedir).exit_code == 0
    code, out = verified(table, tmp_path)
    assert code == 3 and "starts the game with 2 players; it starts with 3 or more" in out, out


def test_a_game_json_that_deals_otherwise_than_the_header_says_is_caught(tmp_path: Path) -> None:
    """``game.json`` rewritten at the start without ``shares: ask`` (its digest in the first
    line made anew), while the header every archive holds keeps it: the game deals from the
    game master's seed alone, ignoring the joins' shares. The full archive, which holds
    ``game.json``, must say that it and the header differ."""
    from adjudicator.rules import digests

    table = OpenTable(tmp_path, seats=2)
    meta = json.loads((table.gamedir / "game.json").read_text())
    assert meta.pop("shares") == "ask"
    data = (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode()
    (table.gamedir / "game.json").write_bytes(data)
    [first] = [json.loads(x) for x in (table.gamedir / "log.jsonl").read_text().splitlines()]
    first["files"]["game.json"] = digests.Digester.of(meta).data("game.json", data)
    (table.gamedir / "log.jsonl").write_text(json.dumps(first, sort_keys=True) + "\n")
    for name in ("alice", "bob"):
        table.seat(name)
    assert table.status()["turn"] == 1
    code, out = verified(table, tmp_path)
    assert code == 3 and "game.json" in out, out


def _lax_joins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The join intake as a game master may change it: every join taken (a taken name, the
    same signed join again, a game started), and a leave checked against the last join of
    its name."""
    honest_key = signup._key_of

    def key_of(handle: OpenGame, name: str) -> str:
        joining = handle.joining()
        return str(joining[name]["key"]) if name in joining else honest_key(handle, name)

    monkeypatch.setattr(signup, "join_problems", lambda handle, body: [])
    monkeypatch.setattr(signup, "_taken_digests", lambda handle: set())
    monkeypatch.setattr(signup, "_not_open", lambda handle: None)
    monkeypatch.setattr(signup, "_key_of", key_of)


def test_a_seat_taken_away_by_a_join_of_its_name_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the start, the game master takes a join of a seated player's name carrying a key
    of his own, then a leave signed by it: the seat is gone with no leave its player signed."""
    from tests.ssh import ssh_sign

    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    table.seat("alice")
    table.seat("bob")
    _lax_joins(monkeypatch)
    forged = table.join_file("alice", key_of="erin")  # erin's key stands for the game master's
    assert run("submit", table.gamedir, forged).exit_code == 0
    leave = table.write(
        "leave-alice.yaml", run("join", "bazaar", "--name", "alice", "--leave").output
    )
    ssh_sign(table.keys["erin"], leave)
    assert run("submit", table.gamedir, leave).exit_code == 0
    monkeypatch.undo()
    table.seat("carol")
    table.seat("dave")
    assert table.status()["turn"] == 1
    code, out = verified(table, tmp_path)
    assert code == 3 and "takes a join of alice, a name taken in the game" in out, out


def test_a_join_taken_again_to_move_its_seat_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player's own signed join taken a second time puts their seat after the others'
    (the start orders seats by each name's last join), and so changes the deal: any archive
    shows the same signed join taken twice."""
    table = OpenTable(tmp_path, seats=3)
    joined = table.join_file("alice")
    table.mail(joined, "alice@example.org")
    table.confirm("alice")
    table.seat("bob")
    _lax_joins(monkeypatch)
    assert run("submit", table.gamedir, joined).exit_code == 0
    monkeypatch.undo()
    table.seat("carol")
    assert json.loads(run("log", table.gamedir, "--json").output)["players"][-1] == "carol"
    for flags in ([], ["--public"]):
        archive = tmp_path / f"a{len(flags)}.json"
        assert run("archive", table.gamedir, *flags, "-o", archive).exit_code == 0
        result = run("verify", archive)
        assert result.exit_code == 3, result.output
        assert "takes alice's join again" in result.output, result.output


def test_seats_changed_after_the_start_are_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the start, a join and a leave of a seated player's name would give the seat
    another key with no ``replaced`` line: the game master's orders would play for it."""
    table = OpenTable(tmp_path, seats=2)
    table.seat("alice")
    table.seat("bob")
    assert table.status()["turn"] == 1
    _lax_joins(monkeypatch)
    forged = table.join_file("alice", key_of="erin")
    assert run("submit", table.gamedir, forged).exit_code == 0
    monkeypatch.undo()
    code, out = verified(table, tmp_path)
    assert code == 3 and "changes the seats after the game started" in out, out


def test_a_leave_signed_by_a_key_the_seat_was_given_in_the_sign_up_verifies(
    tmp_path: Path,
) -> None:
    """``replace --key`` during the sign-up gives a seat a new key; a leave is signed by the key
    the seat holds then, not by the one its join carried."""
    from tests.ssh import make_key

    table = OpenTable(tmp_path, seats={"min": 2, "max": 4})
    table.seat("alice")
    table.seat("bob")
    key = make_key(tmp_path / "new", "alice")
    assert (
        run("replace", table.gamedir, "--player", "alice", "--key-file", f"{key}.pub").exit_code
        == 0
    )
    table.keys["alice"] = key
    assert "alice - accepted" in table.mail(table.leave_file("alice"), "alice@example.org")
    table.seat("carol")
    assert run("start", table.gamedir).exit_code == 0
    code, out = verified(table, tmp_path)
    assert code == 0, out


def test_a_join_taken_again_under_another_digest_is_caught(tmp_path: Path) -> None:
    """The digest a line gives a join is its signature's: the same signed join taken again
    under a made-up digest (a player who left, seated again with no join of theirs) is caught
    where the full archive holds the join."""
    import hashlib

    table = OpenTable(tmp_path, seats={"min": 2, "max": 3}, signup={"seating": "approve"})
    table.seat("alice")
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    data = json.loads(archive.read_text())
    at = next(i for i, x in enumerate(data["journal"]) if json.loads(x).get("joins"))
    entry = json.loads(data["journal"][at])
    entry["joins"][0]["digest"] = hashlib.sha256(b"made up").hexdigest()
    data["journal"][at] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(data["journal"], at)
    archive.write_text(json.dumps(data))
    result = run("verify", archive)
    assert result.exit_code == 3, result.output
    assert "seats/joins/0001-alice.json" in result.output, result.output
    assert "otherwise than the journal says" in result.output, result.output


def test_first_come_turns_no_confirmed_join_away_for_another_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``first-come`` a confirmed join is seated at once (or turned away, the game full):
    a game master's program that turns one away with words of its own is caught."""
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    honest = signup.confirm

    def confirm(handle: OpenGame, name: str) -> None:
        if name != "alice":
            honest(handle, name)
            return
        handle.seating.setdefault("confirmed", []).append(name)
        turned = {"name": name, "why": "game-master", "words": "not you"}
        handle.seating.setdefault("turned_away", []).append(turned)

    monkeypatch.setattr(signup, "confirm", confirm)
    for name in ("alice", "bob", "carol", "dave"):
        table.seat(name)
    code, out = verified(table, tmp_path)
    assert code == 3 and "turns alice away, whose confirmation" in out, out


def test_a_leave_that_is_some_other_file_its_player_signed_is_caught(tmp_path: Path) -> None:
    """verify checked only that a leave was signed by the seat's key, not what it said: a game
    master could take a seat away with any file its player ever signed with that key (here a
    share notice for another game, a key reused as ssh-keygen's default suggests)."""
    from adjudicator.store import clock, steps
    from tests.ssh import ssh_sign

    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    table.seat("alice")
    table.seat("bob")
    other = table.write(
        "other.yaml", 'id: cairo-2026\nplayer: alice\nshare: "00112233445566778899aabbccddeeff"\n'
    )
    signature = ssh_sign(table.keys["alice"], other).read_text()
    with steps.step(table.gamedir, "mail") as running:
        handle = OpenGame(table.gamedir)
        rel = f"seats/joins/{signup._next_number(handle):04d}-alice-leave.json"
        handle.dir.write_json(rel, {"leave": other.read_text(), "signature": signature})
        digest = handle.dir.digester().hidden(signature.encode())
        leave = {"name": "alice", "digest": digest, "file": rel, "at": clock.stamp()}
        handle.seating = {"leaves": [leave], "left": ["alice"]}
        running.commit("mail", message_id="forged", **signup.seating_fields(handle))
    table.seat("carol")
    table.seat("dave")
    code, out = verified(table, tmp_path)
    assert code == 3, out
    assert "the leave does not say what journal line" in out


def test_a_join_signed_for_another_game_is_caught(tmp_path: Path) -> None:
    """The intake refuses a join signed for another game; a game master who took one anyway
    (carol joined souk, and finds herself seated in bazaar) passed verify."""
    import yaml

    from adjudicator.store import steps
    from tests.ssh import ssh_sign

    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    table.seat("alice")
    data = yaml.safe_load(table.join_file("carol").read_text())
    data["id"] = "souk"
    souk = table.write("souk-carol.yaml", yaml.safe_dump(data))
    signature = ssh_sign(table.keys["carol"], souk).read_bytes()
    with steps.step(table.gamedir, "mail") as running:
        handle = OpenGame(table.gamedir)
        digest = handle.dir.digester().hidden(signature)
        signup._take(handle, data["join"], souk.read_bytes(), signature, digest)
        running.commit("mail", message_id="forged", **signup.seating_fields(handle))
    table.confirm("carol")
    table.seat("bob")
    assert table.status()["turn"] == 1
    code, out = verified(table, tmp_path)
    assert code == 3, out
    assert "the join does not say what journal line" in out
