"""The journal's summary kept in the user's cache folder (adjudicator/store/summary.py): it says
what the whole journal read from its first line says, at every step of a game; a damaged, stale
or foreign entry is not used; a journal edited before the summarised point is read again (and
is refused where it was before); a command on a long game reads only the lines after it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from adjudicator.engine.open_game import OpenGame
from adjudicator.store import gamedir, journal, summary, usercache
from adjudicator.store.gamedir import GameDir
from tests.helpers import DEMO_NO_SITE, Table, run, ssh_sign, summary_as_it_is


def the_whole_fold(root: Path) -> tuple[journal.Facts, dict, journal.Clock]:
    """What the journal says read from its first line, without any summary."""
    store = GameDir(root)
    log = store.log()
    facts = journal.facts(log)
    meta = journal.seats(store.created(), log, store.read_json)
    return facts, meta, journal.clock(log, facts.turn)


def assert_summary_is_the_fold(root: Path) -> None:
    kept = GameDir(root).summary()
    facts, meta, clock = the_whole_fold(root)
    assert asdict(kept.facts) == asdict(facts)
    assert kept.meta() == meta
    assert asdict(kept.clocks.result(facts.turn)) == asdict(clock)
    handle = OpenGame(root)
    assert asdict(handle.clock()) == asdict(clock)
    assert handle.log == GameDir(root).log()


def assert_summaries_handed_out_never_change(root: Path) -> None:
    """Read the journal of the game at ``root`` on line by line in this process, each line into
    a copy of the summary handed out before it: every summary handed out stays as it was, each
    line of every kind the journal holds read into the next one; the last is the whole fold."""
    store = GameDir(root)
    data = store.log_bytes()
    created = store.read_bytes("game.json")
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    summary._KEPT.clear()
    handed = []
    for end in ends:
        kept = summary.summary(root, data[:end], created, store.read_bytes)
        assert kept.end == end
        handed.append((kept, summary_as_it_is(kept)))
    assert len({id(kept) for kept, _ in handed}) == len(ends), "each line read into a new one"
    for line, (kept, as_handed) in enumerate(handed, start=1):
        assert summary_as_it_is(kept) == as_handed, f"changed after line {line}"
    assert_summary_is_the_fold(root)


def revise(table: Table, player: str, name: str) -> None:
    """``player`` sends their order again (other bytes: a comment that names the revision)."""
    path = table.write(name, table.order_text(player, table.legal(player)) + f"# {name}\n")
    ssh_sign(table.keys[player], path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0, result.output


def entry(root: Path) -> Path:
    return usercache.folder("summary") / f"{usercache.game_key(root)}.bin"


def test_the_summary_says_what_the_whole_journal_says_at_every_step(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, schedule={"deadline": "48h"})
    assert_summary_is_the_fold(table.gamedir)
    steps = [
        ("pause", table.gamedir),
        ("resume", table.gamedir),
        ("extend", table.gamedir, "--by", "24h"),
    ]
    for step in steps:
        assert run(*step).exit_code == 0
        assert_summary_is_the_fold(table.gamedir)
    for _ in range(2):
        table.play_turn()
        assert_summary_is_the_fold(table.gamedir)
    player = next(iter(table.status()["owed"]))
    for revision in range(3):
        revise(table, player, f"again-{revision}.yaml")
        assert_summary_is_the_fold(table.gamedir)
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 0
    assert_summary_is_the_fold(table.gamedir)
    table.play_turn()
    assert_summary_is_the_fold(table.gamedir)
    assert run("rollback", table.gamedir).exit_code == 0
    assert_summary_is_the_fold(table.gamedir)
    replace = ["replace", table.gamedir, "--player", "bob", "--email", "bob2@example.org"]
    assert run(*replace).exit_code == 0
    assert_summary_is_the_fold(table.gamedir)
    assert_summaries_handed_out_never_change(table.gamedir)


@pytest.mark.seconds  # a whole demo
def test_no_summary_handed_out_changes_in_a_game_of_commitments_press_and_absences(
    tmp_path: Path,
) -> None:
    """The lines of commitments and reveals, press, an absence and every turn of a whole game,
    read on one by one."""
    from adjudicator import demo

    options = {"sealing": "commit-reveal", "press": "public", "absence": "default"}
    gamedir = demo.run("sultan", 3, 4, tmp_path / "d", lambda _line: None, options=options)
    kinds = {line["type"] for line in GameDir(gamedir).log()}
    assert {"submitted", "adjudicated"} <= kinds, kinds
    facts = GameDir(gamedir).facts()
    assert facts.committed and facts.revealing and facts.notices
    assert_summaries_handed_out_never_change(gamedir)


def test_a_summary_read_on_from_any_point_is_the_whole_fold(tmp_path: Path) -> None:
    """The summary kept after each line, read on to the end, says what the whole journal says."""
    table = Table(tmp_path, players=3)
    table.play_turn()
    table.play_turn()
    store = GameDir(table.gamedir)
    data = store.log_bytes()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    created = store.read_bytes("game.json")
    for end in ends:
        entry(table.gamedir).unlink(missing_ok=True)
        summary.summary(table.gamedir, data[:end], created, store.read_bytes)
        assert_summary_is_the_fold(table.gamedir)


def test_a_damaged_or_foreign_summary_is_not_used(tmp_path: Path) -> None:
    one = Table(tmp_path / "one", players=3)
    other = Table(tmp_path / "other", players=3)
    other.play_turn()
    GameDir(one.gamedir).summary()
    GameDir(other.gamedir).summary()
    kept = entry(one.gamedir).read_bytes()
    entry(one.gamedir).write_bytes(kept[:-10] + b"0123456789")  # damaged
    assert_summary_is_the_fold(one.gamedir)
    entry(one.gamedir).write_bytes(b"not a summary at all")
    assert_summary_is_the_fold(one.gamedir)
    entry(one.gamedir).write_bytes(entry(other.gamedir).read_bytes())  # another game's
    assert_summary_is_the_fold(one.gamedir)
    assert GameDir(one.gamedir).facts().turn == 1


def test_a_journal_edited_before_the_summarised_point_is_read_again_and_refused(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    assert table.status()["turn"] == 2  # the summary is kept
    log = table.gamedir / gamedir.LOG
    lines = log.read_bytes().splitlines(keepends=True)
    middle = json.loads(lines[1])
    assert middle["type"] == "submitted"
    assert len(middle["orders"]) == 1
    middle["orders"] = []  # the order taken out
    edited = json.dumps(middle, sort_keys=True, ensure_ascii=False).encode() + b"\n"
    log.write_bytes(b"".join([lines[0], edited, *lines[2:]]))
    assert_summary_is_the_fold(table.gamedir)
    assert GameDir(table.gamedir).facts().in_effect[1] == {}
    result = run("doctor", table.gamedir)
    assert result.exit_code != 0
    assert "line 3 does not follow the line before it" in result.output, result.output


def test_a_command_on_a_long_game_reads_only_the_lines_after_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    for revision in range(6):
        revise(table, player, f"again-{revision}.yaml")
    table.status()  # the summary is kept up to here
    revise(table, player, "last.yaml")
    fed: list[int] = []
    real_feed = journal.Facts.feed

    def feed(self: journal.Facts, line: dict) -> None:
        fed.append(1)
        real_feed(self, line)

    def log(self: GameDir) -> list:
        raise AssertionError("the whole journal was read")

    monkeypatch.setattr(journal.Facts, "feed", feed)
    monkeypatch.setattr(GameDir, "log", log)
    for command in (
        ["status", table.gamedir],
        ["view", table.gamedir, "--player", player],
        ["report", table.gamedir, "--player", player],
    ):
        fed.clear()
        result = run(*command)
        assert result.exit_code == 0, result.output
        assert len(fed) <= 1, command  # the submit's line, once
    fed.clear()
    revise(table, player, "after.yaml")
    assert len(fed) == 0  # nothing new to read: the step's line is read by the next command


def test_a_process_keeps_few_journals_parsed(tmp_path: Path) -> None:
    gamedir._LOGS.clear()
    for number in range(gamedir.KEEP_LOGS + 5):
        root = tmp_path / f"game-{number}"
        root.mkdir()
        (root / gamedir.LOG).write_text('{"type": "created"}\n')
        assert GameDir(root).log() == [{"type": "created"}]
    assert len(gamedir._LOGS) == gamedir.KEEP_LOGS


def test_a_summary_handed_out_stays_as_the_journal_stood(tmp_path: Path) -> None:
    """A step asks for its game's summary several times; what it was handed before a line was
    written is not read on under its feet."""
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    before = GameDir(table.gamedir).summary()
    lines = before.facts.lines
    assert GameDir(table.gamedir).summary() is before  # asked again: the same, not read again
    revise(table, player, "again.yaml")
    after = GameDir(table.gamedir).summary()
    assert (before.facts.lines, after.facts.lines) == (lines, lines + 1)
    assert player not in before.facts.in_effect[1] and player in after.facts.in_effect[1]


def test_a_command_of_several_steps_reads_on_from_its_own_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a step, the next reads on from the summary this process holds, not from the cache
    folder; and what it reads on is a copy: the summary handed out before is unchanged."""
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    revise(table, player, "first.yaml")
    before = GameDir(table.gamedir).summary()
    lines = before.facts.lines

    def read(entry: Path) -> bytes | None:
        raise AssertionError(f"{entry} was read")

    monkeypatch.setattr(usercache, "read", read)
    for revision in range(3):
        revise(table, player, f"again-{revision}.yaml")
        assert_summary_is_the_fold(table.gamedir)
    assert GameDir(table.gamedir).summary().facts.lines == lines + 3
    assert before.facts.lines == lines
    monkeypatch.undo()
    summary._KEPT.clear()  # a new command: it reads on from the entry the last step kept
    assert_summary_is_the_fold(table.gamedir)
    assert GameDir(table.gamedir).summary().facts.lines == lines + 3


