"""Deadlines through `tick`, and the game master's commands: extend, pause, resume, replace,
resign and rollback. Time is set with ADJUDICATOR_NOW; mail goes to GAMEDIR/outbox/."""

from __future__ import annotations

import contextlib
import email.policy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from adjudicator.cli import cli
from adjudicator.engine import adjudication
from adjudicator.rules import schedule
from adjudicator.rules.errors import NotNow
from tests.helpers import Table, run
from tests.ssh import make_key, ssh_sign
from tests.test_summary import assert_summaries_handed_out_never_change

Clock = Callable[[str], None]
START = "2026-11-23T10:00:00+00:00"
BERLIN = {"deadline": "48h", "timezone": "Europe/Berlin", "reminders": ["24h", "2h"]}


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Set the time every command sees."""

    def set_time(moment: str) -> None:
        monkeypatch.setenv("ADJUDICATOR_NOW", moment)

    set_time(START)
    return set_time


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    return path


def make_table(tmp_path: Path, nmr: str = "default", **schedule: object) -> Table:
    return Table(
        tmp_path, players=3, schedule={**BERLIN, **schedule}, nmr=nmr, jewel_choice="random"
    )


def tick(table: Table, config: Path) -> str:
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    return result.output


def outbox(table: Table) -> list[EmailMessage]:
    parser = BytesParser(policy=email.policy.default)
    folder = table.gamedir / "outbox"
    return [parser.parsebytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]  # type: ignore[misc]


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def submit(table: Table, player: str) -> None:
    result = run("submit", table.gamedir, table.signed(player, table.legal(player)))
    assert result.exit_code == 0, result.output


def journal(table: Table, kind: str) -> list[dict[str, object]]:
    lines = (table.gamedir / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == kind]


# -- the deadline --------------------------------------------------------------------------------


def test_status_shows_the_deadline_in_utc_and_the_games_zone(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path)
    assert table.status()["deadline"] == "2026-11-25T10:00:00+00:00"
    at("2026-11-24T08:30:00+00:00")
    text = run("status", table.gamedir).output
    assert (
        "deadline: 2026-11-25 10:00 UTC (2026-11-25 11:00 CET, Europe/Berlin); 1d 1h 30m left"
        in text
    )


@contextlib.contextmanager
def zone_data_of_utc_alone(folder: Path) -> Iterator[None]:
    """This machine's time zone data as an older or sparser one might be: UTC alone, without
    Python's tzdata package either."""
    import zoneinfo

    folder.mkdir()
    shutil.copy(Path(zoneinfo.TZPATH[0]) / "UTC", folder / "UTC")
    tzdata = sys.modules.get("tzdata")
    sys.modules["tzdata"] = None  # type: ignore[assignment]
    zoneinfo.reset_tzpath(to=[str(folder)])
    zoneinfo.ZoneInfo.clear_cache()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath()
        zoneinfo.ZoneInfo.clear_cache()
        del sys.modules["tzdata"]
        if tzdata is not None:
            sys.modules["tzdata"] = tzdata


