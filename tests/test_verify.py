"""A player checks a whole game on their own machine: `archive` writes it to one file, `verify`
replays it and names the first turn and file that disagree (docs/archive.md)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from adjudicator.rules.digests import is_public
from adjudicator.store.registry import game_names, load_game
from tests.helpers import Table, archive, demo_game, run, ssh_sign
from tests.ssh import make_key

ARCHIVES: dict[tuple[str, int, int, str], Path] = {}


def verify(path: Path, *flags: str) -> tuple[int, list[str]]:
    result = run("verify", path, *flags)
    return result.exit_code, result.output.splitlines()


def save(data: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def line_hashes(data: dict[str, Any]) -> list[str]:
    return [hashlib.sha256(line.encode() + b"\n").hexdigest() for line in data["journal"]]


# -- every game agrees with itself ----------------------------------------------------------------
PLAYS = [
    ("sultan", 2, 1, {}),
    ("sultan", 3, 2, {"placement": "sequential"}),
    ("sultan", 4, 3, {"jewel_choice": "random", "screens": False}),
    ("sultan", 5, 4, {"placement": "sequential", "jewel_choice": "random"}),
    ("sultan", 3, 5, {"start_player": "carol"}),
    ("sultan", 3, 6, {"sealing": "commit-reveal", "nmr": "wait"}),
    ("sultans_court", 4, 1, {}),
    ("sultans_court", 4, 2, {"first_round_all_travel": False, "banish_tie": "higher_seat_goes"}),
    ("sultans_court", 4, 3, {"max_rounds": 3}),
    ("sultans_court", 4, 4, {"sealing": "commit-reveal"}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "seed", "options"), PLAYS)
def test_a_finished_bot_game_verifies_whole_and_public(
    tmp_path: Path, game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    gamedir = demo_game(tmp_path, game, players, seed, **options)
    full = archive(gamedir, tmp_path / "full.json")
    code, lines = verify(tmp_path / "full.json")
    assert code == 0, lines
    adjudications = sum(json.loads(line)["type"] == "adjudicated" for line in full["journal"])
    assert lines[0] == f"{full['id']} ({game}): everything this archive holds agrees"
    assert f"  replay: {adjudications} adjudications played again" in "\n".join(lines)
    assert "the seed and salt open the commitment" in lines[4]
    public = archive(gamedir, tmp_path / "public.json", "--public")
    assert public["seed"] == full["seed"] and public["over"]
    held = {f["path"] for f in public["files"]}
    assert "game.json" not in held and "setup.yaml" not in held
    code, lines = verify(tmp_path / "public.json")
    assert code == 0, lines
    assert lines[0].endswith("everything this public archive holds agrees")


def test_every_installed_game_is_played_above() -> None:
    assert {play[0] for play in PLAYS} == set(game_names())
    for name in game_names():
        game = load_game(name)
        counts = {p for g, p, _, _ in PLAYS if g == name}
        assert counts == set(range(game.min_players, game.max_players + 1))


def test_rollback_resign_replace_and_defaults_replay(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    table.play_turn()
    assert run("rollback", table.gamedir).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0  # the same orders, again
    assert run("resign", table.gamedir, "--player", "bob").exit_code == 0
    new_key = tmp_path / "keys" / "carol2"
    assert run("keygen", new_key).exit_code == 0
    replaced = run("replace", table.gamedir, "--player", "carol", "--key-file", f"{new_key}.pub")
    assert replaced.exit_code == 0, replaced.output
    table.keys["carol"] = new_key
    alice = table.signed("alice", table.legal("alice"), "late-alice.yaml")
    assert run("submit", table.gamedir, alice).exit_code == 0
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    owed = [p for p in table.status()["owed"] if p != "bob"]
    orders = [table.signed(p, table.legal(p), f"last-{p}.yaml") for p in owed]
    assert run("submit", table.gamedir, *orders).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    archive(table.gamedir, tmp_path / "full.json")
    code, lines = verify(tmp_path / "full.json")
    assert code == 0, lines
    assert "replay: 5 adjudications played again" in "\n".join(lines)


def test_turns_rolled_back_and_played_again_replay(tmp_path: Path) -> None:
    """Each rollback moves a turn's files aside, and the turns played again name the same
    paths anew (a resolution, the next turn's state and views, orders stored under the same
    names): each line is replayed with each path as the game stood after it, not as it stands
    at the end. A game ended three times, rolled back to its first turn, played again by
    default to its end (whose views read every turn's resolution), then once more with the
    orders of its last turn sent again."""
    table = Table(tmp_path, players=4, game="sultans_court", max_rounds=3)
    while not table.status()["over"]:
        table.play_turn()
    played = table.status()["turn"] - 1
    for _ in range(played - 1):
        assert run("rollback", table.gamedir).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0  # turn 1 again; turn 2 has no orders
    while not table.status()["over"]:
        assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    archive(table.gamedir, tmp_path / "ended-again.json")
    code, lines = verify(tmp_path / "ended-again.json")
    assert code == 0, lines
    for _ in range(2):
        assert run("rollback", table.gamedir).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0  # the last turn opens anew
    orders = []
    for player in table.status()["owed"]:  # an order played before, sent again
        text = table.order_text(player, table.legal(player)) + "# sent again\n"
        orders.append(table.write(f"again-{player}.yaml", text))
        ssh_sign(table.keys[player], orders[-1])
    assert run("submit", table.gamedir, *orders).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    archive(table.gamedir, tmp_path / "full.json")
    code, lines = verify(tmp_path / "full.json")
    assert code == 0, lines
    journal = (table.gamedir / "log.jsonl").read_text().splitlines()
    adjudicated = sum(json.loads(line)["type"] == "adjudicated" for line in journal)
    assert f"replay: {adjudicated} adjudications played again" in "\n".join(lines)


# -- a running game --------------------------------------------------------------------------------
def test_a_running_games_public_archive_holds_only_public_views_and_waits(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    table.play_turn()
    data = archive(table.gamedir, tmp_path / "public.json", "--public")
    assert "seed" not in data and "salt" not in data and not data["over"]
    assert data["files"] and all(is_public(f["path"]) for f in data["files"])
    code, lines = verify(tmp_path / "public.json")
    assert code == 0, lines
    assert "  seed: still secret; the game ends before it is revealed" in lines
    assert lines[-2:] == [
        "  replay: waits for the end of the game (the seed is revealed then)",
        "  keys: every seat kept the key it had when the game was created",
    ]


def test_the_same_running_game_in_two_worlds_gives_the_same_public_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two games that differ only in what no player may see yet (alice's sealed bid, and the
    secret salt every game draws): their public archives are the same once every value that
    commits to hidden data is replaced by a placeholder."""
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-27T12:00:00+00:00")
    first = Table(tmp_path / "world1", players=3)
    second = Table(tmp_path / "world2", players=3)
    for player in second.names:  # the same keys in both worlds, so the same setup
        for suffix in ("", ".pub"):
            source = first.keys[player].with_name(player + suffix)
            second.keys[player].with_name(player + suffix).write_bytes(source.read_bytes())
    second.gamedir = second.root / "same-keys"
    assert run("new", second.gamedir, "--setup", second.setup_path).exit_code == 0
    publics = []
    for table, end in ((first, 0), (second, -1)):
        table.play_turn()  # the start player's jewel choice: the same in both worlds
        hand = sorted(table.view("alice")["hand"])
        order = table.signed("alice", {"bid": {"cushion": 1, "card": hand[end]}}, "bid.yaml")
        assert run("submit", table.gamedir, order).exit_code == 0
        publics.append(archive(table.gamedir, table.root / "public.json", "--public"))
    assert placeheld(publics[0]) == placeheld(publics[1])
    assert publics[0]["journal"] != publics[1]["journal"]  # the worlds do differ underneath


def placeheld(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every value that commits to hidden data replaced by ``#``: the chain's
    ``prev``, the seed commitment (in the journal and in each view), and each digest (of an
    accepted order; of a file: a public view's digest covers the commitment it holds, and its
    content is compared instead)."""
    lines = []
    for text in data["journal"]:
        entry = json.loads(text)
        entry["prev"] = "#"
        if "commitment" in entry:
            entry["commitment"] = "#"
        entry["files"] = dict.fromkeys(entry.get("files", {}), "#")
        for order in entry.get("orders") or []:
            order["digest"] = "#"
        lines.append(entry)
    files = []
    for item in data["files"]:
        view = json.loads(item["text"])
        assert set(view) >= {"reader", "commitment"} and view["reader"] == "public"
        files.append({"path": item["path"], "view": {**view, "commitment": "#"}})
    return {**data, "journal": lines, "files": files}


# -- tampering: every kind of file is found and named ----------------------------------------------
def tampered(data: dict[str, Any], path: str, change: Any) -> dict[str, Any]:
    """A copy of ``data`` whose file at ``path`` has its bytes changed by ``change``."""
    copy = json.loads(json.dumps(data))
    for item in copy["files"]:
        if item["path"] == path:
            raw = item["text"].encode() if "text" in item else base64.b64decode(item["base64"])
            item.pop("text", None)
            item["base64"] = base64.b64encode(change(raw)).decode()
            return copy
    raise AssertionError(f"no {path} in the archive")


def flip_last_digit(raw: bytes) -> bytes:
    """Change one byte: the last digit in the file."""
    at = max(raw.rfind(bytes([d])) for d in b"0123456789")
    return raw[:at] + (b"1" if raw[at : at + 1] != b"1" else b"2") + raw[at + 1 :]


def first_file(data: dict[str, Any], pattern: str) -> str:
    import re

    return next(f["path"] for f in data["files"] if re.fullmatch(pattern, f["path"]))


@pytest.mark.seconds
@pytest.mark.parametrize(
    ("kind", "pattern"),
    [
        ("an order byte", r"turns/0005/orders/.*\.yaml"),
        ("a signature", r"turns/0005/orders/.*\.yaml\.sig"),
        ("a state", r"turns/0007/state\.json"),
        ("a resolution", r"turns/0007/resolution\.json"),
        ("a player's view (their report)", r"turns/0008/views/bob\.json"),
        ("the public view", r"turns/0008/views/public\.json"),
        ("a report mail as sent", r"mail/sent/.*\.eml"),
        ("the setup", r"setup\.yaml"),
        ("the game file", r"game\.json"),
    ],
)
def test_a_changed_file_is_found_and_named(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], kind: str, pattern: str
) -> None:
    _, data = finished
    path = first_file(data, pattern)
    code, lines = verify(save(tampered(data, path, flip_last_digit), tmp_path / "t.json"))
    assert code == 3, (kind, lines)
    if path.startswith("turns/"):
        where = f"Error: turn {int(path.split('/')[1])}: {path}: "
        assert lines[0].startswith(where), (kind, lines[0])
    else:  # the turn as the journal line that named the file left it
        assert lines[0].startswith("Error: turn ") and f": {path}: " in lines[0], lines[0]
    assert "is not the file journal line" in lines[0] or "signature" in lines[0]


def test_a_changed_journal_line_breaks_the_chain(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    _, data = finished
    copy = json.loads(json.dumps(data))
    entry = json.loads(copy["journal"][10])
    entry["at"] = "2020-01-01T00:00:00+00:00"
    copy["journal"][10] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    code, lines = verify(save(copy, tmp_path / "t.json"))
    assert code == 3
    assert lines[0] == (
        "Error: log.jsonl: line 12 does not follow the line before it (its prev is not that "
        "line's SHA-256): the journal was changed"
    )


@pytest.mark.parametrize("secret", ["seed", "salt"])
def test_a_changed_seed_or_salt_is_named(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], secret: str
) -> None:
    _, data = finished
    copy = {**data, secret: "0" * 32 if secret == "seed" else "1" * 64}
    code, lines = verify(save(copy, tmp_path / "t.json"))
    assert code == 3
    assert lines[0] == f"Error: {secret}: the {secret} differs from the one the game recorded"
    public = {k: v for k, v in copy.items()}
    public["public"] = True
    public["files"] = [f for f in copy["files"] if f["path"] not in ("game.json", "setup.yaml")]
    public["files"] = [f for f in public["files"] if not f["path"].startswith("mail/")]
    code, lines = verify(save(public, tmp_path / "p.json"))
    assert code == 3
    assert lines[0] == f"Error: {secret}: the {secret} differs from the one the game recorded"


def rechain(lines: list[str], start: int) -> list[str]:
    """The journal with each line from ``start`` on chained again to the one before it: what a
    game master who rewrote history would have to do."""
    result = list(lines[:start])
    for text in lines[start:]:
        entry = json.loads(text)
        previous = result[-1].encode() + b"\n"
        entry["prev"] = hashlib.sha256(previous).hexdigest()
        result.append(json.dumps(entry, sort_keys=True, ensure_ascii=False))
    return result


def test_a_rewritten_history_is_caught_by_replay_and_by_a_head_the_player_holds(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    """A game master changes a resolution, names the new file's digest in the journal and
    chains every later line again: the chain holds, but the replay disagrees, and a head a
    player kept from a report after that line is no longer in the chain."""
    gamedir, data = finished
    from adjudicator.rules.digests import Digester

    meta = json.loads((gamedir / "game.json").read_text())
    digester = Digester.of(meta)
    path = "turns/0007/resolution.json"
    forged = tampered(data, path, flip_last_digit)
    raw = base64.b64decode(next(f for f in forged["files"] if f["path"] == path)["base64"])
    number = next(
        i for i, text in enumerate(data["journal"]) if path in json.loads(text).get("files", {})
    )
    entry = json.loads(forged["journal"][number])
    entry["files"][path] = digester.data(path, raw)
    forged["journal"][number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    forged["journal"] = rechain(forged["journal"], number)
    code, lines = verify(save(forged, tmp_path / "t.json"))
    assert code == 3
    assert lines[0].startswith(f"Error: turn 7: {path}: played again from the setup"), lines
    held = line_hashes(data)[number + 3][:32]
    code, lines = verify(tmp_path / "t.json", "--head", held)
    assert code == 3
    assert any(f"does not pass through the chain head {held}" in line for line in lines)
    code, lines = verify(tmp_path / "t.json", "--head", line_hashes(data)[number - 1])
    assert not any("does not pass through" in line for line in lines)


def test_a_head_the_chain_passes_through_is_said_and_one_it_does_not_is_refused(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    _, data = finished
    path = save(data, tmp_path / "a.json")
    head = line_hashes(data)[20]
    code, lines = verify(path, "--head", head[:32].upper())
    assert code == 0, lines
    assert f"  the chain passes through the head {head[:32]}" in lines
    code, lines = verify(path, "--head", "ab" * 16)
    assert code == 3
    assert lines[0] == (
        f"Error: log.jsonl: the journal does not pass through the chain head {'ab' * 16}: the "
        "history was rewritten after that head was shown, or this archive was made before it "
        "(make a new one)"
    )
    for bad in ("abc", "xyz" * 11, "a" * 65):
        result = run("verify", path, "--head", bad)
        assert result.exit_code == 2, result.output
        assert "a chain head is 32 to 64 hex digits" in result.output


# -- hostile archives ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\xff\xfe", "it is not UTF-8 (byte 0)"),
        (b'{\n  "format": \n', "it is not JSON (Expecting value)"),
        (b"[]", "it is not a JSON object"),
        (b'{"format": "zip"}', "its format is not adjudicator-archive"),
        (b'{"format": "adjudicator-archive", "version": 9}', "its version is 9"),
        (b'{"format": "adjudicator-archive", "version": true}', "its version is True"),
        (b'{"format": "adjudicator-archive", "version": 1.0}', "its version is 1.0"),
        (b'{"a": 1, "a": 2}', "it is not JSON (duplicate key 'a')"),
        (b"[" * 100000 + b"]" * 100000, "it is not JSON"),
    ],
)
def test_a_file_that_is_no_archive_is_refused_with_its_reason(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    result = run("verify", path)
    assert result.exit_code == 3, result.output
    at = ", line 3" if "Expecting value" in reason else ""
    assert result.output.startswith(f"Error: {path}{at}: not an archive this version can read: ")
    assert reason in result.output


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("journal", [5], "its journal is missing or of the wrong type"),
        (
            "journal",
            ['{"type": "created"}\n{"type": "x"}'],
            "its journal is missing or of the wrong type",
        ),
        ("seed", [1], "its seed is missing or of the wrong type"),
        ("salt", 1, "its salt is missing or of the wrong type"),
    ],
)
def test_an_archive_with_a_key_of_the_wrong_shape_is_refused(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], key: str, value: Any, reason: str
) -> None:
    """Each key the archive format gives is checked for its type before anything is read:
    a journal line that is no text (or two lines in one), a seed that is a list."""
    _, data = finished
    path = save({**data, key: value}, tmp_path / "a.json")
    result = run("verify", path)
    assert (result.exit_code, result.output) == (
        3,
        f"Error: {path}: not an archive this version can read: {reason}\n",
    )


@pytest.mark.parametrize("line", ["[]", "5", '{"prev": "0"}', '{"type": 5}'])
def test_a_journal_line_that_is_no_journal_entry_is_named(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], line: str
) -> None:
    _, data = finished
    code, lines = verify(save({**data, "journal": [line, *data["journal"]]}, tmp_path / "a.json"))
    assert (code, lines[0]) == (3, "Error: log.jsonl: line 1 is not a journal line")


def test_an_archive_with_a_file_twice_or_an_unknown_key_is_refused(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    _, data = finished
    twice = {**data, "files": [*data["files"], data["files"][0]]}
    result = run("verify", save(twice, tmp_path / "a.json"))
    assert result.exit_code == 3
    assert f"it holds {data['files'][0]['path']} twice" in result.output
    result = run("verify", save({**data, "extra": 1}, tmp_path / "b.json"))
    assert result.exit_code == 3
    assert "it has a key no archive has: extra" in result.output
    for target in (tmp_path, Path("/dev/null")):
        result = run("verify", target)
        assert result.exit_code in (2, 3), result.output


def test_a_file_the_journal_does_not_name_and_a_missing_one_are_named(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    _, data = finished
    extra = {**data, "files": [*data["files"], {"path": "turns/0003/orders/x.yaml", "text": "x"}]}
    code, lines = verify(save(extra, tmp_path / "a.json"))
    assert code == 3
    assert (
        lines[0] == "Error: turn 3: turns/0003/orders/x.yaml: the journal does not name this file"
    )
    gone = first_file(data, r"turns/0004/state\.json")
    fewer = {**data, "files": [f for f in data["files"] if f["path"] != gone]}
    code, lines = verify(save(fewer, tmp_path / "b.json"))
    assert code == 3
    assert (
        lines[0] == f"Error: turn 4: {gone}: the journal names it, but the archive does not hold it"
    )


def test_a_player_can_check_an_archived_order_with_ssh_keygen_alone(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    """What docs/archive.md tells a player to do by hand: the stored pair verifies with
    `ssh-keygen -Y verify` against the key the journal's first line gives."""
    from tests.ssh import ssh_keygen

    _, data = finished
    created = json.loads(data["journal"][0])
    files = {f["path"]: f for f in data["files"]}
    order = first_file(data, r"turns/0003/orders/[a-z]+-1\.yaml")
    player = order.split("/")[-1].split("-")[0]
    key = next(p["key"] for p in created["public"]["players"] if p["name"] == player)
    (tmp_path / "allowed").write_text(f"{player} {key}\n")
    (tmp_path / "order.yaml").write_text(files[order]["text"])
    (tmp_path / "order.yaml.sig").write_text(files[order + ".sig"]["text"])
    done = ssh_keygen(
        "-Y", "verify", "-f", tmp_path / "allowed", "-I", player, "-n", "adjudicator-orders",
        "-s", tmp_path / "order.yaml.sig",
        stdin=(tmp_path / "order.yaml").read_bytes(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"Good" in done.stdout


def chained_from_the_start(lines: list[str]) -> list[str]:
    """``lines`` chained again from the first, which follows nothing (its prev: 64 zeros)."""
    first = {**json.loads(lines[0]), "prev": "0" * 64}
    return rechain([json.dumps(first, sort_keys=True, ensure_ascii=False), *lines[1:]], 1)


@pytest.mark.parametrize("how", ["without its created line", "with its created line second"])
def test_a_journal_that_does_not_begin_with_created_is_refused(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], how: str
) -> None:
    """The chain of such a journal holds (a forger chained it again), but a game begins with the
    line that created it: verify names the journal and refuses it."""
    _, data = finished
    journal = data["journal"]
    assert json.loads(journal[0])["type"] == "created"
    if how == "without its created line":
        lines = journal[1:]
    else:
        lines = [journal[1], journal[0], *journal[2:]]
    assert json.loads(lines[0])["type"] != "created"
    forged = {**data, "journal": chained_from_the_start(lines)}
    code, output = verify(save(forged, tmp_path / "f.json"))
    assert code == 3, output
    assert output[0] == (
        "Error: log.jsonl: the journal does not begin with the line that created the game"
    )
    code, output = verify(
        save({**data, "journal": chained_from_the_start(journal)}, tmp_path / "g.json")
    )
    assert code == 0, output  # chained again as it was: the same journal


def test_a_forged_journal_that_chains_but_does_not_fit_is_refused_not_a_crash(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]]
) -> None:
    """A forger can chain any lines; what they say must still fit, or verify says so (exit 3,
    never a crash)."""
    _, data = finished
    for change in (
        lambda e: e.update(turn="seven") if e["type"] == "adjudicated" else None,
        lambda e: e.update(files=["not", "a", "mapping"]) if e["type"] == "submitted" else None,
        lambda e: (
            e.update(public={"game": "sultan", "players": 3}) if e["type"] == "created" else None
        ),
        lambda e: (
            e.update(public={**e["public"], "game": "chess"}) if e["type"] == "created" else None
        ),
    ):
        entries = [json.loads(text) for text in data["journal"]]
        for entry in entries:
            change(entry)
        texts = [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in entries]
        texts[0] = json.dumps({**entries[0], "prev": "0" * 64}, sort_keys=True)
        forged = {**data, "journal": rechain(texts, 1)}
        result = run("verify", save(forged, tmp_path / "f.json"))
        assert result.exit_code == 3, result.output
        assert result.output.startswith("Error: ")


def test_a_key_comment_stays_out_of_the_journal(tmp_path: Path) -> None:
    """A player's key comment is any text the player wrote: an address often (an open game's
    join drops it), or U+2028 (a line break to str.splitlines, not to the journal, whose lines
    end at LF only). The journal, which a public archive holds, keeps the key without it, in the
    created line and in a replaced line's keys alike; the game verifies."""
    table = Table(tmp_path, players=2)
    pub = tmp_path / "keys" / "alice.pub"
    pub.write_text(pub.read_text().strip() + "\u2028alice@laptop.example\n", encoding="utf-8")
    assert run("new", tmp_path / "g2", "--setup", table.setup_path).exit_code == 0
    new_key = make_key(tmp_path / "keys", "bob-new")
    Path(f"{new_key}.pub").write_text(
        Path(f"{new_key}.pub").read_text().strip() + " bob@home.example\n"
    )
    replaced = run("replace", tmp_path / "g2", "--player", "bob", "--key-file", f"{new_key}.pub")
    assert replaced.exit_code == 0, replaced.output
    data = archive(tmp_path / "g2", tmp_path / "a.json", "--public")
    journal = "\n".join(data["journal"])
    assert "laptop" not in journal and "home.example" not in journal and "\u2028" not in journal
    code, lines = verify(tmp_path / "a.json")
    assert code == 0, lines


def test_an_archive_into_a_folder_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2)
    out = tmp_path / "no-such-folder" / "game.json"
    result = run("archive", table.gamedir, "-o", out)
    assert result.exit_code == 2, result.output
    assert f"there is no folder {out.parent} to write the archive in" in result.output
    assert not out.parent.exists()