def test_the_copy_read_on_into_knows_every_field_of_the_folds() -> None:
    """A summary is read on into a copy that has its own lists, dicts and sets field by field
    (``summary._copy``, and ``Clock.copy`` for a turn's clock): a field added to the facts, a
    turn's clock, a fold or the summary is to be copied there too, and named here (or this
    fails)."""
    assert {f.name for f in fields(journal.Facts)} == {
        *("turn", "lines", "announced", "welcomed", "signup_told"),  # numbers
        *("names_files", "asked_shares", "started", "closed"),  # flags
        *("signup", "ended"),  # a line's own value, replaced, never changed
        *("files", "in_effect", "committed", "revealing", "accepted", "notices", "processed"),
        "queued",  # each copied
    }
    assert {f.name for f in fields(journal.Clock)} == {
        *("turn", "opened", "deadline", "paused_since", "mail_since", "rolled_back"),
        *("reminded", "waited", "mail_held", "stood"),  # each copied
    }
    assert set(vars(journal.ClockFold())) == {
        *("states", "paused", "resumed_from", "held", "since", "again")
    }
    assert set(vars(journal.SeatsFold({"players": []}, {}))) == {"meta", "joins", "by_name"}
    named = {"end", "digest", "created", "read", "facts", "seats", "clocks"}
    assert {f.name for f in fields(summary.Summary)} == named