def test_a_zone_this_machine_does_not_know_is_named_not_a_traceback(
    tmp_path: Path, at: Clock
) -> None:
    """A game made where its zone is known, run where the time zone data lacks it: a moment is
    shown in UTC, saying why not in the zone, and a command that needs the zone to decide says
    which zone is missing and how to get it (exit 4) and changes nothing; the game plays on once
    the zone is there."""
    table = make_table(tmp_path)
    away = Table(tmp_path / "away", players=3, schedule=BERLIN, absence="extend")
    at("2026-11-24T08:30:00+00:00")
    unknown = "(the game's time zone 'Europe/Berlin' is not in this machine's time zone data)"

    def gm(*args: str) -> Result:
        return CliRunner().invoke(cli, [args[0], str(table.gamedir), *args[1:]])

    with zone_data_of_utc_alone(tmp_path / "zoneinfo"):
        shown = run("status", table.gamedir)
        assert shown.exit_code == 0, shown.output
        assert f"deadline: 2026-11-25 10:00 UTC {unknown}; 1d 1h 30m left" in shown.output
        assert json.loads(run("status", table.gamedir, "--json").output)["timezone"] == (
            "Europe/Berlin"
        )
        moved = gm("extend", "--to", "2026-11-26 12:00")  # in the game's zone: unknown here
        assert moved.exit_code == 4, moved.output
        assert "the game's time zone 'Europe/Berlin'" in moved.output, moved.output
        assert "pip install tzdata" in moved.output, moved.output
        assert table.status()["deadline"] == "2026-11-25T10:00:00+00:00"  # nothing moved
        moved = gm("extend", "--to", "2026-11-26 12:00 UTC")  # a zone of its own
        assert (moved.exit_code, moved.output) == (0, f"deadline: 2026-11-26 12:00 UTC {unknown}\n")
        moved = gm("extend", "--by", "1h")
        assert (moved.exit_code, moved.output) == (0, f"deadline: 2026-11-26 13:00 UTC {unknown}\n")
        named = gm("extend", "--to", "2026-11-27 12:00 Asia/Tokyo")  # named, and unknown here
        assert named.exit_code == 2, named.output
        assert "unknown time zone 'Asia/Tokyo'" in named.output, named.output
        assert "pip install tzdata" in named.output, named.output
        assert table.status()["deadline"] == "2026-11-26T13:00:00+00:00"  # nothing moved
        assert gm("pause").exit_code == 0
        resumed = gm("resume")
        assert resumed.exit_code == 0 and unknown in resumed.output, resumed.output
        # absences are counted in the game's days: its status cannot say who is away
        counted = CliRunner().invoke(cli, ["status", str(away.gamedir)])
        assert counted.exit_code == 4 and "'Europe/Berlin'" in counted.output, counted.output
        meta = {"players": [{"name": "alice", "tz": "Asia/Tokyo"}]}
        with pytest.raises(schedule.ZoneUnknownHere, match="alice's time zone 'Asia/Tokyo'"):
            schedule.player_zone(meta, "alice")
    moved = gm("extend", "--to", "2026-11-27 12:00")
    assert moved.exit_code == 0, moved.output
    assert table.status()["deadline"] == "2026-11-27T11:00:00+00:00"
    assert (
        "deadline: 2026-11-27 11:00 UTC (2026-11-27 12:00 CET"
        in run("status", table.gamedir).output
    )


