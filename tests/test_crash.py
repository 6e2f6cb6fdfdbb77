"""Crash at any instant, lose nothing: every command that changes a game, killed with SIGKILL.

One game of At the Sultan's Court (two rounds) is played by commands: new, send, submit, the
game master's commands, adjudicate, rollback, ingest, press, an absence that moves the deadline,
votes, and a tick that ends the game by the draw agreed. Then each command is killed at many
instants (at failpoints spread over its durable operations, and after random delays), the next
command runs, ``doctor`` must be clean right after it, and the game plays on (three commands
past the killed one in the suite, to its end under ``make crash``): its record and status must
then equal the unkilled game's at the same command, and every mail must go out exactly once. A
kill after which the next command leaves the game byte for byte as an earlier kill of the same
command did is not played on again: the earlier one was, and was found right
(``tests.crashing.played_on``). A
second test kills ``send`` over a real SMTP server: no mail twice, and a mail is missing only
when it stays "in doubt". The game is played once per worker of the suite; its kills are shared
out in ``PARTS`` tests. The second test kills ``send`` at the failpoints the same rule chooses,
and after ten random delays.

Which failpoints are tried (``tests.crashing.kind_sample``): every failpoint has a kind, the
durable operation it stands before or after (``write``, ``written``, ``renamed``, ``journal``,
``journaled``, ``unmark``, ``move``, ``smtp data``, ``smtp answered``: the ``where`` of
``adjudicator/store/failpoint.py``'s ``reached``), and the unkilled run notes the kind of each.
Each command of the game is killed at the first failpoint of each kind of durable operation it
reaches, and at its last failpoint (after its last journal line): every command at every kind of
durable operation. Besides, each command is killed once after a random delay, anywhere in its
run. ``test_every_command_and_kind_is_killed`` fails when a (command, kind) pair is left out.
Why not more in the suite: each kill plays the game on (the ``send`` and ``tick`` after it
render every report), which played to the game's end took some 4 CPU-seconds a kill.
``ADJUDICATOR_CRASH_RUNS=N`` adds N failpoints per command spread over all of them (the first,
the last, the others drawn) and N // 6 timed kills (at most 12); ``make crash`` sets 1000: every
failpoint of every command, some 800 kills, so every instant of every kind.

The order page's judging of every combination of choices, most of the time of a ``send`` or
``tick`` of this game and a pure function that writes nothing, is remembered from run to run
(``tests.crashing._remembered_order_tables``): each command writes, journals and mails exactly
as before, at the same failpoints, and the delays of the timed kills are drawn over the time of
the runs with it remembered.
"""

from __future__ import annotations

import hashlib
import json
import mailbox
import os
import random
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path

import pytest

from adjudicator.engine import queries
from adjudicator.engine.open_game import OpenGame
from tests.crashing import (
    RUNS,
    Script,
    chosen_points,
    keep,
    kill_run,
    kind_sample,
    on_both_cores,
    played_on,
    uncovered,
    until,
)
from tests.helpers import Table, order_mail
from tests.smtpserver import PASSWORD, USER, Authority, Server, running_server
from tests.smtpserver import authority as authority

pytestmark = pytest.mark.slow  # every command killed at every point (`make quick` leaves it out)

NOW = "2026-11-25T10:00:00+00:00"
Mails = Counter[tuple[str, ...]]


def _config(path: Path, server: Server | None) -> Path:
    smtp = ""
    if server is not None:
        smtp = (
            f'[smtp]\nhost = "{server.host}"\nport = {server.port}\nuser = "{USER}"\n'
            f'tls = "starttls"\nca_file = "{server.ca_file}"\npassword_env = "TEST_SMTP_PASSWORD"\n'
        )
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n' + smtp)
    return path


