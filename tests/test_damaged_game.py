"""A game file changed by hand (other bytes, bytes that are not JSON, a folder in its place):
every read command names the file, points to ``doctor``, exits 4 and changes nothing; it never
shows what the changed file says. ``doctor`` names the file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Table, run

VIEW = "turns/0001/views/carol.json"
STATE = "turns/0001/state.json"


def _other_bytes(path: Path) -> None:
    """Valid JSON of the same shape, one card more: the kind of change a reader would want."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("{", '{"edited": true, ', 1), encoding="utf-8")


def _not_json(path: Path) -> None:
    path.write_bytes(b'{"turn": 1, \xff')


def _a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _emptied(path: Path) -> None:
    path.write_bytes(b"{}")


DAMAGES: dict[str, Callable[[Path], None]] = {
    "other bytes": _other_bytes,
    "not JSON": _not_json,
    "a folder": _a_folder,
    "emptied": _emptied,
}

READS = {
    VIEW: [
        ["view", "--player", "carol"],
        ["report", "--player", "carol"],
        ["report", "--player", "carol", "--format", "html"],
        ["form", "--player", "carol"],
    ],
    STATE: [["view", "--player", "alice", "--json"], ["log"], ["log", "--json"]],
    "game.json": [["status"], ["view", "--player", "bob"], ["report", "--gm"], ["log"]],
}


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Table(tmp_path_factory.mktemp("game")).gamedir


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("rel", READS)
def test_a_game_file_changed_by_hand_is_named_and_nothing_else_happens(
    tmp_path: Path, fresh: Path, rel: str, damage: str
) -> None:
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    DAMAGES[damage](gamedir / rel)
    before = snapshot(gamedir)
    for args in READS[rel]:
        result = run(args[0], gamedir, *args[1:])
        assert result.exit_code == 4, (args, result.output)
        assert f"{gamedir}: {rel} " in result.output, (args, result.output)
        assert "`adjudicator doctor`" in result.output
        assert "edited" not in result.output
        assert snapshot(gamedir) == before, args
    told = run("doctor", gamedir)
    assert told.exit_code == 3, told.output
    assert f"{gamedir / rel}: changed since the journal named it" in told.output or (
        damage == "a folder" and f"{gamedir / rel}: named by the journal but missing" in told.output
    ), told.output


def test_a_step_refuses_a_state_changed_by_hand(tmp_path: Path, fresh: Path) -> None:
    """``adjudicate`` plays no turn from a state changed since the journal named it."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    _other_bytes(gamedir / STATE)
    before = snapshot(gamedir)
    result = run("adjudicate", gamedir, "--default-missing")
    assert result.exit_code == 4, result.output
    assert f"{gamedir}: {STATE} no longer holds what the journal named" in result.output
    assert snapshot(gamedir) == before


def test_a_game_as_the_journal_named_it_reads_as_before(fresh: Path) -> None:
    """The check reads the game it guards: an untouched game's commands all answer."""
    for args in [a for reads in READS.values() for a in reads]:
        result = run(args[0], fresh, *args[1:])
        assert result.exit_code == 0, (args, result.output)
    assert run("doctor", fresh).exit_code == 0


def test_send_mails_no_report_from_a_view_changed_by_hand(tmp_path: Path, fresh: Path) -> None:
    """The game is left for a later run, named with the file; no turn's report is queued."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    _other_bytes(gamedir / VIEW)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("send", gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    assert f"{gamedir}: {VIEW} no longer holds what the journal named" in result.output
    queued = [p for p in gamedir.rglob("*report-1*") if "discarded" not in p.parts]
    assert queued == [], "a report was queued"  # those the step made before are discarded
    told = run("doctor", gamedir)
    assert told.output.count("changed since the journal named it") == 1, told.output


def test_send_names_a_game_it_cannot_read_and_leaves_it_for_a_later_run(
    tmp_path: Path, fresh: Path
) -> None:
    """It was skipped without a word (exit 0), as if it had nothing to send."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    _other_bytes(gamedir / "game.json")
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("send", gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    said = f"{gamedir}: left for a later run: the game cannot be read ("
    [line] = [line for line in result.output.splitlines() if line.startswith(said)]
    assert "game.json no longer holds what the journal named" in line
    assert line.count(str(gamedir)) == 1, line  # the game named once
    assert not (gamedir / "outbox").exists()


@pytest.mark.parametrize("public", [False, True], ids=["full", "public"])
def test_archive_holds_no_file_changed_by_hand(tmp_path: Path, fresh: Path, public: bool) -> None:
    """A public archive decided what to show from the current public view as it found it: one
    changed to say the game is over put every hidden file of a running game in it."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    view = gamedir / "turns" / "0001" / "views" / "public.json"
    view.write_text(view.read_text(encoding="utf-8").replace('"over": false', '"over": true'))
    out = tmp_path / "archive.json"
    result = run("archive", gamedir, *(["--public"] if public else []), "-o", out)
    assert result.exit_code == 4, result.output
    assert "turns/0001/views/public.json no longer holds what the journal named" in result.output
    assert not out.exists()


@pytest.mark.parametrize("damage", ["other bytes", "emptied"])
def test_an_order_changed_by_hand_is_not_played(tmp_path: Path, damage: str) -> None:
    """The order in effect is read as the journal named it: one changed since was played as
    changed, and one emptied ended in a traceback."""
    table = Table(tmp_path)
    for player in table.status()["owed"]:
        path = table.signed(player, table.legal(player), f"{player}.yaml")
        assert run("submit", table.gamedir, path).exit_code == 0
    [stored] = sorted((table.gamedir / "turns" / "0001" / "orders").glob("*.yaml"))
    stored.write_bytes(stored.read_bytes() + b"# changed\n" if damage == "other bytes" else b"")
    before = snapshot(table.gamedir)
    rel = str(stored.relative_to(table.gamedir))
    for args in (["--preview"], []):
        result = run("adjudicate", table.gamedir, *args)
        assert result.exit_code == 4, (args, result.output)
        assert f"{table.gamedir}: {rel} no longer holds what the journal named" in result.output
        assert snapshot(table.gamedir) == before


def _line_cut(index: int) -> Callable[[Path], None]:
    def cut(log: Path) -> None:
        lines = log.read_bytes().split(b"\n")
        lines[index] = lines[index][:-4]
        log.write_bytes(b"\n".join(lines))

    return cut


def _not_utf8(log: Path, bad: bytes = b"\xff") -> None:
    lines = log.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"', b'"' + bad, 1)
    log.write_bytes(b"\n".join(lines))


def _a_surrogate(log: Path) -> None:
    """A lone surrogate encoded as if UTF-8: JSON reads it, strict UTF-8 does not."""
    _not_utf8(log, b"\xed\xa0\x80")


def _an_order_with(field: str, value: Callable[[Any], Any]) -> Callable[[Path], None]:
    """The second line's order with ``field`` written otherwise than the program writes it."""

    def change(log: Path) -> None:
        lines = log.read_bytes().split(b"\n")
        entry = json.loads(lines[1])
        entry["orders"][0][field] = value(entry["orders"][0][field])
        lines[1] = json.dumps(entry, sort_keys=True).encode()
        log.write_bytes(b"\n".join(lines))

    return change


def _a_line(index: int, change: Callable[[dict[str, Any]], Any]) -> Callable[[Path], None]:
    """The line ``index`` of the journal replaced by what ``change`` makes of it (a new line,
    or None when it changed the line in place)."""

    def edit(log: Path) -> None:
        lines = log.read_bytes().split(b"\n")
        entry = json.loads(lines[index])
        made = change(entry)
        lines[index] = json.dumps(entry if made is None else made).encode()
        log.write_bytes(b"\n".join(lines))

    return edit


def _nested(log: Path) -> None:
    lines = log.read_bytes().split(b"\n")
    lines[1] = b"[" * 100_000 + b"]" * 100_000
    log.write_bytes(b"\n".join(lines))


def _notice_in(entry: dict[str, Any], **fields: Any) -> None:
    order = entry["orders"][0]
    notice = {"kind": "absence", "file": "0001.yaml", "digest": order["digest"]}
    entry["notices"] = [{**notice, "turn": order["turn"], "at": entry["at"], **fields}]
    entry["orders"] = []


JOURNAL_DAMAGES = {
    "first line a list": (
        _a_line(0, lambda entry: []),
        "line 1 of the journal (log.jsonl) is not a journal line",
    ),
    "second line a number": (
        _a_line(1, lambda entry: 42),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a line nested deep": (_nested, "line 2 of the journal (log.jsonl) is not a journal line"),
    "files in a list": (
        _a_line(0, lambda entry: entry.update(files=[])),
        "line 1 of the journal (log.jsonl) is not a journal line",
    ),
    "a move to a number": (
        _a_line(1, lambda entry: entry.update(moved={"turns/0001/state.json": 1})),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a notice without its kind": (
        _a_line(1, lambda entry: _notice_in(entry, kind=None)),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a notice at no time": (
        _a_line(1, lambda entry: _notice_in(entry, at="garbage")),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a notice at a time without its zone": (
        _a_line(1, lambda entry: _notice_in(entry, at="2026-12-01T10:00:00")),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a pause at a time without its zone": (
        _a_line(
            1, lambda entry: {**entry, "type": "paused", "orders": [], "at": "2026-12-01T10:00:00"}
        ),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a deadline of no time": (
        _a_line(
            1,
            lambda entry: {
                **entry,
                "type": "extended",
                "orders": [],
                "turn": 1,
                "deadline": "soon",
            },
        ),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a notice with no kind": (
        _a_line(1, lambda entry: _notice_in(entry) or entry["notices"][0].pop("kind")),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a notice with no time": (
        _a_line(1, lambda entry: _notice_in(entry) or entry["notices"][0].pop("at")),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a resignation of one not seated": (
        _a_line(1, lambda entry: {**entry, "type": "resigned", "orders": [], "player": "mallory"}),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "addresses no line named": (
        _a_line(
            1,
            lambda entry: {
                **entry,
                "type": "replaced",
                "orders": [],
                "player": "alice",
                "key": "k",
                "was_key": "k",
                "addresses": "seats/replaced-0009.json",
            },
        ),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a resignation of nobody": (
        _a_line(1, lambda entry: {**entry, "type": "resigned", "orders": [], "player": None}),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a new key that is none": (
        _a_line(
            1,
            lambda entry: {
                **entry,
                "type": "replaced",
                "orders": [],
                "player": "alice",
                "key": None,
                "was_key": "x",
            },
        ),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "first line cut": (_line_cut(0), "line 1 of the journal (log.jsonl) is not a journal line"),
    "a turn in quotes": (
        _an_order_with("turn", str),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a turn in a list": (
        _an_order_with("turn", lambda turn: [turn]),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "a digest in capitals": (
        _an_order_with("digest", str.upper),
        "line 2 of the journal (log.jsonl) is not a journal line",
    ),
    "second line cut": (_line_cut(1), "line 2 of the journal (log.jsonl) is not a journal line"),
    "not UTF-8": (_not_utf8, "line 2 of the journal (log.jsonl) is not a journal line"),
    "a surrogate": (_a_surrogate, "line 2 of the journal (log.jsonl) is not a journal line"),
    "a folder": (_a_folder, "log.jsonl cannot be read (Is a directory)"),
}


@pytest.fixture(scope="module")
def ordered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game whose journal has a second line: an order taken."""
    table = Table(tmp_path_factory.mktemp("ordered"))
    player = next(iter(table.status()["owed"]))
    order = table.signed(player, table.legal(player), f"{player}.yaml")
    assert run("submit", table.gamedir, order).exit_code == 0
    return table.gamedir


@pytest.mark.parametrize("damage", JOURNAL_DAMAGES)
def test_a_journal_changed_by_hand_is_named_with_its_line(
    tmp_path: Path, ordered: Path, damage: str
) -> None:
    gamedir = tmp_path / "game"
    shutil.copytree(ordered, gamedir)
    change, said = JOURNAL_DAMAGES[damage]
    change(gamedir / "log.jsonl")
    before = snapshot(gamedir)
    for args in (["status"], ["view", "--player", "carol"], ["log"], ["adjudicate"]):
        result = run(args[0], gamedir, *args[1:])
        assert result.exit_code == 4, (args, result.output)
        assert f"{gamedir}: {said}" in result.output, (args, result.output)
        assert snapshot(gamedir) == before, args
    result = run("archive", gamedir, "-o", tmp_path / "archive.json")
    assert result.exit_code == 4 and said in result.output, result.output
    result = run("doctor", gamedir)  # where the commands send the game master: not "agrees"
    assert result.exit_code in (3, 4), result.output
    assert "run `adjudicator doctor`" not in result.output, result.output


def _queued(tmp_path: Path, fresh: Path) -> tuple[Path, Path, Path]:
    """A copy of the game with its first mail queued and not sent (the SMTP server cannot be
    reached), the settings that write mail to the outbox folder, and one queued message."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    unreachable = tmp_path / "smtp.toml"
    unreachable.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\n[smtp]\nhost = "127.0.0.1"\nport = 1\ntls = "none"\n'
    )
    assert run("send", gamedir, "--config", unreachable).exit_code == 75
    to_outbox = tmp_path / "mail.toml"
    to_outbox.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    queued = sorted((gamedir / "mail" / "queue").glob("*.eml"))
    assert queued
    return gamedir, to_outbox, queued[-1]


def test_send_mails_nothing_from_a_queue_changed_by_hand(tmp_path: Path, fresh: Path) -> None:
    """A queued message changed by hand went out as changed, then every `send` ended in a
    traceback (the step could not follow the move of a file that was not the one named)."""
    gamedir, config, message = _queued(tmp_path, fresh)
    message.write_bytes(message.read_bytes().replace(b"To: ", b"To: x@evil.example, ", 1))
    before = snapshot(gamedir)
    for _ in range(2):
        result = run("send", gamedir, "--config", config)
        assert result.exit_code == 75, result.output
        rel = message.relative_to(gamedir)
        assert f"{gamedir}: {rel} no longer holds what the journal named" in result.output
        assert snapshot(gamedir) == before


@pytest.mark.parametrize("command", ["send", "tick"])
def test_a_game_whose_game_json_is_gone_is_named_by_the_mail_commands(
    tmp_path: Path, fresh: Path, command: str
) -> None:
    """They took its folder for a folder of games, found none in it, and said nothing (exit 0)."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    (gamedir / "game.json").unlink()
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run(command, gamedir, "--config", config)
    assert result.exit_code == 75, result.output
    said = f"{gamedir}: left for a later run: the game cannot be read (game.json cannot be read"
    assert said in result.output


def test_a_journal_that_does_not_begin_with_created_is_no_game(tmp_path: Path, fresh: Path) -> None:
    """Its game.json is a file: the journal is what is wrong, not game.json."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    log = gamedir / "log.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"type": "created"', b'"type": "order"', 1))
    result = run("status", gamedir)
    assert result.exit_code == 2, result.output
    assert "not a game directory" in result.output


@pytest.mark.parametrize(
    "plan",
    [
        {"moves": [["setup.yaml", "../escaped.yaml"]], "line": {"type": "queued"}},
        {"moves": [["/etc/hostname", "setup.yaml"]], "line": {"type": "queued"}},
        {"moves": "x", "line": {"type": "queued"}},
        "x",
    ],
    ids=["out of the game", "from outside", "moves not a list", "not a plan"],
)
def test_a_step_marker_changed_by_hand_is_not_followed(
    tmp_path: Path, fresh: Path, plan: Any
) -> None:
    """A step's marker whose plan was changed by hand is discarded, as an unreadable one is,
    not followed: no move takes a file out of the game or brings one in."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    lines = len((gamedir / "log.jsonl").read_bytes().splitlines())
    marker = {"kind": "pause", "lines": lines + 5, "plan": plan}
    (gamedir / ".step").write_text(json.dumps(marker))
    setup = (gamedir / "setup.yaml").read_bytes()
    result = run("pause", gamedir)
    assert result.exit_code in (0, 4), result.output
    assert (gamedir / "setup.yaml").read_bytes() == setup
    assert not (tmp_path / "escaped.yaml").exists()
    assert (gamedir / "log.jsonl").read_bytes().count(b'"recovered"') == 0


def test_a_seat_whose_key_was_changed_by_hand_does_not_stop_replace(
    tmp_path: Path, ordered: Path
) -> None:
    """A key line changed by hand in the journal holds no key: ``replace`` gives another seat
    a new key all the same (the new key is nobody's)."""
    from tests.ssh import make_key

    gamedir = tmp_path / "game"
    shutil.copytree(ordered, gamedir)
    lines = (gamedir / "log.jsonl").read_text().splitlines()
    entry = json.loads(lines[1])
    garbage = {"type": "replaced", "orders": [], "player": "alice", "key": "garbage"}
    garbage |= {"was_key": "x", "email": "alice@example.org", "was_email": "alice@example.org"}
    lines[1] = json.dumps({**entry, **garbage})
    (gamedir / "log.jsonl").write_text("\n".join(lines) + "\n")
    key = make_key(tmp_path / "keys", "newbob")
    result = run("replace", gamedir, "--player", "bob", "--key-file", f"{key}.pub")
    assert result.exit_code == 0, result.output
    before = snapshot(gamedir)
    result = run("replace", gamedir, "--player", "alice", "--lang", "de")
    assert result.exit_code == 3 and "alice's key in the journal holds no key" in result.output
    assert snapshot(gamedir) == before
    result = run("replace", gamedir, "--player", "alice", "--key-file", f"{key}.pub")
    assert result.exit_code == 3 and "the new key is bob's" in result.output, result.output


def _no_file_in_place(
    tmp_path: Path, fresh: Path, name: str, kind: str, command: list[str]
) -> subprocess.CompletedProcess[str]:
    """``command`` run, as a process of its own (so that a wait fails the test), on a copy of
    the game whose file ``name`` is a pipe or a link to ``/dev/zero`` (``kind``)."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    (gamedir / name).unlink()
    if kind == "a pipe":
        os.mkfifo(gamedir / name)
    else:
        (gamedir / name).symlink_to("/dev/zero")
    argv = [sys.executable, "-m", "adjudicator", command[0], str(gamedir), *command[1:]]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path)


@pytest.mark.parametrize("kind", ["a pipe", "a device"])
@pytest.mark.parametrize("command", [["status"], ["doctor"], ["view", "--player", "carol"]])
def test_a_journal_that_is_no_file_is_named_at_once(
    tmp_path: Path, fresh: Path, kind: str, command: list[str]
) -> None:
    """A journal that is a pipe (reading it would wait for a writer that never comes) or a
    link to a device such as ``/dev/zero`` (reading it would never end): named at once, as a
    folder in its place is."""
    done = _no_file_in_place(tmp_path, fresh, "log.jsonl", kind, command)
    assert done.returncode in (3, 4), done.stderr
    if command[0] == "doctor":  # names the journal, rather than send the game master to itself
        assert done.returncode == 3 and "run `adjudicator doctor`" not in done.stdout + done.stderr
    assert "log.jsonl" in done.stdout + done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("kind", ["a pipe", "a device"])
@pytest.mark.parametrize("command", [["tick", "--config", "/dev/null"], ["doctor"]])
def test_a_game_json_that_is_no_file_is_named_at_once(
    tmp_path: Path, fresh: Path, kind: str, command: list[str]
) -> None:
    """As the journal: ``game.json`` a pipe or a link to ``/dev/zero`` is named, never read
    (which waited for ever, or read until memory ran out)."""
    done = _no_file_in_place(tmp_path, fresh, "game.json", kind, command)
    assert done.returncode in (3, 4, 75), done.stderr
    assert "game.json" in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_mail_that_may_be_a_game_it_cannot_read_waits_for_it(tmp_path: Path) -> None:
    """An order for a game whose ``game.json`` could not be read was set aside as naming no
    game served here, and its Message-ID kept as processed: the order was lost, and mailed
    again it was a duplicate (exit 0). It is left for a later run (exit 75), and taken once the
    game can be read; mail for the games that can be read is taken meanwhile."""
    from tests.helpers import order_mail

    games = tmp_path / "games"
    tables = {}
    for name in ("able", "broken"):
        table = Table(tmp_path / name, game_id=name)
        shutil.move(table.gamedir, games / name)
        table.gamedir = games / name
        tables[name] = table
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    mails = {}
    for name, table in tables.items():
        player = table.status()["waiting_for"][0]
        mails[name] = (player, order_mail(table, player, table.legal(player)))
    broken = games / "broken" / "game.json"
    kept = broken.read_bytes()
    broken.unlink()
    broken.mkdir()  # cannot be read
    result = run("ingest", games, "--config", config, input=mails["broken"][1])  # type: ignore[arg-type]
    assert result.exit_code == 75, result.output
    assert "left for a later run" in result.output, result.output
    result = run("ingest", games, "--config", config, input=mails["able"][1])  # type: ignore[arg-type]
    assert result.exit_code == 75, result.output  # the broken game is named again
    assert tables["able"].status()["received"] == [mails["able"][0]]
    broken.rmdir()
    broken.write_bytes(kept)
    result = run("ingest", games, "--config", config, input=mails["broken"][1])  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert tables["broken"].status()["received"] == [mails["broken"][0]]


def test_a_folder_of_games_that_cannot_be_looked_into_is_left_out(
    tmp_path: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder among the games the user may not look into (a ``lost+found`` of root's, say)
    ended ``tick`` in a traceback before any game was done. (Run as root, the tests cannot be
    refused: the refusal is the system call's.)"""
    games = tmp_path / "games"
    shutil.copytree(fresh, games / "cairo")
    (games / "lost+found").mkdir()
    real = Path.exists

    def refused(path: Path, *args: object, **kwargs: object) -> bool:
        if "lost+found" in path.parts and path.name != "lost+found":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "exists", refused)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("tick", games, "--config", config)
    assert result.exit_code == 0, result.output
    assert (games / "cairo" / "outbox").is_dir()


@pytest.mark.parametrize("command", [["pause"], ["doctor"]])
def test_a_file_the_user_may_not_touch_is_named_not_a_traceback(
    tmp_path: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """A command run by another user than the game's (cron's, say) met files it may not
    write or read and ended in a traceback (exit 1). It names the file and the refusal (exit
    4), and the next command that may finishes or undoes what was begun. (Run as root, the
    tests cannot be refused: the refusal is the system call's.)"""
    import tempfile

    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    (gamedir / "game.json").chmod(0o644)

    def refused(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(gamedir / "game.json"))

    if command == ["pause"]:
        monkeypatch.setattr(tempfile, "mkstemp", refused)
    else:
        from adjudicator.rules import digests

        monkeypatch.setattr(digests.Digester, "file", refused)
    before = (gamedir / "log.jsonl").read_bytes()
    result = run(*command[:1], gamedir, *command[1:])
    assert result.exit_code == 4, result.output
    assert f"{gamedir / 'game.json'}: Permission denied" in result.output
    assert (gamedir / "log.jsonl").read_bytes() == before


def test_ingest_words_why_a_game_it_cannot_read_left_the_message(tmp_path: Path) -> None:
    """The line said only ``files-lost`` (the message's code, not its words)."""
    from tests.helpers import order_mail

    table = Table(tmp_path)
    player = table.status()["waiting_for"][0]
    mail = order_mail(table, player, table.legal(player))
    state = table.gamedir / STATE
    state.unlink()
    state.mkdir()  # cannot be read
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("ingest", table.gamedir, "--config", config, input=mail)  # type: ignore[arg-type]
    assert result.exit_code == 75, result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("stdin: ")]
    assert line.startswith("stdin: left for a later run: ") and STATE in line, line
    assert "files-lost" not in result.output, result.output


def test_a_folder_of_games_given_that_cannot_be_listed_is_named(
    tmp_path: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not taken for a folder without games (exit 0, nothing done): the refusal is named."""
    games = tmp_path / "games"
    shutil.copytree(fresh, games / "cairo")
    real = Path.iterdir

    def refused(path: Path) -> object:
        if path == games:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(Path, "iterdir", refused)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("tick", games, "--config", config)
    assert result.exit_code == 4, result.output
    assert f"{games}: Permission denied" in result.output


@pytest.mark.parametrize("kind", ["a pipe", "a device"])
def test_a_step_marker_that_is_no_file_is_not_waited_on(
    tmp_path: Path, fresh: Path, kind: str
) -> None:
    """A step's marker that is a pipe was read as the marker: the command waited for ever. It
    is a marker that cannot be read, so the step it stood for is undone, as for one changed by
    hand."""
    gamedir = tmp_path / "game"
    shutil.copytree(fresh, gamedir)
    if kind == "a pipe":
        os.mkfifo(gamedir / ".step")
    else:
        (gamedir / ".step").symlink_to("/dev/zero")
    argv = [sys.executable, "-m", "adjudicator", "pause", str(gamedir)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (gamedir / ".step").exists()