@pytest.mark.seconds
def test_tick_leaves_a_turn_whose_next_deadline_needs_a_zone_this_machine_lacks(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """The turn after a daily deadline opens at a time in the game's zone: where the zone is
    unknown, ``tick`` adjudicates nothing and says the game is left for a later run (exit 75),
    as for any game it cannot work on now, rather than waiting silently as for missing orders."""
    table = make_table(tmp_path, deadline="20:00 Europe/Berlin")
    at("2026-11-24T08:30:00+00:00")
    tick(table, config)  # the welcomes
    for player in table.names:
        submit(table, player)
    with zone_data_of_utc_alone(tmp_path / "zoneinfo"):
        left = CliRunner().invoke(cli, ["tick", str(table.gamedir), "--config", str(config)])
        assert left.exit_code == 75, left.output
        assert "left for a later run" in left.output and "'Europe/Berlin'" in left.output
    assert table.status()["turn"] == 1
    assert "adjudicated" in tick(table, config)
    assert table.status()["turn"] == 2


def test_a_daily_deadline_falls_at_least_a_day_after_the_turn_opens(
    tmp_path: Path, at: Clock
) -> None:
    table = make_table(tmp_path, deadline="20:00 Europe/Berlin")
    assert table.status()["deadline"] == "2026-11-24T19:00:00+00:00"
    at("2026-11-24T20:00:00+00:00")  # the next turn opens at 21:00 in Berlin
    table.play_turn()
    assert table.status()["deadline"] == "2026-11-26T19:00:00+00:00"


def test_a_game_without_a_deadline_has_none(tmp_path: Path, at: Clock) -> None:
    table = Table(tmp_path, players=3)
    assert table.status()["deadline"] is None
    assert "deadline: none" in run("status", table.gamedir).output


def test_reminders_go_once_each_to_players_who_still_owe_orders(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)  # the first reports, with the deadline
    first = len(outbox(table))
    due = "The deadline for turn 1: 2026-11-25 10:00 UTC (2026-11-25 11:00 CET, Europe/Berlin)."
    asked = [m for m in outbox(table) if any(True for _ in m.iter_attachments())]
    asked += [m for m in outbox(table) if "welcome" in str(m["Subject"])]
    assert len(asked) > len(table.names), "the welcomes, and the reports that ask for an order"
    assert all(due in " ".join(text_of(m).split()) for m in asked)
    submit(table, "alice")
    at("2026-11-24T09:59:00+00:00")
    assert "reminded" not in tick(table, config)
    at("2026-11-24T10:00:00+00:00")
    assert "cairo-2026: reminded bob, carol (24h before the deadline)" in tick(table, config)
    assert "reminded" not in tick(table, config)
    reminders = outbox(table)[first:]
    assert sorted(m["To"] for m in reminders) == ["bob@example.org", "carol@example.org"]
    assert "2026-11-25 10:00 UTC (2026-11-25 11:00 CET, Europe/Berlin), 1d 0h 0m left" in (
        text_of(reminders[0])
    )
    at("2026-11-25T09:00:00+00:00")
    assert "reminded bob, carol (2h before" in tick(table, config)


def test_a_late_run_sends_only_the_closest_reminder(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)  # the first reports go out as the game is made
    at("2026-11-25T08:30:00+00:00")
    assert "reminded alice, bob, carol (2h before the deadline)" in tick(table, config)
    assert [e["before"] for e in journal(table, "reminded")] == ["2h"]
    assert "reminded" not in tick(table, config)


def test_a_short_pause_after_a_reminder_does_not_send_it_again(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """After the 24h reminder, a pause of ten minutes moved the deadline by ten minutes, and the
    next tick sent the 24h reminder again to everyone: a reminder counted for its exact
    deadline alone. The players keep the time they had, and were reminded of it."""
    table = make_table(tmp_path)
    tick(table, config)  # the first reports go out as the game is made
    at("2026-11-24T10:00:00+00:00")  # 24 h before the deadline
    assert "reminded alice, bob, carol (24h before the deadline)" in tick(table, config)
    at("2026-11-24T10:10:00+00:00")
    assert run("pause", table.gamedir).exit_code == 0
    at("2026-11-24T10:20:00+00:00")
    assert run("resume", table.gamedir).exit_code == 0
    assert table.status()["deadline"] == "2026-11-25T10:10:00+00:00"
    at("2026-11-24T10:21:00+00:00")
    assert "reminded" not in tick(table, config)
    at("2026-11-25T08:10:00+00:00")  # the 2h reminder still goes, once
    assert "reminded alice, bob, carol (2h before the deadline)" in tick(table, config)
    assert "reminded" not in tick(table, config)


def test_past_the_deadline_missing_players_get_the_default_orders(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)  # the first reports go out as the game is made
    submit(table, "alice")
    at("2026-11-25T09:59:59+00:00")
    assert "adjudicated" not in tick(table, config)
    at("2026-11-25T10:00:00+00:00")
    output = tick(table, config)
    assert "cairo-2026: adjudicated turn 1 (default orders for bob, carol)" in output
    assert table.status()["turn"] == 2
    [entry] = journal(table, "adjudicated")
    assert entry["why"] == "deadline" and entry["defaulted"] == ["bob", "carol"]
    for player in table.names:
        report = run("report", table.gamedir, "--player", player).output
        assert "DEFAULT ORDER: no order from bob" in report
        assert "DEFAULT ORDER: no order from carol" in report
    # the next turn's deadline counts from this adjudication
    assert table.status()["deadline"] == "2026-11-27T10:00:00+00:00"


def past_the_deadline_meanwhile(
    table: Table, at: Clock, monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], None]
) -> None:
    """alice's orders in, the deadline passed; the next tick reads what is due, then
    ``meanwhile`` happens before its step takes the game's lock (as while it waited for it)."""
    from adjudicator.mail import clock_step

    assert run("send", table.gamedir, "--config", os.devnull).exit_code == 0  # turn 1 mailed
    submit(table, "alice")
    at("2026-11-25T10:00:01+00:00")
    real = clock_step.due_now

    def then_meanwhile(root: Path) -> object:
        seen = real(root)
        meanwhile()
        return seen

    monkeypatch.setattr(clock_step, "due_now", then_meanwhile)