def test_a_clock_handed_out_is_the_callers_own() -> None:
    """What ``ClockFold.result`` hands out may be changed: the next one is as the lines left
    it, every list and set of it too."""
    at, later = "2026-12-01T10:00:00+00:00", "2026-12-01T11:00:00+00:00"
    fold = journal.ClockFold()
    for line in [
        {"type": "created", "at": at, "turn": 1, "deadline": "2026-12-03T10:00:00+00:00"},
        {"type": "reminded", "at": at, "turn": 1, "deadline": at, "before": "1h"},
        {"type": "waiting", "at": at, "turn": 1, "deadline": at},
        {"type": "paused", "at": at, "turn": 1},
        {"type": "resumed", "at": later, "turn": 1},
    ]:
        fold.feed(line)
    first = fold.result(1)
    assert first.reminded and first.waited and first.stood, first
    kept = asdict(first)
    first.reminded.append(first.reminded[0])
    first.waited.clear()
    first.stood.append(first.stood[0])
    first.mail_held.add("mail/queue/0001-report-alice.eml")
    first.deadline = None
    assert asdict(fold.result(1)) == kept


def test_a_command_of_many_steps_keeps_the_summary_once_as_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo reads its journal on after each of its 60 or so steps, in this process, and
    writes the summary to the cache folder once, as the command ends; the next command reads
    on from there, with nothing left to read."""
    written: list[Path] = []
    real_write = usercache.write

    def write(path: Path, data: bytes, *, keep: int | None) -> bool:
        if path.parent.name == "summary":
            written.append(path)
        return real_write(path, data, keep=keep)

    monkeypatch.setattr(usercache, "write", write)
    result = run(*DEMO_NO_SITE, "sultan", "--players", 3, "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    gamedir = tmp_path / "d" / "game"
    assert written == [entry(gamedir)]
    summary._KEPT.clear()  # a new command
    fed: list[int] = []
    real_feed = journal.Facts.feed

    def feed(self: journal.Facts, line: dict) -> None:
        fed.append(1)
        real_feed(self, line)

    monkeypatch.setattr(journal.Facts, "feed", feed)
    assert run("status", gamedir).exit_code == 0
    assert fed == []
    assert written == [entry(gamedir)], "nothing read on: nothing written again"


def test_the_cache_folder_follows_the_variables_it_is_found_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("one", "two", "one"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / name))
        assert usercache.folder("summary") == tmp_path / name / "adjudicator" / "summary"


def test_a_process_keeps_few_names_of_games(tmp_path: Path) -> None:
    usercache._NAMED.clear()
    names = {usercache.game_key(tmp_path / f"game-{n}") for n in range(usercache.NAMED + 5)}
    assert len(names) == usercache.NAMED + 5
    assert len(usercache._NAMED) == usercache.NAMED
    assert usercache.game_key(tmp_path / "game-0") in names, "a name dropped is made again"


def test_a_queued_report_counts_for_its_own_turn_alone() -> None:
    """The clocks of every turn are read at once: a player's queued report is its turn's."""
    assert journal.report_turn("mail/queue/000007-report-12-bob.eml") == 12
    assert journal.report_turn("mail/queue/000007-report-2-bob-smith.eml") == 2
    assert journal.report_turn("mail/queue/000010-report-2-gm.eml") is None  # the gm's copy
    assert journal.report_turn("mail/queue/000007-report-02-bob.eml") is None
    assert journal.report_turn("mail/queue/000007-welcome-bob.eml") is None
    assert journal.report_turn("mail/sent/000007-report-2-bob.eml") is None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n",
        b'{"type": "created"}',
        b'\n\n{"type": "created"}\n{"type": "paused"}\ntorn',
        b'{"type": "created"}\r\n{"type": "paused"}\r\n',
        b'{"type": "created"}\n{"type": "paused", "x": "' + b"y" * 300_000 + b'"}\n' + b"z" * 99,
        b"\n" * 100_000 + b'{"type": "created"}\n',
    ],
)
def test_the_head_and_the_first_line_are_read_from_the_journals_ends(
    tmp_path: Path, data: bytes
) -> None:
    """``head`` reads the journal's end and ``exists`` its start, and find what reading the whole
    journal finds (lines longer than a block, a torn last line, CRLF)."""
    (tmp_path / gamedir.LOG).write_bytes(data)
    (tmp_path / "game.json").write_text("{}")
    store = GameDir(tmp_path)
    lines = data[: data.rfind(b"\n") + 1].splitlines(keepends=True)
    assert store.head() == (hashlib.sha256(lines[-1]).hexdigest() if lines else gamedir.GENESIS)
    entries = store.log()
    assert store.exists() == (bool(entries) and entries[0].get("type") == "created")
