"""A running game survives what a crash leaves, reads only what its journal names, and tells
the game master what is wrong (``doctor``); the game master's commands know a game is over;
``tick`` over many games goes on past one it cannot process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Table, run

NOW = "2026-11-25T10:00:00+00:00"


@pytest.fixture(autouse=True)
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", NOW)


def _journal(gamedir: Path) -> list[dict[str, object]]:
    lines = (gamedir / "log.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _doctor(gamedir: Path) -> tuple[int, list[str]]:
    result = run("doctor", gamedir)
    return result.exit_code, result.output.splitlines()


# -- doctor ------------------------------------------------------------------------------------
def test_doctor_finds_a_game_that_agrees_with_its_journal(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, schedule={"deadline": "48h"})
    table.play_turn()
    code, lines = _doctor(table.gamedir)
    assert code == 0, lines
    assert lines[-1].startswith(f"{table.gamedir}: agrees with its journal (")


def test_doctor_names_every_file_out_of_place(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    game = table.gamedir
    (game / "turns" / "0005").mkdir()
    (game / "turns" / "0005" / "state.json").write_text("{}")
    (game / "turns" / "0001" / "views" / "alice.json").write_text("{}\n")
    (game / "turns" / "0001" / "views" / "bob.json").unlink()
    code, lines = _doctor(game)
    assert code == 3
    assert lines == [
        f"{game}/turns/0001/views/alice.json: changed since the journal named it "
        "(its digest differs)",
        f"{game}/turns/0001/views/bob.json: named by the journal but missing",
        f"{game}/turns/0005/state.json: not named by the journal",
    ]


def test_doctor_finds_a_journal_line_rewritten(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    log = table.gamedir / "log.jsonl"
    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    first["at"] = "2020-01-01T00:00:00+00:00"
    lines[0] = json.dumps(first, sort_keys=True, ensure_ascii=False)
    log.write_text("\n".join(lines) + "\n")
    code, out = _doctor(table.gamedir)
    assert code == 3
    assert out == [
        f"{table.gamedir}/log.jsonl: line 2 does not follow the line before it (its prev is "
        "not that line's SHA-256): the journal was changed"
    ]


# -- what a crash leaves -----------------------------------------------------------------------
def test_a_turn_folder_the_journal_does_not_name_is_ignored(tmp_path: Path) -> None:
    """A kill while the next turn's state.json was renamed into place leaves a turn folder with
    only a temporary file: every command reads the game as its journal names it."""
    table = Table(tmp_path, players=3)
    stray = table.gamedir / "turns" / "0002"
    stray.mkdir()
    (stray / ".state.json.k3j2.tmp").write_text('{"turn": 2')
    assert table.status()["turn"] == 1
    assert run("view", table.gamedir, "--player", "alice", "--json").exit_code == 0
    assert run("log", table.gamedir, "--json").exit_code == 0
    assert run("report", table.gamedir, "--gm").exit_code == 0
    assert _doctor(table.gamedir)[0] == 3
    table.play_turn()  # adjudicates turn 1 (the stray is not part of the game)
    assert table.status()["turn"] == 2
    assert _doctor(table.gamedir)[0] == 3  # the stray stays until a step discards one


def test_a_step_cut_short_is_discarded_by_the_next_command(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    lines = len(_journal(table.gamedir))
    game = table.gamedir
    (game / ".step").write_text(json.dumps({"kind": "adjudicate", "lines": lines}))
    (game / "turns" / "0001" / "resolution.json").write_text("{}")
    (game / "turns" / "0002").mkdir()
    (game / "turns" / "0002" / ".state.json.x.tmp").write_text("{")
    code, out = _doctor(game)
    assert code == 3 and any("a adjudicate step was cut short" in line for line in out)
    result = run("extend", game, "--by", "24h")  # any command that changes the game
    assert result.exit_code == 0, result.output
    assert _doctor(game)[0] == 0
    recovered = [e for e in _journal(game) if e["type"] == "recovered"]
    assert [e["kind"] for e in recovered] == ["adjudicate"]
    assert (game / "discarded" / "0001" / "turns" / "0001" / "resolution.json").exists()
    assert not (game / ".step").exists()
    table.play_turn()
    assert table.status()["turn"] == 2


def test_a_torn_line_of_a_step_cut_short_is_moved_aside_once(tmp_path: Path) -> None:
    """A step cut short while it appended its line (a full disk, a power cut) leaves a torn
    line and its marker. The torn part went to ``discarded/0001/``, and then the step's undoing
    moved that, as a file the journal did not name, into ``discarded/0002/discarded/0001/``."""
    table = Table(tmp_path, players=3)
    game = table.gamedir
    lines = len(_journal(game))
    (game / ".step").write_text(json.dumps({"kind": "adjudicate", "lines": lines}))
    (game / "turns" / "0001" / "resolution.json").write_text("{}")
    with (game / "log.jsonl").open("ab") as journal:
        journal.write(b'{"type": "adjudicated", "tu')
    result = run("extend", game, "--by", "24h")
    assert result.exit_code == 0, result.output
    assert _doctor(game)[0] == 0
    discarded = sorted(
        str(p.relative_to(game / "discarded")) for p in (game / "discarded").rglob("*")
    )
    assert discarded == [
        "0001",
        "0001/log.jsonl.torn",
        "0002",
        "0002/turns",
        "0002/turns/0001",
        "0002/turns/0001/resolution.json",
    ]
    assert (game / "discarded/0001/log.jsonl.torn").read_bytes() == b'{"type": "adjudicated", "tu'


def test_a_marker_found_empty_is_a_step_that_wrote_nothing_and_is_discarded(tmp_path: Path) -> None:
    """A marker found empty (a disk that kept its name and lost its bytes) is that of a step of
    unknown kind: ``doctor`` says so, a read command still reads, and the next command that
    changes the game discards it (it left nothing to discard) and goes on; nothing of the game
    changes."""
    table = Table(tmp_path, players=3)
    table.play_turn()
    game = table.gamedir
    lines = _journal(game)
    (game / ".step").write_bytes(b"")
    code, out = _doctor(game)
    assert code == 3 and any("a unknown step was cut short" in line for line in out), out
    assert run("status", game).exit_code == 0
    result = run("extend", game, "--by", "24h")
    assert result.exit_code == 0, result.output
    assert not (game / ".step").exists()
    assert not (game / "discarded").exists()
    after = _journal(game)
    assert after[: len(lines)] == lines
    assert [e["type"] for e in after[len(lines) :]] == ["extended"]
    assert _doctor(game)[0] == 0


@pytest.mark.parametrize("planned", [False, True], ids=["discarded", "finished"])
def test_a_file_removed_by_hand_after_a_step_was_cut_short_is_named_not_a_traceback(
    tmp_path: Path, planned: bool
) -> None:
    """The step cut short is discarded (or finished, from the plan in its marker) only once the
    file is back: until then each command that changes the game names it (exit 4); before, each
    ended in exit 1."""
    table = Table(tmp_path, players=3)
    game = table.gamedir
    assert run("extend", game, "--by", "24h").exit_code == 0
    extended = {k: v for k, v in _journal(game)[-1].items() if k not in ("at", "prev")}
    cut: dict[str, Any] = {"kind": "extend", "lines": len(_journal(game))}
    if planned:
        cut["plan"] = {"moves": [], "line": extended}
    (game / ".step").write_text(json.dumps(cut))
    (game / "turns" / "0001" / "resolution.json").write_text("{}")
    view = game / "turns" / "0001" / "views" / "alice.json"
    kept = view.read_bytes()
    view.unlink()
    for _ in range(2):
        result = run("extend", game, "--by", "24h")
        assert result.exit_code == 4, result.output
        assert "turns/0001/views/alice.json" in result.output
        assert "which is not there" in result.output
    assert (game / ".step").exists()
    view.write_bytes(kept)
    assert run("extend", game, "--by", "24h").exit_code == 0
    last = _journal(game)[-2:]
    assert [e["type"] for e in last] == ["extended" if planned else "recovered", "extended"]
    assert last[0].get("recovered") is True or last[0]["type"] == "recovered"
    assert _doctor(game)[0] == 0


def test_new_moves_aside_what_a_new_cut_short_left(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    shutil.rmtree(table.gamedir)
    game = table.gamedir
    game.mkdir()
    (game / ".step").write_text(json.dumps({"kind": "new", "lines": 0}))
    (game / "game.json").write_text("{")
    assert run("status", game).exit_code == 2  # not a game yet: says so
    result = run("new", game, "--setup", table.setup_path)
    assert result.exit_code == 0, result.output
    assert (game / "discarded" / "0001" / "game.json").read_text() == "{"
    assert _doctor(game)[0] == 0
    assert table.status()["turn"] == 1


def test_new_refuses_a_folder_that_holds_something_else(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    shutil.rmtree(table.gamedir)
    table.gamedir.mkdir()
    (table.gamedir / "notes.txt").write_text("mine\n")
    result = run("new", table.gamedir, "--setup", table.setup_path)
    assert result.exit_code == 2
    assert (table.gamedir / "notes.txt").read_text() == "mine\n"


# -- a game that is over -----------------------------------------------------------------------
def _finished(tmp_path: Path) -> Table:
    table = Table(
        tmp_path, players=4, game="sultans_court", schedule={"deadline": "48h"}, max_rounds=1
    )
    table.play_turn()
    assert table.status()["over"]
    return table


@pytest.mark.parametrize(
    "command",
    [
        ["replace", "--player", "bob", "--email", "new-bob@example.org"],
        ["resign", "--player", "bob"],
        ["extend", "--by", "24h"],
        ["pause"],
        ["resume"],
    ],
)
def test_the_game_masters_commands_know_the_game_is_over(
    tmp_path: Path, command: list[str]
) -> None:
    table = _finished(tmp_path)
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run(command[0], table.gamedir, *command[1:])
    assert result.exit_code == 4, result.output
    assert result.output == "Error: game cairo-2026 is over\n"
    assert (table.gamedir / "log.jsonl").read_bytes() == before


def test_resume_past_the_calendar_keeps_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3, schedule={"deadline": "48h"})
    assert run("extend", table.gamedir, "--to", "9999-12-31 09:59").exit_code == 0
    assert run("pause", table.gamedir).exit_code == 0
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-25T12:00:00+00:00")
    result = run("resume", table.gamedir)
    assert result.exit_code == 0, result.output
    assert table.status()["deadline"] == "9999-12-31T09:59:00+00:00"


# -- tick over many games ----------------------------------------------------------------------
def test_tick_goes_on_past_a_game_it_cannot_read(tmp_path: Path) -> None:
    games = tmp_path / "games"
    good = Table(tmp_path / "good", players=3)
    bad = Table(tmp_path / "bad", players=3)
    games.mkdir()
    shutil.move(good.gamedir, games / "a-good")
    shutil.move(bad.gamedir, games / "b-bad")
    good.gamedir = games / "a-good"
    (games / "b-bad" / "turns" / "0001" / "state.json").write_text("{ not json")
    paths = [good.signed(p, good.legal(p), f"{p}.yaml") for p in good.status()["owed"]]
    assert run("submit", good.gamedir, *paths).exit_code == 0
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    from click.testing import CliRunner

    from adjudicator.cli import cli

    result = CliRunner().invoke(cli, ["tick", str(games), "--config", str(config)])
    assert result.exit_code == 75, result.output
    assert "cairo-2026: adjudicated turn 1" in result.stdout
    assert good.status()["turn"] == 2
    bad = games / "b-bad"
    assert (
        f"cairo-2026: left for a later run: {bad}: turns/0001/state.json no longer holds what "
        "the journal named"
    ) in result.stderr
    assert list((good.gamedir / "outbox").glob("*-report-2-alice.eml"))


def test_ingest_leaves_a_message_for_a_locked_game_and_takes_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mailbox

    from filelock import FileLock

    from adjudicator.store import gamedir as store
    from tests.helpers import order_mail

    games = tmp_path / "games"
    games.mkdir()
    tables = []
    for name in ("one", "two"):
        table = Table(tmp_path / name, players=3, game_id=f"game-{name}")
        shutil.move(table.gamedir, games / name)
        table.gamedir = games / name
        tables.append(table)
    one, two = tables
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    owing = {}
    for table, mid in ((one, "<one@mail>"), (two, "<two@mail>")):
        owing[mid] = player = next(iter(table.status()["owed"]))
        box.add(order_mail(table, player, table.legal(player), message_id=mid))
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    from click.testing import CliRunner

    from adjudicator.cli import cli

    with FileLock(str(one.gamedir / ".lock")):
        result = CliRunner().invoke(
            cli,
            ["ingest", str(games), "--maildir", str(tmp_path / "Maildir"), "--config", str(config)],
        )
    assert result.exit_code == 75, result.output
    assert f"<two@mail> game-two {owing['<two@mail>']} 1 accepted" in result.stdout
    assert "left for a later run" in result.stderr and "locked" in result.stderr
    assert one.status()["received"] == [] and two.status()["received"] == [owing["<two@mail>"]]
    unseen = [key for key, message in box.iteritems() if "S" not in message.get_flags()]
    assert len(unseen) == 1  # the locked game's message waits for the next run
    again = CliRunner().invoke(
        cli, ["ingest", str(games), "--maildir", str(tmp_path / "Maildir"), "--config", str(config)]
    )
    assert again.exit_code == 0, again.output
    assert one.status()["received"] == [owing["<one@mail>"]]


def test_one_run_at_a_time_reads_a_mailbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cron starts a tick every minute, and a long one overlaps the next: two runs then took
    the same messages (a second receipt, "refused: replay"; over IMAP, moves that met each
    other's and exits that blamed a setting). A run finds another reading the same mailbox and
    leaves its messages to it, and so holds its deadlines, as for any message left."""
    import mailbox

    from filelock import FileLock

    from adjudicator.mail import run as mail_run
    from tests.helpers import order_mail

    table = Table(tmp_path / "game", players=3)
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    player = next(iter(table.status()["owed"]))
    box.add(order_mail(table, player, table.legal(player), message_id="<m@mail>"))
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    args = ["--maildir", str(tmp_path / "Maildir"), "--config", str(config)]
    name = mail_run.source_name(mail_run.Source(maildir=tmp_path / "Maildir"), None)
    from click.testing import CliRunner

    from adjudicator.cli import cli

    with FileLock(str(mail_run.reading_lock(name))):
        result = CliRunner().invoke(cli, ["tick", str(table.gamedir), *args])
    assert result.exit_code == 75, result.output
    assert "another run is reading it" in result.stderr
    assert table.status()["received"] == []
    result = CliRunner().invoke(cli, ["tick", str(table.gamedir), *args])
    assert result.exit_code == 0, result.output
    assert f"<m@mail> cairo-2026 {player} 1 accepted" in result.output


