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
