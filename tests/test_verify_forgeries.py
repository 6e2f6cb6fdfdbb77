"""Forgeries a game master can build from the files in their hands, each caught by `verify`."""

from __future__ import annotations

import base64
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
    return demo.run("sultans_court", 4, 8, tmp / "d", lambda _l: None, options=options, site=False)


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


def test_an_order_journaled_after_its_player_resigned_is_refused_as_the_engine_refuses_it(
    tmp_path: Path,
) -> None:
    """`verify` judges every order the journal took with the engine's own intake, as the game
    stood at that line: a forger who moves a player's order after the line of their resignation
    (the engine refuses an order from a resigned seat) and chains the journal again is named,
    with the engine's own reason."""
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    table.play_turn()
    alice = table.signed("alice", table.legal("alice"), "t2-alice.yaml")
    assert run("submit", table.gamedir, alice).exit_code == 0
    assert run("resign", table.gamedir, "--player", "alice").exit_code == 0
    others = [table.signed(p, table.legal(p), f"t2-{p}.yaml") for p in ("bob", "carol")]
    assert run("submit", table.gamedir, *others).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    data = archived(table.gamedir, tmp_path / "a.json")
    assert verified(data, tmp_path / "ok.json")[0] == 0
    lines = data["journal"]
    kinds = [json.loads(t)["type"] for t in lines]
    resigned = kinds.index("resigned")
    assert kinds[resigned - 1] == "submitted"
    forged = copy.deepcopy(data)
    swapped = [*lines[: resigned - 1], lines[resigned], lines[resigned - 1], *lines[resigned + 1 :]]
    forged["journal"] = rechain(swapped, resigned - 1)
    code, output = verified(forged, tmp_path / "forged.json")
    assert code == 3, output
    assert "refuses it as the game stood then: alice has resigned from game cairo-2026" in output