def test_doctor_does_not_take_a_step_under_way_for_one_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """doctor read the game while another command's step wrote it: it named the step as cut
    short and its files as strays (exit 3), or ended in a traceback when mail it had listed
    moved on before it was read (exit 1). It takes the game's lock as a step does: a step under
    way is waited for (here, in vain: exit 4); once it is done, the game agrees."""
    from filelock import FileLock

    from adjudicator.store import gamedir as store

    table = Table(tmp_path, players=3)
    lines = len(_journal(table.gamedir))
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(table.gamedir / ".lock")):  # a step under way: its marker, a file written
        (table.gamedir / ".step").write_text(json.dumps({"kind": "adjudicate", "lines": lines}))
        (table.gamedir / "turns" / "0001" / "resolution.json").write_text("{}")
        result = run("doctor", table.gamedir)
        assert result.exit_code == 4 and "locked" in result.output, result.output
        (table.gamedir / ".step").unlink()  # the step undone, as its command would
        (table.gamedir / "turns" / "0001" / "resolution.json").unlink()
    assert _doctor(table.gamedir)[0] == 0


def test_a_game_found_locked_is_waited_for_once_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tick waited the whole lock timeout (30 s) again for each message and each step of a game
    another command held, so a locked game with a hundred messages waiting held the run for
    most of an hour. The first wait tells: the rest of the run leaves that game at once."""
    import mailbox

    import filelock

    from adjudicator.store import gamedir as store
    from tests.helpers import order_mail

    table = Table(tmp_path, players=3)
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    player = next(iter(table.status()["owed"]))
    for number in range(3):
        box.add(order_mail(table, player, table.legal(player), message_id=f"<m{number}@mail>"))
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    waits: list[float] = []

    class Counted(filelock.FileLock):
        def acquire(self, timeout: float | None = None, *args: Any, **kwargs: Any) -> Any:
            if Path(self.lock_file).parent == table.gamedir:
                waits.append(self.timeout if timeout is None else timeout)
            return super().acquire(timeout, *args, **kwargs)

    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    with filelock.FileLock(str(table.gamedir / ".lock")):
        monkeypatch.setattr(filelock, "FileLock", Counted)
        result = run("tick", table.gamedir, "--maildir", tmp_path / "Maildir", "--config", config)
    assert result.exit_code == 75, result.output
    assert len(waits) >= 2 and [w for w in waits if w > 0] == [0.2], waits
    unseen = [key for key, message in box.iteritems() if "S" not in message.get_flags()]
    assert len(unseen) == 3  # each message waits for the next run
    again = run("tick", table.gamedir, "--maildir", tmp_path / "Maildir", "--config", config)
    assert again.exit_code == 0, again.output  # the next run waits again, and takes them


def test_a_game_from_before_the_journal_named_files_is_adopted(tmp_path: Path) -> None:
    """A game made by an earlier version (no files in its journal, the queued turns in
    mail/reports.json) plays on: its files are named once, and no report is mailed again."""
    table = Table(tmp_path, players=3)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    log = table.gamedir / "log.jsonl"
    old = [{"type": "created", "at": NOW, "turn": 1}]
    log.write_text("".join(json.dumps(line) + "\n" for line in old))
    (table.gamedir / "mail" / "reports.json").write_text("[1]")
    mails = sorted(p.name for p in (table.gamedir / "outbox").iterdir())
    code, lines = _doctor(table.gamedir)
    assert code == 3 and "made by an older version" in lines[0]
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert sorted(p.name for p in (table.gamedir / "outbox").iterdir()) == mails
    assert _doctor(table.gamedir)[0] == 0
    assert [e["type"] for e in _journal(table.gamedir)] == ["created", "adopted"]
    table.play_turn()
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert len(list((table.gamedir / "outbox").glob("*-report-2-*.eml"))) == 3


def test_new_after_a_new_killed_while_writing_its_marker(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    shutil.rmtree(table.gamedir)
    table.gamedir.mkdir()
    (table.gamedir / ".lock").touch()
    (table.gamedir / "..step.k2j3l4.tmp").write_text('{"kind": "ne')
    result = run("new", table.gamedir, "--setup", table.setup_path)
    assert result.exit_code == 0, result.output
    assert _doctor(table.gamedir)[0] == 0


@pytest.mark.parametrize(
    "command", [["adjudicate"], ["submit", "order.yaml"], ["pause"], ["rollback"]]
)
def test_a_step_on_a_folder_that_is_no_game_writes_nothing(
    tmp_path: Path, command: list[str]
) -> None:
    folder = tmp_path / "not-a-game"
    folder.mkdir()
    (tmp_path / "order.yaml").write_text("id: x\n")
    args = [command[0], folder, *(tmp_path / a for a in command[1:])]
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "not a game directory" in result.output
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("log.jsonl", '{"type": "adjudicated"}\n'),
        ("log.jsonl", '{"type": "submitted", "orders": 7}\n'),
        (".step", "[1, 2]"),
    ],
)
def test_doctor_names_a_journal_or_marker_it_cannot_read(
    tmp_path: Path, where: str, text: str
) -> None:
    table = Table(tmp_path, players=3)
    with (table.gamedir / where).open("a") as handle:
        handle.write(text)
    code, lines = _doctor(table.gamedir)
    assert code == 3, lines
    assert any(line.startswith(f"{table.gamedir}/{where}: ") for line in lines), lines


@pytest.mark.seconds
def test_ctrl_c_is_an_interruption_not_a_bug(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) ends a command with the shell's 130 and says so, never click's exit 1
    (which means a bug here); the next command settles a step it cut short."""
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "adjudicator", "demo", "sultan", "--dir", tmp_path / "d"]
    running = subprocess.Popen(  # not from the source tree, which -m would put first on the path
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )
    with running:  # its pipes closed and the demo ended, whatever the test finds
        try:
            # inside the game's commands: once its journal exists, some 30 turns are left to
            # play (a fixed delay raced a demo that grew faster)
            journal = tmp_path / "d" / "game" / "log.jsonl"
            deadline = time.monotonic() + 60
            while not journal.exists() and running.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert running.poll() is None, "the demo ended before its game began"
            running.send_signal(signal.SIGINT)
            out, err = running.communicate(timeout=60)
        finally:
            if running.poll() is None:
                running.kill()
    # 130, or ended by SIGINT itself (which shells report as 130): Python chooses the latter
    # when the Ctrl-C landed in code it compiles at run time (a dataclass's methods)
    assert running.returncode in (130, -signal.SIGINT), (out, err)
    assert b"interrupted" in err
    assert b"Traceback" not in err