@pytest.mark.parametrize("action", [["extend", "--by", "1h"], ["pause"]])
def test_a_deadline_moved_while_tick_waited_for_the_lock_is_kept(
    tmp_path: Path, at: Clock, config: Path, monkeypatch: pytest.MonkeyPatch, action: list[str]
) -> None:
    """tick saw the deadline passed, then waited for the game's lock while the game master's
    extend (or pause) held it: it adjudicated at the old deadline all the same, with default
    orders, after the players had been told the deadline moved. What is due is judged again
    under the lock."""
    table = make_table(tmp_path)

    def the_game_master() -> None:
        result = run(action[0], table.gamedir, *action[1:])
        assert result.exit_code == 0, result.output

    past_the_deadline_meanwhile(table, at, monkeypatch, the_game_master)
    assert "adjudicated" not in tick(table, config)
    assert journal(table, "adjudicated") == []
    assert table.status()["turn"] == 1


def test_a_turn_completed_while_tick_waited_for_the_lock_is_journaled_complete(
    tmp_path: Path, at: Clock, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last orders came in while tick, past the deadline, waited for the lock: the turn is
    adjudicated as complete, nobody's orders by default (the journal said ``deadline``)."""
    table = make_table(tmp_path)

    def the_last_orders() -> None:
        submit(table, "bob")
        submit(table, "carol")

    past_the_deadline_meanwhile(table, at, monkeypatch, the_last_orders)
    assert "adjudicated turn 1" in tick(table, config)
    [entry] = journal(table, "adjudicated")
    assert entry["why"] == "complete" and entry["defaulted"] == []


def test_an_order_left_in_the_mail_for_a_locked_game_holds_the_deadline(
    tmp_path: Path, at: Clock, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tick reads the mail first, and a message whose game another command held locked at that
    moment waits for a later run; it may hold an order sent in time. Once the lock was free the
    same run's clock adjudicated the turn past its deadline all the same, with default orders
    for the player whose order waited (and the next run refused it for an earlier turn). A run
    that leaves a message adjudicates nothing by the deadline."""
    import mailbox

    from filelock import FileLock

    from adjudicator.mail import daily
    from adjudicator.store import gamedir as store
    from tests.helpers import order_mail

    table = make_table(tmp_path)
    submit(table, "alice")
    submit(table, "bob")
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    box.add(order_mail(table, "carol", table.legal("carol"), message_id="<carol@mail>"))
    at("2026-11-25T10:00:01+00:00")
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    real = daily.ingest_all

    def while_another_command_holds_the_game(*args: object, **kwargs: object) -> bool:
        with FileLock(str(table.gamedir / ".lock")):
            return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(daily, "ingest_all", while_another_command_holds_the_game)
    maildir = ["--maildir", tmp_path / "Maildir", "--config", config]
    result = run("tick", table.gamedir, *maildir)
    assert result.exit_code == 75, result.output
    assert "left for a later run" in result.output
    assert journal(table, "adjudicated") == []
    monkeypatch.setattr(daily, "ingest_all", real)
    result = run("tick", table.gamedir, *maildir)
    assert result.exit_code == 0, result.output
    assert "<carol@mail> cairo-2026 carol 1 accepted" in result.output
    [entry] = journal(table, "adjudicated")
    assert entry["defaulted"] == []


def test_under_nmr_wait_the_game_master_is_told_once_and_the_game_waits(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path, nmr="wait")
    tick(table, config)
    first = len(outbox(table))
    submit(table, "alice")
    at("2026-11-25T11:00:00+00:00")
    output = tick(table, config)
    assert "turn 1 is past its deadline and waits for bob, carol (nmr: wait)" in output
    assert table.status()["turn"] == 1
    [notice] = outbox(table)[first:]
    assert notice["To"] == "gm@example.org"
    assert "without orders from bob, carol" in text_of(notice)
    assert "waits" not in tick(table, config)
    submit(table, "bob")
    submit(table, "carol")
    assert "adjudicated turn 1" in tick(table, config)
    # the wait, the reports and the reminders: read on line by line
    assert_summaries_handed_out_never_change(table.gamedir)


# -- extend, pause, resume -----------------------------------------------------------------------


def test_extend_moves_the_deadline_and_the_players_are_told(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)
    first = len(outbox(table))
    result = run("extend", table.gamedir, "--by", "24h")
    assert result.exit_code == 0, result.output
    assert table.status()["deadline"] == "2026-11-26T10:00:00+00:00"
    result = run("extend", table.gamedir, "--to", "2026-11-27 20:00")
    assert "2026-11-27 19:00 UTC (2026-11-27 20:00 CET, Europe/Berlin)" in result.output
    assert table.status()["deadline"] == "2026-11-27T19:00:00+00:00"
    tick(table, config)
    told = outbox(table)[first:]
    assert len(told) == 6
    assert "The deadline for turn 1 is now 2026-11-27 19:00 UTC" in text_of(told[-1])
    assert [e["was"] for e in journal(table, "extended")] == [
        "2026-11-25T10:00:00+00:00",
        "2026-11-26T10:00:00+00:00",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "2026-11-20 12:00"], "is not in the future"),
        (["--by", "soon"], "is not a duration"),
        (["--to", "next week"], "is not a time"),
        ([], "give exactly one of --by and --to"),
    ],
)
def test_a_wrong_extension_changes_nothing(
    tmp_path: Path, at: Clock, args: list[str], message: str
) -> None:
    table = make_table(tmp_path)
    log = (table.gamedir / "log.jsonl").read_bytes()
    result = run("extend", table.gamedir, *args)
    assert result.exit_code == 2 and message in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == log


def test_a_paused_game_waits_and_resumes_with_the_time_it_had_left(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)  # the first reports go out as the game is made
    at("2026-11-24T10:00:00+00:00")  # 24 h left
    assert run("pause", table.gamedir).exit_code == 0
    assert run("pause", table.gamedir).exit_code == 4
    at("2026-11-30T10:00:00+00:00")
    assert "adjudicated" not in tick(table, config)
    assert "(paused: the clock stands still)" in run("status", table.gamedir).output
    result = run("resume", table.gamedir)
    assert result.exit_code == 0, result.output
    assert table.status()["deadline"] == "2026-12-01T10:00:00+00:00"
    assert run("resume", table.gamedir).exit_code == 4
    at("2026-12-01T10:00:00+00:00")
    assert "adjudicated turn 1" in tick(table, config)


# -- replace and resign --------------------------------------------------------------------------


def test_replace_gives_a_seat_a_new_player_and_key(tmp_path: Path, at: Clock, config: Path) -> None:
    table = make_table(tmp_path)
    new_key = make_key(tmp_path / "keys", "zoe")
    result = run(
        "replace", table.gamedir, "--player", "bob", "--email", "zoe@example.org",
        "--key-file", f"{new_key}.pub",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    old = run("submit", table.gamedir, table.signed("bob", table.legal("bob")))
    assert old.exit_code == 3 and "signed with bob's former key" in old.output
    path = table.write("zoe.yaml", table.order_text("bob", table.legal("bob")))
    ssh_sign(new_key, path)
    assert run("submit", table.gamedir, path).exit_code == 0
    tick(table, config)
    mails = outbox(table)
    assert "zoe@example.org" in [m["To"] for m in mails]
    assert "bob@example.org" not in [m["To"] for m in mails if "report" in m["Subject"]]
    [entry] = journal(table, "replaced")
    assert "email" not in entry and "was_email" not in entry  # a public archive holds the line
    held = json.loads((table.gamedir / entry["addresses"]).read_text())
    assert held.pop("privacy") != json.loads((table.gamedir / "game.json").read_text())["privacy"]
    assert held == {"email": "zoe@example.org", "was_email": "bob@example.org"}


def test_a_new_key_sends_its_player_a_notice_page_that_knows_it(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """The notice page of the first welcome signs only with the key the game master had then:
    after a new key the player gets the welcome again, with a page that takes the new one."""
    table = make_table(tmp_path)
    tick(table, config)  # the welcomes
    new_key = make_key(tmp_path / "keys", "bob-new")
    result = run("replace", table.gamedir, "--player", "bob", "--key-file", f"{new_key}.pub")
    assert result.exit_code == 0, result.output
    before = {m["Message-ID"] for m in outbox(table)}
    tick(table, config)
    pages = [
        (m["To"], part.get_payload(decode=True).decode())
        for m in outbox(table)
        if m["Message-ID"] not in before
        for part in m.iter_attachments()
        if (part.get_filename() or "").startswith("cairo-2026-notices-")
    ]
    [(to, page)] = pages
    assert to == "bob@example.org"
    blob = Path(f"{new_key}.pub").read_text().split()[1]
    data = re.search(r'<script type="application/json" id="notice-data">(.*?)</script>', page)
    assert data is not None and blob in data.group(1)


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (["--player", "bob", "--email", "not-an-address"], "is not one mail address", 3),
        (["--player", "bob", "--key", "ssh-ed25519 AAAA"], "the new key", 3),
        (["--player", "bob"], "give --email, --key, --key-file or --lang", 2),
        (["--player", "zed", "--email", "z@example.org"], "no player 'zed'", 2),
    ],
)
def test_a_wrong_replacement_changes_nothing(
    tmp_path: Path, at: Clock, args: list[str], message: str, code: int
) -> None:
    table = make_table(tmp_path)
    before = (table.gamedir / "game.json").read_bytes()
    result = run("replace", table.gamedir, *args)
    assert result.exit_code == code and message in result.output
    assert (table.gamedir / "game.json").read_bytes() == before


def test_a_key_that_is_another_players_is_refused(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path)
    result = run(
        "replace", table.gamedir, "--player", "bob", "--key-file", f"{table.keys['alice']}.pub"
    )
    assert result.exit_code == 3 and "is alice's" in result.output


def test_a_resigned_seat_plays_default_orders(tmp_path: Path, at: Clock, config: Path) -> None:
    table = make_table(tmp_path)
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 0
    status = table.status()
    assert status["resigned"] == ["carol"] and "carol" not in status["waiting_for"]
    refused = run("submit", table.gamedir, table.signed("carol", table.legal("carol")))
    assert refused.exit_code == 3 and "carol has resigned" in refused.output
    submit(table, "alice")
    submit(table, "bob")
    assert "adjudicated turn 1 (default orders for carol)" in tick(table, config)
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 4
    assert run("resign", table.gamedir, "--player", "bob").exit_code == 0
    last = run("resign", table.gamedir, "--player", "alice")
    assert last.exit_code == 4 and "last player" in last.output


# -- rollback ------------------------------------------------------------------------------------


def test_a_seat_resigned_then_given_to_another_is_told_as_it_stood(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """carol resigns, then zoe takes her seat, before any mail goes out: each notice goes to
    the addresses of its moment, once each. The resignation to alice, bob and carol's own
    address (zoe was no player then); the replacement to zoe and to carol."""
    table = make_table(tmp_path)
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 0
    new_key = make_key(tmp_path / "keys", "zoe")
    result = run(
        "replace", table.gamedir, "--player", "carol", "--email", "zoe@example.org",
        "--key-file", f"{new_key}.pub",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    tick(table, config)
    told: dict[str, list[str]] = {}
    for mail in outbox(table):
        if "announce" in str(mail["Message-ID"]):
            told.setdefault(text_of(mail).split("\n", 1)[0], []).append(str(mail["To"]))
    [resigned] = [to for line, to in told.items() if "resigned" in line]
    [replaced] = [to for line, to in told.items() if "resigned" not in line]
    assert sorted(resigned) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    assert sorted(replaced) == ["carol@example.org", "zoe@example.org"]
    names = sorted(p.name.split("-", 1)[1] for p in (table.gamedir / "outbox").glob("*announce*"))
    assert len(names) == len(set(names)) == 5


def test_a_player_who_resigned_before_the_mail_went_out_is_not_told_of_earlier_actions(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """Mail to a resigned player stops, also the notice of an extension made while they still
    played; their own resignation still reaches them."""
    table = make_table(tmp_path)
    tick(table, config)
    assert run("extend", table.gamedir, "--by", "24h").exit_code == 0
    assert run("resign", table.gamedir, "--player", "bob").exit_code == 0
    tick(table, config)
    to_bob = [
        text_of(m)
        for m in outbox(table)
        if "announce" in str(m["Message-ID"]) and "bob@" in m["To"]
    ]
    assert len(to_bob) == 1 and "resigned" in to_bob[0]


def test_rollback_keeps_everything_and_the_turn_is_adjudicated_again_alike(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    table.play_turn()
    state = (table.gamedir / "turns" / "0002" / "state.json").read_bytes()
    result = run("rollback", table.gamedir)
    assert result.exit_code == 0, result.output
    assert table.status()["turn"] == 1 and table.status()["rolled_back"]
    assert (table.gamedir / "turns" / "0002.superseded-1" / "state.json").read_bytes() == state
    assert (table.gamedir / "turns" / "0001" / "resolution.superseded-1.json").exists()
    again = table.write(
        "again.yaml", table.order_text("alice", table.legal("alice"), turn=1) + "# again\n"
    )
    ssh_sign(table.keys["alice"], again)
    refused = run("submit", table.gamedir, again)
    assert refused.exit_code == 3 and "rolled back" in refused.output
    at("2026-12-30T10:00:00+00:00")
    assert "adjudicated" not in tick(table, config)  # the game master adjudicates again
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert (table.gamedir / "turns" / "0002" / "state.json").read_bytes() == state
    assert run("rollback", table.gamedir).exit_code == 0
    assert (table.gamedir / "turns" / "0002.superseded-2").is_dir()
    assert run("rollback", table.gamedir).exit_code == 4  # turn 1 has no adjudication left


def test_rollback_withdraws_reports_not_mailed_and_mails_the_new_ones(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    table.play_turn()
    from adjudicator.mail.turn_reports import queue_due_reports

    queue_due_reports(table.gamedir, "gm-bot@example.org")
    result = run("rollback", table.gamedir)
    assert result.output.count("withdrawn: ") == 3
    assert len(list((table.gamedir / "mail" / "withdrawn").glob("*-report-2-*.eml"))) == 3
    assert run("adjudicate", table.gamedir).exit_code == 0
    tick(table, config)
    subjects = [m["Subject"] for m in outbox(table)]
    assert subjects.count("[cairo-2026] turn 2: report for alice") == 1
    assert subjects.count("[cairo-2026] from the game master") == 3
    withdrawn = {p.name[:6] for p in (table.gamedir / "mail" / "withdrawn").iterdir()}
    sent = {p.name[:6] for p in (table.gamedir / "mail" / "sent").iterdir()}
    assert not withdrawn & sent  # a withdrawn message's number is never given out again


def test_a_second_run_never_adjudicates_the_next_turn_by_mistake(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path)
    at("2026-11-26T10:00:00+00:00")
    adjudication.adjudicate(table.gamedir, True, "deadline", only_turn=1)
    with pytest.raises(NotNow, match="turn 1 was adjudicated already"):
        adjudication.adjudicate(table.gamedir, True, "deadline", only_turn=1)
    assert table.status()["turn"] == 2


@pytest.mark.seconds
def test_ticks_run_at_the_same_moment_adjudicate_once_and_mail_once(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)  # the first reports go out as the game is made
    env = {**os.environ, "ADJUDICATOR_NOW": "2026-11-26T10:00:00+00:00"}  # past the deadline
    installed = Path(sys.executable).parent / "adjudicator"  # the command this venv installed
    command = [str(installed), "tick", str(table.gamedir), "--config", str(config)]
    with contextlib.ExitStack() as ended:  # each run's pipe closed and the run ended, whatever
        runs = [
            ended.enter_context(
                subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
            )
            for _ in range(4)
        ]
        for process in runs:
            ended.callback(lambda process=process: process.poll() is None and process.kill())
        outputs = [process.communicate(timeout=120)[0] for process in runs]
    assert [process.returncode for process in runs] == [0, 0, 0, 0]
    assert sum(out.count("adjudicated turn 1") for out in outputs) == 1
    assert len(journal(table, "adjudicated")) == 1 and table.status()["turn"] == 2
    subjects = [m["Subject"] for m in outbox(table)]
    for player in table.names:
        for turn in (1, 2):
            assert subjects.count(f"[cairo-2026] turn {turn}: report for {player}") == 1


# -- what the game master trips on ---------------------------------------------------------------


SIGN_AGAIN = re.compile(r"to sign again with ssh-keygen, delete \S+\.yaml\.sig first")


@pytest.mark.seconds
@pytest.mark.parametrize(("game", "players"), [("sultan", 3), ("sultans_court", 4)])
def test_every_ssh_keygen_line_in_a_report_mail_says_how_to_sign_again(
    tmp_path: Path, config: Path, game: str, players: int
) -> None:
    """``ssh-keygen -Y sign`` asks before it overwrites ORDER.yaml.sig, and run without a
    terminal keeps the old signature: each part of a mail that shows the line says to delete it."""
    Table(tmp_path, players=players, game=game)
    table_dir = tmp_path / "game"
    result = run("send", table_dir, "--config", config)
    assert result.exit_code == 0, result.output
    parser = BytesParser(policy=email.policy.default)
    shown = 0
    for path in sorted((table_dir / "outbox").glob("*.eml")):
        message = parser.parsebytes(path.read_bytes())
        for part in message.walk():
            if part.get_content_type() not in ("text/plain", "text/html"):
                continue
            if part.get_filename():  # the order page: it signs in the browser, no ssh-keygen
                continue
            text = str(part.get_content())  # type: ignore[attr-defined]
            if "ssh-keygen -Y sign" in text:
                shown += 1
                again = re.search(
                    r"to sign again with ssh-keygen, delete \S+\.yaml\.sig first", text
                )
                assert again, text
    assert shown >= 2  # the text and the HTML part of the starting player's report


@pytest.mark.parametrize("code", ["no-signature", "sig-namespace"])
def test_a_refusal_that_shows_the_ssh_keygen_line_says_how_to_sign_again(code: str) -> None:
    from adjudicator.present.words import common_texts

    text = common_texts()[code]
    assert "ssh-keygen -Y sign" in text
    assert "to sign again with ssh-keygen, delete FILE.sig first" in text


def test_each_notice_of_an_extension_is_named_after_its_reader(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """`send` prints, and the journal keeps, one name per notice, so both say who got which."""
    table = make_table(tmp_path)
    tick(table, config)
    assert run("extend", table.gamedir, "--by", "24h").exit_code == 0
    lines = [line for line in tick(table, config).splitlines() if "announce" in line]
    names = [line.rsplit("/", 1)[1] for line in lines]
    assert len(set(n.split("-", 1)[1] for n in names)) == len(names) == 3
    parser = BytesParser(policy=email.policy.default)
    for name, player in zip(names, table.names, strict=True):
        assert name.endswith(f"-{player}.eml"), name
        sent = parser.parsebytes((table.gamedir / "outbox" / name).read_bytes())
        assert str(sent["To"]) == f"{player}@example.org"
    [line] = journal(table, "sent")[-1:]
    assert line["written"] == names


# -- the game master's copy ----------------------------------------------------------------------


@pytest.mark.seconds
def test_gm_copy_mails_the_game_masters_report_of_each_turn(tmp_path: Path, at: Clock) -> None:
    config = tmp_path / "mail.toml"
    config.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\ngm_copy = true\n'
    )
    table = make_table(tmp_path)
    tick(table, config)
    for player in table.status()["waiting_for"]:
        submit(table, player)
    tick(table, config)
    copies = [m for m in outbox(table) if str(m["To"]) == "gm@example.org"]
    assert [str(m["Subject"]) for m in copies] == [
        "[cairo-2026] turn 1: the game master's report",
        "[cairo-2026] turn 2: the game master's report",
    ]
    for turn, copy in enumerate(copies, 1):
        expected = run("report", table.gamedir, "--gm", "--turn", str(turn)).output
        body = text_of(copy).replace("\r\n", "\n")
        assert body.split("\n", 1)[0] == expected.split("\n", 1)[0]
        assert "HANDS AND DECKS (game master only)" in body
        assert not list(copy.iter_attachments()), "no order form: the game master owes none"
        assert copy.get_body(("html",)) is not None
    names = sorted(p.name for p in (table.gamedir / "outbox").glob("*-gm.eml"))
    assert [n.split("-", 1)[1] for n in names] == ["report-1-gm.eml", "report-2-gm.eml"]
    players = [m for m in outbox(table) if str(m["To"]) != "gm@example.org"]
    assert all("HANDS AND DECKS" not in text_of(m) for m in players)


def test_without_gm_copy_the_game_master_gets_no_report(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path)
    tick(table, config)
    assert [m for m in outbox(table) if str(m["To"]) == "gm@example.org"] == []


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        ("[mail]\ngm_copy = true\n", "[mail] gm_copy: the game master's copy needs [mail] gm"),
        (
            '[mail]\ngm = "gm@example.org"\ngm_copy = "yes"\n',
            "[mail] gm_copy: must be true or false",
        ),
    ],
)
def test_a_wrong_gm_copy_changes_nothing(tmp_path: Path, lines: str, why: str) -> None:
    config = tmp_path / "mail.toml"
    config.write_text(lines)
    table = make_table(tmp_path)
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 3
    assert f"{config}: {why}" in result.output
    assert not (table.gamedir / "outbox").exists()