def test_an_order_the_engine_refused_put_into_the_journal_is_named_with_the_games_reason(
    tmp_path: Path,
) -> None:
    """A player's order that the engine refused (a card not in their hand) is still a file they
    signed; a game master holding it from the mail swaps it in for the order they did take,
    names its digest in the journal and chains it again. `verify` judges it as the engine did,
    and says why in the game's own words."""
    import base64

    from adjudicator.rules.digests import Digester
    from tests.helpers import Table
    from tests.ssh import ssh_sign

    table = Table(tmp_path, players=3)
    table.play_turn()  # the start player returns a jewel; then everyone bids
    player = next(iter(table.status()["owed"]))
    body = table.legal(player)
    hand = table.view(player)["hand"]
    card = next(c for c in range(1, 30) if c not in hand)
    bids = body.get("bids") or [body["bid"]]
    bids[0]["card"] = card
    table.play_turn()
    data = archived(table.gamedir, tmp_path / "a.json")
    assert verified(data, tmp_path / "ok.json")[0] == 0
    bad = table.write("bad.yaml", table.order_text(player, body, turn=2))
    sig = ssh_sign(table.keys[player], bad).read_bytes()
    digester = Digester.of(json.loads((table.gamedir / "game.json").read_text()))
    forged = copy.deepcopy(data)
    number, entry = next(
        (i, json.loads(t))
        for i, t in enumerate(forged["journal"])
        if any(o["player"] == player and o["turn"] == 2 for o in json.loads(t).get("orders") or [])
    )
    order = next(o for o in entry["orders"] if o["player"] == player)
    rel = f"turns/0002/orders/{order['file']}"
    for item in forged["files"]:
        if item["path"] in (rel, rel + ".sig"):
            content = bad.read_bytes() if item["path"] == rel else sig
            item.pop("text", None)
            item["base64"] = base64.b64encode(content).decode()
    entry["files"][rel] = digester.data(rel, bad.read_bytes())
    entry["files"][rel + ".sig"] = digester.data(rel + ".sig", sig)
    order["digest"] = digester.hidden(bad.read_bytes())
    forged["journal"][number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    forged["journal"] = rechain(forged["journal"], number)
    code, output = verified(forged, tmp_path / "forged.json")
    assert code == 3, output
    first = output.splitlines()[0]
    assert first.startswith(f"Error: turn 2: {rel}: the journal says it was taken, but the "), first
    assert f"{card}" in first and "hand" in first, first


def test_a_vote_journaled_in_the_line_of_an_order_is_named(tmp_path: Path) -> None:
    """A vote travels alone in its step (a journal line holding a vote and an order would name
    the voter); a forger who moves a vote into the line of an order and chains the journal
    again is named with the engine's reason."""
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    table.play_turn()
    status = table.status()
    orders = [table.signed(p, table.legal(p), f"t2-{p}.yaml") for p in status["owed"]]
    assert run("submit", table.gamedir, *orders).exit_code == 0
    ballot = table.notice("alice", "vote: draw\n", "vote.yaml")
    assert run("submit", table.gamedir, ballot).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    data = archived(table.gamedir, tmp_path / "a.json")
    assert verified(data, tmp_path / "ok.json")[0] == 0
    lines = [json.loads(t) for t in data["journal"]]
    at = next(i for i, e in enumerate(lines) if e.get("notices"))
    voted, before = lines[at], lines[at - 1]
    assert before.get("orders") and before["type"] == "submitted"
    before["notices"] = voted["notices"]
    before["files"] = {**before["files"], **voted["files"]}
    kept = [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in lines]
    forged = copy.deepcopy(data)
    forged["journal"] = rechain(kept[:at] + kept[at + 1 :], at - 1)
    code, output = verified(forged, tmp_path / "forged.json")
    assert code == 3, output
    assert "refuses it as the game stood then: a vote" in output, output


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E999"])
def test_a_line_holding_a_number_no_float_holds_is_no_journal_line(
    game: Path, tmp_path: Path, number: str
) -> None:
    """Python's json reads a number too large for a float as infinity, which no writer of
    ours makes: a forger's line holding one is named, not followed into a traceback."""
    data = archived(game, tmp_path / "a.json")
    lines = data["journal"]
    prev = hashlib.sha256(lines[-1].encode() + b"\n").hexdigest()
    at = json.loads(lines[-1])["at"]
    lines.append(f'{{"at": "{at}", "prev": "{prev}", "turn": {number}, "type": "rolled-back"}}')
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert f"line {len(lines)} is not a journal line" in output


def _file(data: dict[str, Any], rel: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in data["files"] if f["path"] == rel)
    return found


def _appended(data: dict[str, Any], line: dict[str, Any]) -> None:
    """``line`` appended to the archive's journal, chained, as a forger would."""
    lines = data["journal"]
    at = json.loads(lines[-1])["at"]
    lines.append(json.dumps({"at": at, "prev": "", **line}, sort_keys=True))
    data["journal"] = rechain(lines, len(lines) - 1)


@pytest.mark.parametrize("kind", ["sent", "queued", "recovered", "adopted"])
def test_a_result_named_anew_by_a_later_line_is_named(
    game: Path, tmp_path: Path, kind: str
) -> None:
    """The last turn's public view rewritten (another winner) and named anew, with its new
    digest, by a line appended after the game's end: what the archive holds at that path is
    no longer what the replay made, which verify says, even with the head a player holds."""
    data = archived(game, tmp_path / "a.json")
    head = hashlib.sha256(data["journal"][-1].encode() + b"\n").hexdigest()
    last = max(f["path"] for f in data["files"] if f["path"].endswith("/views/public.json"))
    held = _file(data, last)
    view = json.loads(held["text"])
    view["forged"] = True
    held["text"] = json.dumps(view, indent=2) + "\n"
    digest = hashlib.sha256(held["text"].encode()).hexdigest()
    _appended(data, {"type": kind, "files": {last: digest}})
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = run("verify", path, "--head", head)
    assert result.exit_code == 3, result.output
    assert last in result.output and "need not be what the replay made" in result.output


def test_results_moved_onto_one_another_are_named(game: Path, tmp_path: Path) -> None:
    """Two players' last views swapped by the moves of an appended line: each file keeps its
    digest, so only what the replay made at each path tells them apart."""
    data = archived(game, tmp_path / "a.json")
    last = max(f["path"] for f in data["files"] if f["path"].endswith("/views/public.json"))
    folder = last.rsplit("/", 1)[0]
    first, second = sorted(
        f["path"]
        for f in data["files"]
        if f["path"].startswith(folder + "/") and not f["path"].endswith(("gm.json", "public.json"))
    )[:2]
    swap = f"{folder}/swapping.json"
    for source, target in ((first, swap), (second, first), (swap, second)):
        _appended(data, {"type": "sent", "moved": {source: target}})
    one, other = _file(data, first), _file(data, second)
    one["path"], other["path"] = second, first
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert first in output and "the replay made" in output, output


@pytest.mark.parametrize(
    "rel",
    [
        "turns/0002/orders/alice-9.yaml",
        "notices/press/alice-9.yaml.sig",
        "notices/absence/alice-9.yaml",
        "seats/joins/0009-alice.json",
    ],
)
def test_a_signed_file_no_line_took_is_named(game: Path, tmp_path: Path, rel: str) -> None:
    """An order, notice or join put where the files taken from players are kept, by a line
    that takes none: no signature is checked of a file no line took, so it must not stand
    there as if taken."""
    data = archived(game, tmp_path / "a.json")
    text = "id: x\nplayer: alice\nturn: 2\n"
    data["files"].append({"path": rel, "text": text})
    _appended(data, {"type": "sent", "files": {rel: hashlib.sha256(text.encode()).hexdigest()}})
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert rel in output and "but takes no such file" in output, output


def test_a_resolution_named_anew_is_named_not_sent_to_doctor(game: Path, tmp_path: Path) -> None:
    """A hidden file (a turn's resolution, by its keyed digest) rewritten and named anew by a
    line appended later: the replay, reading the rewritten file where the turn's line named
    another, cannot follow the journal, and verify says which line named it anew (exit 3), not
    the game's own advice to run doctor (exit 4)."""
    data = archived(game, tmp_path / "a.json")
    rel = "turns/0001/resolution.json"
    resolution = json.loads(_file(data, rel)["text"])
    resolution["forged"] = True
    code, output = _named_anew(data, rel, json.dumps(resolution, indent=2) + "\n", tmp_path)
    assert code == 3, output
    assert rel in output and "need not be what the replay made" in output, output


def _named_anew(data: dict[str, Any], rel: str, text: str, tmp_path: Path) -> tuple[int, str]:
    """What verify says of the archive ``data`` with ``rel`` rewritten to ``text`` and named
    anew, by its keyed digest, by a line appended after the others."""
    from adjudicator.rules import digests

    _file(data, rel)["text"] = text
    digester = digests.Digester(digests.file_key(data["seed"], data["salt"]))
    _appended(data, {"type": "sent", "files": {rel: digester.data(rel, text.encode())}})
    return verified(data, tmp_path / "forged.json")


def _append_to_game(gamedir: Path, line: dict[str, Any]) -> None:
    """``line`` appended to the game's own journal, chained, as a forger at the game's
    folder would, between two of the game's commands (its moves made in the order given)."""
    log = gamedir / "log.jsonl"
    last = log.read_bytes().splitlines()[-1] + b"\n"
    at = json.loads(last)["at"]
    entry = {"at": at, "prev": hashlib.sha256(last).hexdigest(), **line}
    with log.open("a", encoding="utf-8") as journal:
        journal.write(json.dumps(entry) + "\n")


def test_an_order_swapped_after_it_was_taken_is_named(tmp_path: Path) -> None:
    """A game master moves a signed order aside once it was taken and puts another in its
    place before the turn is played: the game's own commands play the other, whose signature
    no one checks. The line that moved them is named, though every adjudication replays."""
    from adjudicator.rules import digests
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    owed = table.status()["owed"]
    signed = [table.signed(p, table.legal(p), f"t1-{p}.yaml") for p in owed]
    assert run("submit", table.gamedir, *signed).exit_code == 0
    last = json.loads((table.gamedir / "log.jsonl").read_text().splitlines()[-1])
    rel = f"turns/0001/orders/{last['orders'][0]['file']}"
    body = (table.gamedir / rel).read_text()
    drawn = table.view(last["orders"][0]["player"])["drawn"]
    forged = body.split("return:")[0] + f"return: {next(j for j in drawn if j not in body)}\n"
    digester = digests.Digester.of(json.loads((table.gamedir / "game.json").read_text()))
    spare = "discarded/forged.tmp"
    (table.gamedir / "discarded").mkdir()
    (table.gamedir / spare).write_text(forged)
    (table.gamedir / rel).rename(table.gamedir / f"{rel}.taken")
    (table.gamedir / spare).rename(table.gamedir / rel)
    moved = {rel: f"{rel}.taken", spare: rel}
    _append_to_game(
        table.gamedir,
        {"type": "queued", "turns": [], "files": {spare: digester.data(spare, forged.encode())}}
        | {"moved": moved},
    )
    assert run("adjudicate", table.gamedir).exit_code == 0
    while not table.status()["over"]:
        table.play_turn()
    data = archived(table.gamedir, tmp_path / "a.json")
    code, output = verified(data, tmp_path / "played.json")
    assert code == 3, output
    assert rel in output and "names it anew or moves it" in output, output


def test_a_rollback_moves_only_the_turn_it_rolls_back(game: Path, tmp_path: Path) -> None:
    """A rollback of the last turn played (here 2) moves that turn's resolution and the next
    turn's files aside: one that also moves an earlier turn's view is named."""
    data = archived(game, tmp_path / "a.json")
    assert json.loads(data["journal"][-1])["turn"] == 2
    earlier = "turns/0002/views/public.json"
    aside = "turns/0002.superseded-1/views/public.json"
    _file(data, earlier)["path"] = aside
    _appended(data, {"type": "rolled-back", "turn": 2, "superseded": 1, "moved": {earlier: aside}})
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert earlier in output and "names it anew or moves it" in output, output


@pytest.mark.parametrize("addresses", [5, None, ["seats/replaced-0001.json"], "../game.json"])
def test_a_replaced_line_whose_addresses_is_no_path_is_named(
    game: Path, tmp_path: Path, addresses: Any
) -> None:
    """The file of a ``replaced`` line's addresses, written as no path the program writes: a
    finding, not a traceback (exit 1)."""
    data = archived(game, tmp_path / "a.json")
    first = json.loads(data["journal"][0])
    seat = first["public"]["players"][0]
    line = {"at": first["at"], "prev": "", "type": "replaced", "turn": 1, "player": seat["name"]}
    line |= {"key": seat["key"], "was_key": seat["key"], "addresses": addresses}
    data["journal"].insert(1, json.dumps(line, sort_keys=True))
    data["journal"] = rechain(data["journal"], 1)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert "line 2" in output or "cannot be followed" in output, output


@pytest.mark.parametrize("kind", ["replaced", "resigned", "extended", "paused", "resumed"])
def test_a_game_masters_line_after_the_end_is_named(game: Path, tmp_path: Path, kind: str) -> None:
    """The game master's commands (but a rollback) refuse a game that is over: a line of
    theirs appended after the end (a seat resigned or given another key once the game was
    decided, which the record would then show) is none the program writes."""
    data = archived(game, tmp_path / "a.json")
    turn = json.loads(data["journal"][-1])["turn"]
    seat = json.loads(data["journal"][0])["public"]["players"][0]
    line = {
        "replaced": {"player": seat["name"], "key": seat["key"], "was_key": seat["key"]}
        | {"resigned_before": False, "email": "x@example.org", "was_email": "x@example.org"},
        "resigned": {"player": seat["name"]},
        "extended": {"deadline": "2030-01-01T00:00:00Z", "was": None},
        "paused": {},
        "resumed": {"deadline": None},
    }[kind]
    _appended(data, {"type": kind, "turn": turn, **line})
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    number = len(data["journal"])
    assert f"line {number} ({kind}) comes after the game's end" in output, output


@pytest.mark.parametrize("line", ["created again", "dealt"])
def test_a_line_that_makes_or_deals_the_game_again_is_named(
    game: Path, tmp_path: Path, line: str
) -> None:
    """A second ``created`` line, or a deal in a game that never waited for shares, would
    make a finished game look as if it had begun again."""
    data = archived(game, tmp_path / "a.json")
    created = json.loads(data["journal"][0])
    added = {k: v for k, v in created.items() if k not in ("at", "prev", "files")}
    dealt = {"type": "queued", "dealt": {"turn": 1, "deadline": None}}
    _appended(data, added if line == "created again" else dealt)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert f"journal line {len(data['journal'])} makes or deals the game again" in output, output


def test_press_journaled_in_another_turn_is_named(tmp_path: Path) -> None:
    """Press is listed by the turn its line says it was sent in: a journal that moves it to
    another turn says otherwise than the engine that took it."""
    from tests.helpers import Table

    table = Table(tmp_path, players=3, press="private")
    press = table.notice("bob", "press:\n  to: [alice]\n  text: hello\n", "press.yaml")
    assert run("press", table.gamedir, press).exit_code == 0
    while not table.status()["over"]:
        table.play_turn()
    data = archived(table.gamedir, tmp_path / "a.json")
    assert verified(data, tmp_path / "ok.json")[0] == 0
    lines = data["journal"]
    number = next(i for i, text in enumerate(lines) if json.loads(text).get("notices"))
    entry = json.loads(lines[number])
    entry["notices"][0]["turn"] = 3
    lines[number] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(lines, number)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert "takes it otherwise than the journal says" in output, output


@pytest.mark.parametrize(
    "path",
    ["./turns/0001/state.json", "turns//0001/state.json", "turns/0001/state.json/", "/game.json"],
)
def test_a_path_that_is_not_plain_is_refused(game: Path, tmp_path: Path, path: str) -> None:
    """A path a tool that unpacks the archive would read as another's (``./``, ``//``, a
    trailing or leading ``/``): the archive holding one, or a line naming one, is refused,
    so that no copy stands beside the file the journal names at its plain path."""
    data = archived(game, tmp_path / "a.json")
    held = {**_file(data, path.strip("/").replace("//", "/").removeprefix("./")), "path": path}
    code, output = verified({**data, "files": [*data["files"], held]}, tmp_path / "held.json")
    assert code == 3 and path in output and "not a plain path" in output, output
    digest = hashlib.sha256(held["text"].encode()).hexdigest()
    _appended(data, {"type": "sent", "files": {path: digest}})
    code, output = verified(data, tmp_path / "named.json")
    assert code == 3 and "names a path that is not a plain path" in output, output


@pytest.mark.parametrize(
    "change",
    [
        "a folder in its file",
        "its turn a string",
        "its turn a float",
        "in an adjudication",
        "its digest in capitals",
    ],
)
def test_an_order_journaled_otherwise_than_the_engine_takes_one_is_named(
    game: Path, tmp_path: Path, change: str
) -> None:
    """An order entry the engine never writes: a file name with a folder in it (the turn
    plays the file of that name at the turn's own folder), a turn that is no integer (filed
    apart from the turn's orders, so the seat plays its default), orders in the line of an
    adjudication (which takes none), or a digest spelt otherwise than in lowercase hex (the
    same signed order taken twice is told by its digest). Each is a line that does not fit its
    type."""
    data = archived(game, tmp_path / "a.json")
    lines = data["journal"]
    number, entry = next(
        (i, json.loads(t)) for i, t in enumerate(lines) if json.loads(t).get("orders")
    )
    order = entry["orders"][0]
    if change == "a folder in its file":
        order["file"] = f"x/{order['file']}"
    elif change == "its turn a string":
        order["turn"] = str(order["turn"])
    elif change == "its turn a float":
        order["turn"] = float(order["turn"])
    elif change == "its digest in capitals":  # the same signed bytes taken twice would not tell
        order["digest"] = order["digest"].upper()
    else:
        entry["type"] = "adjudicated"
        entry["turn"] = order["turn"]
    lines[number] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(lines, number)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert f"line {number + 1} does not fit its type" in output, output


@pytest.mark.parametrize("rel", ["turns/0002.superseded-7/views/public.json", "turns/0002/x.json"])
def test_a_file_under_a_turn_no_step_made_is_named(game: Path, tmp_path: Path, rel: str) -> None:
    """A turn's folder holds what its steps made and took, and a rollback's superseded copies:
    a copy of a rollback that never was, or any other file named there, is named."""
    data = archived(game, tmp_path / "a.json")
    text = _file(data, "turns/0002/views/public.json")["text"]
    data["files"].append({"path": rel, "text": text})
    _appended(data, {"type": "sent", "files": {rel: hashlib.sha256(text.encode()).hexdigest()}})
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert rel in output and "names it anew or moves it" in output, output


@pytest.mark.parametrize("rel", ["game.json", "setup.yaml"])
def test_the_game_as_made_named_anew_is_named(game: Path, tmp_path: Path, rel: str) -> None:
    """``game.json`` and ``setup.yaml`` are the game as ``new`` made it, named by the first
    line alone: one rewritten (another time zone, by which absences are judged) and named anew
    by a later line is named."""
    data = archived(game, tmp_path / "a.json")
    text = _file(data, rel)["text"]
    if rel == "game.json":
        meta = json.loads(text)
        meta["timezone"] = "Pacific/Kiritimati"
        text = json.dumps(meta, indent=2) + "\n"
    code, output = _named_anew(data, rel, text.replace("\n", "\n ", 1), tmp_path)
    assert code == 3, output
    assert rel in output and "names it anew or moves it" in output, output


def test_a_mail_as_sent_named_anew_is_named(tmp_path: Path) -> None:
    """A mail is written once and moved on its way out: one rewritten after it was sent (a
    report that said something else) and named anew by a later line is named."""
    from adjudicator.rules import digests
    from tests.helpers import Table

    table = Table(tmp_path, players=3)
    config = tmp_path / "no-mail.toml"
    config.write_text("")
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    while not table.status()["over"]:
        table.play_turn()
    data = archived(table.gamedir, tmp_path / "a.json")
    assert verified(data, tmp_path / "ok.json")[0] == 0
    held = next(f for f in data["files"] if f["path"].startswith("mail/sent/"))
    rewritten = base64.b64decode(held["base64"]) if "base64" in held else held["text"].encode()
    rewritten = rewritten.replace(b"\n", b"\nX-Forged: yes\n", 1)
    held.pop("text", None)
    held["base64"] = base64.b64encode(rewritten).decode()
    digester = digests.Digester(digests.file_key(data["seed"], data["salt"]))
    named = {held["path"]: digester.data(held["path"], rewritten)}
    _appended(data, {"type": "sent", "files": named})
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert held["path"] in output and "names it anew or moves it" in output, output


def test_a_seat_defaulted_where_the_game_waits_for_every_order_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``nmr: wait`` a turn is not played while an order is missing, even with
    ``--default-missing``: a game master's program that plays the seat's default order (here
    by taking the turn for one rolled back, whose orders are fixed) could drop any order."""
    from adjudicator.engine.open_game import OpenGame
    from tests.helpers import Table

    table = Table(tmp_path, players=3, nmr="wait")
    table.play_turn()
    owed = [p for p in table.status()["owed"] if p != "carol"]
    sent = [table.signed(p, table.legal(p), f"t2-{p}.yaml") for p in owed]
    assert run("submit", table.gamedir, *sent).exit_code == 0
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 4
    honest = OpenGame.clock

    def fixed(self: OpenGame) -> Any:
        times = honest(self).copy()
        times.rolled_back = True
        return times

    monkeypatch.setattr(OpenGame, "clock", fixed)
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    monkeypatch.undo()
    data = archived(table.gamedir, tmp_path / "a.json")
    code, output = verified(data, tmp_path / "played.json")
    assert code == 3, output
    assert "plays a default order for carol, whose order this game waits for" in output, output


def test_a_rollback_of_a_turn_never_played_is_named(game: Path, tmp_path: Path) -> None:
    """A rollback undoes the last adjudication: one of the turn that is open, just before it
    is played, would fix its orders (a turn rolled back plays a missing order's default) with
    nothing undone."""
    data = archived(game, tmp_path / "a.json")
    at = next(
        i
        for i, text in enumerate(data["journal"])
        if json.loads(text)["type"] == "adjudicated" and json.loads(text)["turn"] == 2
    )
    first = json.loads(data["journal"][0])
    line = {"at": first["at"], "prev": "", "type": "rolled-back", "turn": 2, "superseded": 1}
    data["journal"].insert(at, json.dumps(line, sort_keys=True))
    data["journal"] = rechain(data["journal"], at)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert f"line {at + 1}" in output and "rolls back turn 2" in output, output


@pytest.mark.parametrize("kind", ["press", "absence", "bogus"])
@pytest.mark.parametrize("public", [False, True])
def test_a_notice_a_line_takes_without_its_file_is_named(
    game: Path, tmp_path: Path, kind: str, public: bool
) -> None:
    """A line that says it took a notice stores its file, and names it with its digest: a
    notice listed with no file (of any kind, even none the game knows) is no notice a player
    sent, though the record would list it (press by the journal's notices)."""
    data = archived(game, tmp_path / "a.json", *(["--public"] if public else []))
    at = next(i for i, text in enumerate(data["journal"]) if json.loads(text).get("orders"))
    entry = json.loads(data["journal"][at])
    turn = entry["orders"][0]["turn"]
    notice = {"kind": kind, "file": "0009.yaml", "digest": "ab" * 32, "turn": turn}
    entry["notices"] = [{**notice, "at": entry["at"]}]
    data["journal"][at] = json.dumps(entry, sort_keys=True)
    data["journal"] = rechain(data["journal"], at)
    code, output = verified(data, tmp_path / "forged.json")
    assert code == 3, output
    assert f"notices/{kind}/0009.yaml" in output, output
    assert f"journal line {at + 1} takes a notice whose file it does not name" in output, output


def test_a_reveal_opened_without_a_player_who_committed_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game master's program that opens a turn's reveal saying bob made no commitment,
    though he did: bob may then not reveal, and his seat plays the default order. The line
    that opened the reveal says otherwise than the commitments taken open it."""
    from adjudicator.engine import absences, adjudication
    from tests.test_commit_reveal import committed, sealed_table, submit

    table = sealed_table(tmp_path)
    drawn = table.view("carol")["drawn"]
    order, promise = committed(table, "carol", {"return": drawn[0]}, "carol.yaml")
    assert submit(table, promise)[0] == 0 and submit(table, order)[0] == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    for player in ("alice", "bob"):
        _, promise = committed(table, player, table.legal(player), f"{player}.yaml")
        assert submit(table, promise)[0] == 0
    honest = absences.reveal_of

    def reveal_of(handle: Any, turn: int, without: list[str]) -> dict[str, Any]:
        return honest(handle, turn, sorted({*without, "bob"}))

    monkeypatch.setattr(adjudication.absences, "reveal_of", reveal_of)
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    monkeypatch.undo()
    data = archived(table.gamedir, tmp_path / "a.json")
    code, output = verified(data, tmp_path / "played.json")
    assert code == 3, output
    assert "opens the reveal of turn 2 otherwise than the commitments taken open it" in output