SWALLOWED = """
import os, signal, sys
import click
from adjudicator.store import failpoint

class Pressed:
    def __del__(self):  # Python prints what is raised here as "Exception ignored", and goes on
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            pass

where, durable, pressed = sys.argv[1], 0, []

def reached(kind):
    global durable
    durable += 1
    if where == f"durable {durable}":
        Pressed()

def echo(*args, **kwargs):
    if where == "shown" and not pressed:
        pressed.append(Pressed())
        pressed.clear()
    shows(*args, **kwargs)

def render_page(*args, **kwargs):
    if where == "drawn" and not pressed:
        pressed.append(Pressed())
        pressed.clear()
    return renders(*args, **kwargs)

failpoint.reached = reached
shows, click.echo = click.echo, echo
from adjudicator.present import site
renders, site.render_page = site.render_page, render_page
sys.argv[1:] = sys.argv[2:]
from adjudicator.cli import main
main()
"""


@pytest.mark.seconds
@pytest.mark.parametrize("where", ["durable 5", "durable 60"])
def test_a_ctrl_c_python_would_lose_still_ends_the_command(tmp_path: Path, where: str) -> None:
    """A Ctrl-C that lands where Python only prints it and goes on (a ``__del__`` method, a
    weakref callback, the garbage collector) ends the command at its next step all the same."""
    command = ["demo", "sultan", "--dir", "d"]
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED, where, *command],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert b"Exception ignored" in done.stderr, done.stderr  # the Ctrl-C did land there
    assert done.returncode in (130, -2), (done.stdout[-300:], done.stderr)
    assert b"interrupted" in done.stderr
    assert b"game is over" not in done.stdout