def _court_game(tmp_path: Path) -> Script:
    """The game played unkilled, command by command (orders are signed as it goes)."""
    table = Table(
        tmp_path,
        players=4,
        game="sultans_court",
        schedule={"deadline": "48h"},
        max_rounds=2,
        press="private",
        absence="extend",
    )
    shutil.rmtree(table.gamedir)
    config = _config(tmp_path / "mail.toml", None)
    script = Script(table.gamedir, [], {"ADJUDICATOR_NOW": NOW}, tmp_path / "snapshots")
    os.environ.update(script.env)
    game = str(table.gamedir)

    def signed(player: str, turn: int) -> Path:
        return table.signed(player, table.legal(player), f"t{turn}-{player}.yaml")

    script.run("new", game, "--setup", table.setup_path)
    script.run("send", game, "--config", config)
    script.run("submit", game, signed("alice", 1), signed("bob", 1))
    script.run("extend", game, "--by", "24h")
    script.run("pause", game)
    script.run("resume", game)
    away = table.notice("carol", "absence:\n  from: 2026-11-28\n  to: 2026-11-28\n", "away.yaml")
    script.run("absence", game, away)  # moves the deadline (absence: extend)
    script.run("submit", game, signed("carol", 1), signed("dave", 1))
    script.run("adjudicate", game)
    script.run("send", game, "--config", config)
    script.run("rollback", game)
    script.run("adjudicate", game)
    script.run("replace", game, "--player", "bob", "--email", "bob2@example.org")
    box = mailbox.mbox(tmp_path / "orders.mbox")
    for player in ("alice", "bob"):
        box.add(order_mail(table, player, table.legal(player), message_id=f"<{player}.2@mail>"))
    box.close()
    script.run("ingest", game, "--mbox", tmp_path / "orders.mbox", "--config", config)
    script.run("submit", game, signed("carol", 2))
    script.run("resign", game, "--player", "dave")
    press = table.notice("alice", "press:\n  to: [bob]\n  text: Kaffa is mine.\n", "press.yaml")
    script.run("press", game, press)
    votes = [table.notice(p, "vote: draw\n", f"{p}-draw.yaml") for p in ("alice", "bob", "carol")]
    script.run("submit", game, *votes)
    script.run("tick", game, "--config", config)  # the draw agreed ends the game at once
    keep(script.gamedir, script.snapshot(len(script.commands)))
    return script


def _end(gamedir: Path) -> tuple[str, str, str]:
    """The game's record and status, and what its seats and orders are (which a record of a
    game not over keeps to itself): a `new` killed and run again draws another salt (and so
    another seed commitment and other digests); all else is the same."""
    status = queries.status(gamedir)
    record = {k: v for k, v in queries.record(gamedir).items() if k not in ("salt", "commitment")}
    handle = OpenGame(gamedir)
    seats = [[p["name"], p.get("email"), p.get("key")] for p in handle.meta["players"]]
    orders = {
        turn: {
            player: hashlib.sha256(
                handle.dir.read_bytes(f"{handle.dir.turn_dir(turn)}/orders/{entry['file']}")
            ).hexdigest()
            for player, entry in in_effect.items()
        }
        for turn, in_effect in handle.facts.in_effect.items()
    }
    held = json.dumps({"seats": seats, "orders": orders}, sort_keys=True)
    return json.dumps(record, sort_keys=True), json.dumps(status, sort_keys=True), held


_HEADERS = BytesHeaderParser(policy=policy.default)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def _to_and_subject(data: bytes) -> tuple[str, str]:
    """Whom a mail is to and its subject, read from its header alone: a report's body (its HTML
    and pictures) is most of its bytes, and parsing it was a tenth of the suite's time."""
    blank = _BLANK_LINE.search(data)
    message = _HEADERS.parsebytes(data[: blank.end()] if blank else data)
    return str(message["To"]), str(message["Subject"])


MAIL_FOLDERS = ("mail/queue", "mail/withdrawn", "mail/sending", "mail/sent", "mail/failed")


def _outbox(gamedir: Path, folders: tuple[str, ...] = ()) -> Mails:
    """The mail written to the outbox (no SMTP server in this game), by recipients and subject;
    with ``folders``, also the mail in those, by folder too."""
    found: Mails = Counter()
    for folder in ("outbox", *folders):
        for path in (gamedir / folder).glob("*.eml"):
            where = (folder,) if folders else ()
            found[(*where, *_to_and_subject(path.read_bytes()))] += 1
    return found


PARTS = 6
"""The kills of the first test, in this many parts, so that the suite's workers share them."""
Work = tuple[int, int | None, float | None]