@pytest.mark.seconds
def test_a_ctrl_c_python_would_lose_ends_a_site_before_its_next_turn(tmp_path: Path) -> None:
    """The site makes no step: it looks for a lost Ctrl-C before each turn's pages."""
    import subprocess
    import sys

    from adjudicator import demo

    game = demo.run("sultan", 2, 1, tmp_path / "d", lambda _line: None, site=False)
    command = [sys.executable, "-c", SWALLOWED, "drawn", "site", str(game), "-o", "out"]
    done = subprocess.run(command, capture_output=True, cwd=tmp_path, timeout=120)
    assert b"Exception ignored" in done.stderr, done.stderr
    assert done.returncode in (130, -2), done.stderr
    assert not (tmp_path / "out").exists()


def test_a_command_that_got_its_work_done_keeps_its_exit_code(tmp_path: Path) -> None:
    """A Ctrl-C lost while the last words were printed: the work is done, and exit 0 says so."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED, "shown", "games"], capture_output=True, cwd=tmp_path
    )
    assert b"Exception ignored" in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert b"sultan" in done.stdout


def test_an_archive_of_a_game_whose_send_was_killed_finishes_the_send_first(
    tmp_path: Path,
) -> None:
    """A send killed after it moved mail on, before its journal line: archive (the nightly
    backup) said the journal names mail that is not there and refused (exit 4), until some
    other command changed the game. Under the game's lock it now finishes or undoes the step
    first, as every command that changes a game does, and archives the game; it verifies."""
    from tests.crashing import fork_run

    table = Table(tmp_path, players=3)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    before = tmp_path / "before"
    shutil.copytree(table.gamedir, before, symlinks=True)
    counted = fork_run(["send", str(table.gamedir), "--config", str(config)], {})
    assert counted.code == 0, counted.printed
    last_journal = max(i for i, kind in enumerate(counted.kinds, 1) if kind == "journal")
    shutil.rmtree(table.gamedir)
    shutil.copytree(before, table.gamedir, symlinks=True)
    killed = fork_run(
        ["send", str(table.gamedir), "--config", str(config)], {}, kill_at=last_journal
    )
    assert killed.code < 0 and (table.gamedir / ".step").exists(), killed.printed
    out = tmp_path / "a.json"
    result = run("archive", table.gamedir, "-o", out)
    assert result.exit_code == 0, result.output
    assert not (table.gamedir / ".step").exists()
    assert _doctor(table.gamedir)[0] == 0
    checked = run("verify", out)
    assert checked.exit_code == 0, checked.output