@dataclass
class Plan:
    """The unkilled game, what it ended as, and every kill to try."""

    script: Script
    reference: dict[int, tuple[str, str, str]]
    """The unkilled game's record, status, seats and orders before each command a kill stops
    playing at."""
    expected: dict[int, Mails]
    """The mail each command and those it plays on write to the outbox (up to ``until``)."""
    mail: dict[int, Mails]
    """Every mail of the unkilled game before each command a kill stops playing at, where it
    is (queued, withdrawn, being sent, sent, failed, in the outbox)."""
    work: list[Work]


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plan]:
    saved = dict(os.environ)
    try:
        script = _court_game(tmp_path_factory.mktemp("court"))
        outcomes = list(zip(script.commands, script.outcomes, strict=True))
        done = [(c[0], o.code, o.output) for c, o in outcomes]
        assert [code for _, code, _ in done] == [0] * len(done), done
        # every command reaches failpoints, and the program counts them as the test does: a
        # count of 0 would leave the kills at failpoints out without a word
        counted = [(c[0], o.failpoints, o.reached) for c, o in outcomes]
        assert all(counts == seen > 0 for _, counts, seen in counted), counted
        final = _end(script.snapshot(len(script.commands)))
        assert json.loads(final[1])["over"] is True
        assert json.loads(final[1])["ended"]["by"] == "draw"
        stops = {index: until(script, index) for index in range(len(script.commands))}
        reference = {stop: _end(script.snapshot(stop)) for stop in set(stops.values())}
        mail = {stop: _outbox(script.snapshot(stop), MAIL_FOLDERS) for stop in set(stops.values())}
        script.timed_again()
        rng = random.Random(2026)
        work: list[Work] = []
        for index, outcome in enumerate(script.outcomes):
            assert len(outcome.kinds) == outcome.failpoints, (index, outcome.kinds)
            work += [(index, point, None) for point in chosen_points(outcome.kinds, rng)]
            timed = min(max(1, RUNS // 6), 12)
            work += [(index, None, rng.uniform(0, outcome.seconds)) for _ in range(timed)]
        expected = {
            index: _outbox(script.snapshot(stop)) - _outbox(script.snapshot(index))
            for index, stop in stops.items()
        }
        assert len(work) >= 100
    finally:  # the game's fixed clock is this module's alone
        os.environ.clear()
        os.environ.update(saved)
    yield Plan(script, reference, expected, mail, work)


def test_every_command_and_kind_is_killed(plan: Plan) -> None:
    """The sample holds the rule of the module's docstring: every command of the game is killed
    at the first failpoint of each kind of durable operation it reaches, and at its last
    failpoint; and every failpoint aimed at is one the command reaches."""
    aimed: dict[int, list[int]] = {}
    for index, point, _ in plan.work:
        if point is not None:
            aimed.setdefault(index, []).append(point)
    missing = {}
    for index, outcome in enumerate(plan.script.outcomes):
        kinds = outcome.kinds
        assert {"write", "journal", "journaled", "unmark"} <= set(kinds), (index, kinds)
        points = aimed.get(index, [])
        assert all(1 <= point <= len(kinds) for point in points), (index, points)
        if gaps := uncovered(kinds, points):
            missing[f"{index} {plan.script.commands[index][0]}"] = gaps
    assert missing == {}
    # the rule itself: the first failpoint of each kind, and the last
    kinds = ["write", "written", "renamed", "journal", "move", "write", "smtp data", "journaled"]
    assert kind_sample(kinds) == [1, 2, 3, 4, 5, 7, 8]
    kinds = ["write", "written", "renamed"] * 3 + ["journal", "journaled", "unmark", "write"]
    assert kind_sample(kinds) == [1, 2, 3, 10, 11, 12, 13]
    assert uncovered(kinds, [1, 2, 3, 10, 11, 12]) == ["the last failpoint (13)"]
    assert uncovered(kinds, [4, 5, 6, 7, 8, 9, 10, 11, 12, 13]) == [
        "write: its first failpoint (1)",
        "written: its first failpoint (2)",
        "renamed: its first failpoint (3)",
    ]


@pytest.mark.parametrize("part", range(PARTS))
def test_every_command_killed_at_any_instant_loses_nothing(
    plan: Plan, part: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in plan.script.env.items():
        monkeypatch.setenv(name, value)

    def check(playing: Script, item: Work) -> str | None:
        index, kill_at, kill_after = item
        run = kill_run(playing, index, kill_at=kill_at, kill_after=kill_after)
        where = f"command {index} ({playing.commands[index][0]}), {run.how}"
        if (missed := run.missed()) is not None:
            return f"{where}: {missed}"
        if run.doctor.problems:
            return f"{where}: doctor after the next command: {run.doctor.problems}"
        if run.repeat:  # this game, played on from here, was found right already
            return None
        if _end(playing.gamedir) != plan.reference[run.until]:
            return f"{where}: the game stood otherwise before command {run.until}"
        mailed = _outbox(playing.gamedir) - _outbox(playing.snapshot(index))
        if mailed != plan.expected[index]:
            return f"{where}: mailed {mailed}, not {plan.expected[index]}"
        held = _outbox(playing.gamedir, MAIL_FOLDERS)
        if held != plan.mail[run.until]:  # a receipt queued twice, a report never queued
            unlike = (held - plan.mail[run.until]) + (plan.mail[run.until] - held)
            return f"{where}: the mail held differs before command {run.until}: {unlike}"
        played_on(playing, run)
        return None

    mine = plan.script.elsewhere(plan.script.gamedir.with_name(f"part-{part}"))
    assert on_both_cores(plan.work[part::PARTS], check, mine) == []


def test_a_kill_that_leaves_the_game_as_one_found_right_is_not_played_on_again(
    plan: Plan, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in plan.script.env.items():
        monkeypatch.setenv(name, value)
    playing = plan.script.elsewhere(tmp_path / "game")
    index = next(i for i, command in enumerate(playing.commands) if command[0] == "extend")
    first = kill_run(playing, index, kill_at=1)
    assert first.killed and first.state and not first.repeat
    after = (tmp_path / "game" / "log.jsonl").read_bytes()
    assert kill_run(playing, index, kill_at=1).repeat is False  # nothing noted yet
    played_on(playing, first)
    again = kill_run(playing, index, kill_at=1)
    assert again.repeat and again.state == first.state and not again.doctor.problems
    # it stopped right after the command that followed the kill: one command less played
    assert len((tmp_path / "game" / "log.jsonl").read_bytes()) < len(after)
    other = kill_run(playing, index, kill_at=len(plan.script.outcomes[index].kinds))
    assert other.state != first.state and not other.repeat
    # the same kill of a game that differs in one file's bytes alone (the lock file, which no
    # command reads): the same commands are played, and it is no repeat
    changed = Script(playing.gamedir, playing.commands, playing.env, tmp_path / "changed")
    keep(playing.snapshot(index), changed.snapshot(index))
    (changed.snapshot(index) / ".lock").write_bytes(b"x")
    other = kill_run(changed, index, kill_at=1)
    assert other.killed and other.retried == first.retried
    assert other.state != first.state and not other.repeat


@pytest.fixture
def smtp(authority: Authority) -> Iterator[Server]:
    with running_server(authority, "starttls") as server:
        yield server


def _received(server: Server, since: int = 0) -> Mails:
    found: Mails = Counter()
    for received in server.received[since:]:
        found[_to_and_subject(received.data)] += 1
    return found


def _in_doubt(gamedir: Path) -> Mails:
    found: Mails = Counter()
    for path in (gamedir / "mail" / "sending").glob("*.eml"):
        found[_to_and_subject(path.read_bytes())] += 1
    return found


def test_send_killed_at_any_instant_mails_nothing_twice(tmp_path: Path, smtp: Server) -> None:
    table = Table(tmp_path, players=5)
    config = _config(tmp_path / "mail.toml", smtp)
    env = {"ADJUDICATOR_NOW": NOW, "TEST_SMTP_PASSWORD": PASSWORD}
    script = Script(table.gamedir, [], env, tmp_path / "snapshots")
    script.run("send", table.gamedir, "--config", config)
    assert script.outcomes[0].code == 0, script.outcomes[0].output
    expected = _received(smtp)
    assert sum(expected.values()) == 10, "each player's welcome and report"
    outcome = script.outcomes[0]
    assert {"smtp data", "smtp answered", "move", "journaled"} <= set(outcome.kinds)
    rng = random.Random(7)
    points = chosen_points(outcome.kinds, rng)  # the module's docstring says which
    assert uncovered(outcome.kinds, points) == []
    plan: list[tuple[int | None, float | None]] = [(point, None) for point in points]
    script.timed_again()
    plan += [(None, rng.uniform(0, outcome.seconds)) for _ in range(10)]
    for kill_at, kill_after in plan:
        before = len(smtp.received)
        run = kill_run(script, 0, kill_at=kill_at, kill_after=kill_after)
        assert run.missed() is None, f"{run.how}: {run.missed()}"
        assert not run.doctor.problems, f"{run.how}: {run.doctor}"
        mailed = _received(smtp, before)
        assert not mailed - expected, f"{run.how}: mailed twice: {mailed - expected}"
        doubt = _in_doubt(table.gamedir)
        assert sum(doubt.values()) <= 1, f"{run.how}: in doubt: {doubt}"
        assert not (expected - mailed) - doubt, f"{run.how}: never mailed: {expected - mailed}"
