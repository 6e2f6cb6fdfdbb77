"""Absences (docs/notices.md): the options ``absence`` (none, extend, default) and
``absence_days``, deadlines moved for everyone or seats not waited for, and every reader told
who is away until when. Time is set with ADJUDICATOR_NOW; mail goes to GAMEDIR/outbox/."""

from __future__ import annotations

import datetime as dt
import email.policy
import json
from collections.abc import Callable
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from adjudicator.engine import absences
from adjudicator.present import rendered
from adjudicator.rules import schedule
from adjudicator.rules.options import LAST_DAY
from adjudicator.store import journal
from tests.helpers import Table, run
from tests.test_commit_reveal import committed

Clock = Callable[[str], None]
START = "2026-11-23T10:00:00+00:00"
BERLIN = {"deadline": "48h", "timezone": "Europe/Berlin", "reminders": ["24h"]}
FIRST_DEADLINE = "2026-11-25T10:00:00+00:00"  # 11:00 in Berlin


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> Clock:
    def set_time(moment: str) -> None:
        monkeypatch.setenv("ADJUDICATOR_NOW", moment)

    set_time(START)
    return set_time


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    return path


def make_table(tmp_path: Path, absence: str, **options: Any) -> Table:
    return Table(
        tmp_path,
        players=3,
        schedule=BERLIN,
        jewel_choice="random",
        absence=absence,
        **options,
    )


def sealed_table(tmp_path: Path) -> Table:
    """A game of orders sealed by commit-reveal, a day a turn, under ``absence: extend``."""
    return Table(
        tmp_path,
        players=3,
        schedule={"deadline": "24h"},
        jewel_choice="random",
        sealing="commit-reveal",
        absence="extend",
    )


def away(table: Table, player: str, start: str, end: str, name: str = "away.yaml") -> Any:
    notice = table.notice(player, f"absence:\n  from: {start}\n  to: {end}\n", name)
    return run("absence", table.gamedir, notice)


def log(table: Table) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]


def submit(table: Table, player: str) -> None:
    result = run("submit", table.gamedir, table.signed(player, table.legal(player)))
    assert result.exit_code == 0, result.output


def tick(table: Table, config: Path) -> str:
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    return result.output


def mails(table: Table) -> list[Any]:
    parser = BytesParser(policy=email.policy.default)
    return [
        parser.parsebytes(p.read_bytes()) for p in sorted((table.gamedir / "outbox").glob("*.eml"))
    ]


# -- the options -----------------------------------------------------------------------------------
def test_a_game_without_the_option_takes_no_absence(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "none")
    result = away(table, "bob", "2026-11-24", "2026-11-27")
    assert result.exit_code == 3
    assert "game cairo-2026 takes no absences (its option absence is none)" in result.output
    assert not (table.gamedir / "notices" / "absence").exists()
    assert table.status()["deadline"] == FIRST_DEADLINE


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"absence": "away"}, "option 'absence' must be 'none', 'extend' or 'default'"),
        (
            {"absence_days": -1},
            "option 'absence_days' must be a whole number of days from 0 to 366, not the number -1",
        ),
        (
            {"absence_days": "two"},
            "option 'absence_days' must be a whole number of days from 0 to 366, "
            "not the text 'two'",
        ),
        (
            {"absence_days": True},
            "option 'absence_days' must be a whole number of days from 0 to 366, "
            "not the true/false value true",
        ),
    ],
)
def test_bad_values_are_refused_by_the_setup_file(
    tmp_path: Path, options: dict[str, Any], said: str
) -> None:
    with pytest.raises(AssertionError) as refused:
        Table(tmp_path, players=3, **options)
    assert said in str(refused.value)


@pytest.mark.parametrize("end", ["9999-12-29", "9999-12-30", "9999-12-31"])
def test_an_absence_at_the_end_of_the_calendar_is_refused(
    tmp_path: Path, at: Clock, end: str
) -> None:
    """The deadline it moves goes to the day after it, past the year 9999 (or past it in UTC
    west of Greenwich): refused with the line, not a crash (E15)."""
    table = make_table(tmp_path, "extend")
    result = away(table, "bob", "9999-12-28", end)
    assert result.exit_code == 3, result.output
    assert f"the absence ends on {end}, past the last day an absence may end on (9999-12-28)" in (
        result.output
    )
    assert not (table.gamedir / "notices" / "absence").exists()
    assert away(table, "bob", "9999-12-28", "9999-12-28", "last.yaml").exit_code == 0
    assert table.status()["deadline"] == FIRST_DEADLINE


@pytest.mark.parametrize("zone", ["Etc/GMT+12", "UTC", "Pacific/Kiritimati"])
def test_the_day_after_the_last_absence_holds_a_deadline_every_zone_can_show(zone: str) -> None:
    """A deadline moved past an absence lands on the day after it, at its time of day in the
    game's zone (UTC-12 to UTC+14): still a deadline every reader's zone can show (E15)."""
    day = LAST_DAY + dt.timedelta(days=1)
    latest = dt.datetime.combine(day, dt.time(23, 59, 59), tzinfo=ZoneInfo(zone))
    assert latest.astimezone(dt.UTC) <= schedule.LAST_DEADLINE


# -- extend ----------------------------------------------------------------------------------------
def test_an_absence_over_the_deadline_moves_it_for_everyone_in_its_step(
    tmp_path: Path, at: Clock
) -> None:
    table = make_table(tmp_path, "extend")
    result = away(table, "bob", "2026-11-24", "2026-11-27")
    assert result.exit_code == 0, result.output
    # the deadline's time of day (11:00 in Berlin) on the day after the absence
    moved = "2026-11-28T10:00:00+00:00"
    assert table.status()["deadline"] == moved
    assert log(table)[-1]["deadline_moved"] == {
        "turn": 1,
        "deadline": moved,
        "was": FIRST_DEADLINE,
    }
    assert "bob" not in json.dumps(log(table)[-1])  # the journal never names a notice's sender
    assert table.status()["away"] == [{"player": "bob", "from": "2026-11-24", "to": "2026-11-27"}]


def test_an_absence_by_mail_moves_the_deadline_in_the_mail_step(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path, "extend")
    notice = table.notice("bob", "absence:\n  from: 2026-11-25\n  to: 2026-11-25\n", "a.yaml")
    message = EmailMessage()
    message["From"] = "bob@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "away"
    message["Message-ID"] = "<away1@mail>"
    message.set_content("I am away on the 25th.\n")
    message.add_attachment(notice.read_bytes(), maintype="text", subtype="yaml", filename="a.yaml")
    signature = Path(f"{notice}.sig").read_bytes()
    message.add_attachment(
        signature, maintype="application", subtype="octet-stream", filename="a.yaml.sig"
    )
    raw = message.as_bytes(policy=email.policy.SMTP)
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    line = log(table)[-1]
    assert line["type"] == "mail" and line["notices"][0]["kind"] == "absence"
    assert line["deadline_moved"]["deadline"] == "2026-11-26T10:00:00+00:00"
    assert table.status()["deadline"] == "2026-11-26T10:00:00+00:00"


def test_an_absence_beside_the_deadline_moves_nothing(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend")
    assert away(table, "bob", "2026-11-26", "2026-11-27").exit_code == 0
    assert table.status()["deadline"] == FIRST_DEADLINE
    assert "deadline_moved" not in log(table)[-1]


def test_a_turn_that_opens_during_an_absence_gets_its_deadline_moved(
    tmp_path: Path, at: Clock
) -> None:
    table = make_table(tmp_path, "extend")
    assert away(table, "carol", "2026-11-26", "2026-11-28").exit_code == 0
    assert table.status()["deadline"] == FIRST_DEADLINE
    at("2026-11-24T12:00:00+00:00")
    for player in ("alice", "bob", "carol"):
        submit(table, player)
    assert run("adjudicate", table.gamedir).exit_code == 0
    # 48 h later: the 26th, 13:00 in Berlin, a day carol is away: the 29th, 13:00
    moved = "2026-11-29T12:00:00+00:00"
    assert log(table)[-1]["type"] == "adjudicated"
    assert log(table)[-1]["deadline"] == moved
    assert table.status()["deadline"] == moved


def test_the_reveal_of_a_sealed_turn_opens_with_its_deadline_moved(
    tmp_path: Path, at: Clock
) -> None:
    table = sealed_table(tmp_path)
    assert table.status()["deadline"] == "2026-11-24T10:00:00+00:00"
    assert away(table, "bob", "2026-11-25", "2026-11-26").exit_code == 0
    assert table.status()["deadline"] == "2026-11-24T10:00:00+00:00"  # not a day bob is away
    at("2026-11-24T09:00:00+00:00")
    promises = [committed(table, p, table.legal(p), f"{p}.yaml")[1] for p in table.names]
    assert run("submit", table.gamedir, *promises).exit_code == 0
    status = table.status()
    # the reveal's 24 h end on the 25th, a day bob is away: the 27th at the same time
    assert status["phase"] == "reveal" and status["deadline"] == "2026-11-27T09:00:00+00:00"
    assert log(table)[-1]["reveal"]["deadline"] == "2026-11-27T09:00:00+00:00"
    assert "deadline_moved" not in log(table)[-1]


def test_a_player_who_owes_nothing_moves_no_reveal_deadline(tmp_path: Path, at: Clock) -> None:
    """Turn 1 of Sultan asks only the start player to return a jewel: the others owe no reveal,
    so one of them away on the reveal's deadline holds nobody up."""
    table = Table(
        tmp_path,
        players=3,
        schedule={"deadline": "24h"},
        sealing="commit-reveal",
        absence="extend",
        start_player="alice",
    )
    assert list(table.status()["owed"]) == ["alice"]
    assert away(table, "bob", "2026-11-25", "2026-11-26").exit_code == 0
    at("2026-11-24T09:00:00+00:00")
    _, promise = committed(table, "alice", table.legal("alice"), "alice.yaml")
    assert run("submit", table.gamedir, promise).exit_code == 0
    status = table.status()
    assert status["phase"] == "reveal" and status["deadline"] == "2026-11-25T09:00:00+00:00"
    assert log(table)[-1]["reveal"]["deadline"] == "2026-11-25T09:00:00+00:00"


def test_a_player_without_a_commitment_moves_no_reveal_deadline(tmp_path: Path, at: Clock) -> None:
    """In the reveal only the players who committed owe orders (E19): one who made no
    commitment plays the default orders, and their absence must not hold up everyone else."""
    table = sealed_table(tmp_path)
    at("2026-11-24T09:00:00+00:00")
    others = [n for n in table.names if n != "bob"]
    promises = [committed(table, p, table.legal(p), f"{p}.yaml")[1] for p in others]
    assert run("submit", table.gamedir, *promises).exit_code == 0
    at("2026-11-24T10:30:00+00:00")
    assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    assert table.status()["without"] == ["bob"]
    assert table.status()["deadline"] == "2026-11-25T10:30:00+00:00"
    assert away(table, "bob", "2026-11-25", "2026-11-26").exit_code == 0
    assert table.status()["deadline"] == "2026-11-25T10:30:00+00:00"
    assert "deadline_moved" not in log(table)[-1]


def test_two_absences_in_a_row_move_the_deadline_past_both(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend")
    assert away(table, "bob", "2026-11-24", "2026-11-25", "bob.yaml").exit_code == 0
    assert table.status()["deadline"] == "2026-11-26T10:00:00+00:00"
    assert away(table, "carol", "2026-11-26", "2026-11-30", "carol.yaml").exit_code == 0
    assert table.status()["deadline"] == "2026-12-01T10:00:00+00:00"


def test_the_days_beyond_the_limit_are_not_honoured(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend", absence_days=3)
    assert away(table, "bob", "2026-11-24", "2026-11-30", "week.yaml").exit_code == 0
    # honoured: the 24th, 25th and 26th
    assert table.status()["deadline"] == "2026-11-27T10:00:00+00:00"
    assert table.status()["away"] == [{"player": "bob", "from": "2026-11-24", "to": "2026-11-26"}]
    again = away(table, "bob", "2026-12-10", "2026-12-11", "more.yaml")
    assert again.exit_code == 3
    assert "bob has announced all 3 days of absence this game allows" in again.output
    # the days already counted may be announced again; another player has days of their own
    assert away(table, "bob", "2026-11-25", "2026-11-26", "same.yaml").exit_code == 0
    assert away(table, "alice", "2026-12-10", "2026-12-11", "alice.yaml").exit_code == 0


def test_the_days_count_from_the_day_the_absence_is_taken(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend", absence_days=2)
    assert away(table, "bob", "2026-11-01", "2026-11-24").exit_code == 0
    assert table.status()["away"] == [{"player": "bob", "from": "2026-11-23", "to": "2026-11-24"}]


def test_a_limit_of_no_days_takes_no_absence(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend", absence_days=0)
    result = away(table, "bob", "2026-11-24", "2026-11-24")
    assert result.exit_code == 3
    assert "all 0 days" in result.output


@pytest.mark.seconds
def test_reminders_and_tick_follow_the_moved_deadline(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path, "extend")
    tick(table, config)  # the first reports
    assert away(table, "bob", "2026-11-24", "2026-11-27").exit_code == 0
    at("2026-11-24T12:00:00+00:00")  # under 24 h before the first deadline: no reminder now
    assert "remind" not in tick(table, config)
    at("2026-11-25T11:00:00+00:00")  # past the first deadline: nothing is adjudicated
    tick(table, config)
    assert table.status()["turn"] == 1
    at("2026-11-27T11:00:00+00:00")  # 23 h before the moved one: the reminder
    tick(table, config)
    [reminded] = [e for e in log(table) if e["type"] == "reminded"]
    assert reminded["deadline"] == "2026-11-28T10:00:00+00:00"
    at("2026-11-28T10:00:00+00:00")
    tick(table, config)
    assert table.status()["turn"] == 2
    [adjudicated] = [e for e in log(table) if e["type"] == "adjudicated"]
    assert adjudicated["why"] == "deadline"
    told = [m for m in mails(table) if "absence moves the deadline" in str(m.get_body())]
    assert len(told) == 3  # every player told, once
    assert {m["Subject"] for m in told} == {"[cairo-2026] deadline moved"}, "by no game master"
    assert "turn 1 to 2026-11-28 10:00 UTC (2026-11-28 11:00 CET" in str(
        told[0].get_body(("plain",)).get_content()
    )


def test_an_absence_moves_no_deadline_that_has_passed(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """The turn is due once its deadline passes: whether it is adjudicated must not depend on
    whether the next tick came before a late absence (a player who missed the deadline could
    otherwise open it again)."""
    table = make_table(tmp_path, "extend")
    tick(table, config)  # the first reports go out as the game is made
    at("2026-11-25T11:00:00+00:00")  # an hour past the deadline (11:00 in Berlin), no tick yet
    result = away(table, "bob", "2026-11-25", "2026-11-26")
    assert result.exit_code == 0, result.output  # taken, and shown
    assert "deadline_moved" not in log(table)[-1]
    assert table.status()["deadline"] == FIRST_DEADLINE
    tick(table, config)
    assert table.status()["turn"] == 2


# -- default ---------------------------------------------------------------------------------------
def test_a_player_away_at_the_deadline_is_not_waited_for(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """Not before the absence begins: until then the player may still send orders (the
    walk-through saw a turn end at once, two days before its player left)."""
    table = make_table(tmp_path, "default")
    assert away(table, "bob", "2026-11-24", "2026-11-26").exit_code == 0
    status = table.status()
    assert status["deadline"] == FIRST_DEADLINE  # default moves no deadline
    assert status["waiting_for"] == ["alice", "bob", "carol"], "bob leaves tomorrow"
    submit(table, "alice")
    submit(table, "carol")
    tick(table, config)
    assert table.status()["turn"] == 1
    at("2026-11-23T23:30:00+00:00")  # 00:30 in Berlin: bob is away now
    assert table.status()["waiting_for"] == []
    tick(table, config)
    [adjudicated] = [e for e in log(table) if e["type"] == "adjudicated"]
    assert (adjudicated["why"], adjudicated["defaulted"]) == ("complete", ["bob"])


def test_the_orders_of_a_player_away_are_still_taken(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "default")
    assert away(table, "bob", "2026-11-24", "2026-11-26").exit_code == 0
    for player in ("bob", "alice", "carol"):
        submit(table, player)
    assert run("adjudicate", table.gamedir).exit_code == 0
    [adjudicated] = [e for e in log(table) if e["type"] == "adjudicated"]
    assert adjudicated["defaulted"] == []


def test_tick_wakes_a_game_without_deadlines_when_an_absence_begins(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    """Without deadlines, who is away is read from today (E21): the day an absence begins can
    complete a turn with no journal line, so tick must not sleep through it."""
    table = Table(tmp_path, players=3, jewel_choice="random", absence="default")
    assert away(table, "bob", "2026-11-24", "2026-11-26").exit_code == 0
    submit(table, "alice")
    submit(table, "carol")
    tick(table, config)  # waiting for bob today: nothing due
    assert table.status()["turn"] == 1
    at("2026-11-24T00:30:00+00:00")  # bob is away now
    tick(table, config)
    assert table.status()["turn"] == 2
    [adjudicated] = [e for e in log(table) if e["type"] == "adjudicated"]
    assert adjudicated["why"] == "complete" and adjudicated["defaulted"] == ["bob"]


def test_an_absence_that_does_not_hold_the_deadline_leaves_the_seat_waited_for(
    tmp_path: Path, at: Clock
) -> None:
    table = make_table(tmp_path, "default")
    assert away(table, "bob", "2026-11-26", "2026-11-27").exit_code == 0
    assert table.status()["waiting_for"] == ["alice", "bob", "carol"]
    submit(table, "alice")
    submit(table, "carol")
    refused = run("adjudicate", table.gamedir)
    assert refused.exit_code != 0 and "orders missing from bob" in refused.output


@pytest.mark.parametrize("option", ["default", "extend"])
def test_an_archive_of_a_game_with_absences_verifies(
    tmp_path: Path, at: Clock, option: str
) -> None:
    table = make_table(tmp_path, option)
    assert away(table, "bob", "2026-11-24", "2026-11-26").exit_code == 0
    submit(table, "alice")
    submit(table, "carol")
    if option == "extend":
        assert "deadline_moved" in log(table)[-3]
        submit(table, "bob")
    else:
        at("2026-11-24T12:00:00+00:00")  # bob is away: the turn does not wait for him
    assert run("adjudicate", table.gamedir).exit_code == 0
    for flags in ((), ("--public",)):
        out = tmp_path / f"archive{len(flags)}.json"
        made = run("archive", table.gamedir, *flags, "-o", out)
        assert made.exit_code == 0, made.output
        checked = run("verify", out)
        assert checked.exit_code == 0, checked.output


# -- who is away, told to every reader -------------------------------------------------------------
def test_every_report_says_who_is_away_until_when(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "default")
    assert away(table, "bob", "2026-11-24", "2026-11-26").exit_code == 0
    line = "bob is away from 2026-11-24 to 2026-11-26."
    for reader in (["--player", "alice"], ["--player", "bob"], ["--public"], ["--gm"]):
        text = run("report", table.gamedir, *reader)
        assert text.exit_code == 0, text.output
        assert line in text.output
        page = run("report", table.gamedir, *reader, "--format", "html")
        assert line in page.output
    words = {
        "de": "bob ist vom 2026-11-24 bis zum 2026-11-26 abwesend.",
        "nl": "bob is afwezig van 2026-11-24 tot en met 2026-11-26.",
        "fr": "bob est absent du 2026-11-24 au 2026-11-26.",
    }
    for lang, said in words.items():
        assert said in rendered.report(table.gamedir, "public", None, None, lang=lang, cache=False)
    status = run("status", table.gamedir).output
    assert "away: bob from 2026-11-24 to 2026-11-26" in status
    assert "bob: owes bid (waiting)" in status, "bob is still at home"
    at("2026-11-24T12:00:00+00:00")
    status = run("status", table.gamedir).output
    assert "bob: owes bid (away: default orders unless they send orders)" in status


def test_an_absence_over_is_no_longer_shown(tmp_path: Path, at: Clock) -> None:
    table = make_table(tmp_path, "extend")
    assert away(table, "bob", "2026-11-23", "2026-11-23").exit_code == 0
    assert table.status()["away"] != []
    at("2026-11-24T00:00:00+00:00")  # 01:00 on the 24th in Berlin
    assert table.status()["away"] == []
    assert "is away" not in run("report", table.gamedir, "--public").output


def test_the_reports_mailed_as_a_turn_opens_say_who_is_away(
    tmp_path: Path, at: Clock, config: Path
) -> None:
    table = make_table(tmp_path, "extend")
    assert away(table, "bob", "2026-12-24", "2026-12-27").exit_code == 0
    tick(table, config)
    reports = [m for m in mails(table) if "report" in str(m["Subject"]).lower()]
    assert reports
    for message in reports:
        text = message.get_body(("plain",)).get_content()
        assert "bob is away from 2026-12-24 to 2026-12-27." in text
        html = message.get_body(("html",)).get_content()
        assert "bob is away from 2026-12-24 to 2026-12-27." in html


# -- the reading, pure -----------------------------------------------------------------------------
def test_honoured_days_in_the_order_absences_were_taken() -> None:
    meta = {"options": {"absence": "extend", "absence_days": 4}, "timezone": "UTC"}
    at = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    day = dt.date
    taken = [
        ("bob", {"from": day(2026, 11, 3), "to": day(2026, 11, 4)}, at),
        ("bob", {"from": day(2026, 11, 4), "to": day(2026, 11, 9)}, at),  # the 4th once
        ("ann", {"from": day(2026, 11, 9), "to": day(2026, 11, 9)}, at),
    ]
    days = absences.honoured(meta, taken)
    assert sorted(days["bob"]) == [day(2026, 11, n) for n in (3, 4, 5, 6)]
    assert absences.stretches(days, ["ann", "bob"]) == [
        absences.Away("ann", day(2026, 11, 9), day(2026, 11, 9)),
        absences.Away("bob", day(2026, 11, 3), day(2026, 11, 6)),
    ]
    deadline = dt.datetime(2026, 11, 4, 20, 0, tzinfo=dt.UTC)
    moved = absences.moved_deadline(meta, days, deadline, ["bob"])
    assert moved == dt.datetime(2026, 11, 7, 20, 0, tzinfo=dt.UTC)
    assert absences.moved_deadline(meta, days, deadline, ["ann"]) == deadline
    default = {**meta, "options": {"absence": "default"}}
    assert absences.moved_deadline(default, days, deadline, ["bob"]) == deadline


def test_a_deadline_moved_onto_a_day_the_clocks_skip_its_hour() -> None:
    """02:30 in Berlin, moved past an absence onto 29 March 2026, when 02:30 never comes: the
    offset before the change (03:30 CEST), as for any such time (docs/rulings.md, E24)."""
    meta = {"timezone": "Europe/Berlin", "options": {"absence": "extend"}}
    deadline = dt.datetime(2026, 3, 28, 1, 30, tzinfo=dt.UTC)  # 02:30 CET
    days = {"bob": {dt.date(2026, 3, 28)}}
    moved = absences.moved_deadline(meta, days, deadline, ["bob"])
    assert moved is not None and moved.astimezone(dt.UTC) == dt.datetime(
        2026, 3, 29, 1, 30, tzinfo=dt.UTC
    )


def test_a_journal_line_that_moved_files_is_no_moved_deadline() -> None:
    """A step's line names the files it moved aside as ``moved``: the clock reads only
    ``deadline_moved`` (a line of each kind, as journals made before absences hold)."""
    opened = {"type": "created", "turn": 1, "at": START, "deadline": FIRST_DEADLINE}
    files = {"type": "mail", "at": START, "orders": [], "moved": {"a.yaml": "discarded/a"}}
    assert journal.clock([opened, files], 1).deadline == dt.datetime.fromisoformat(FIRST_DEADLINE)
    moved = {
        "type": "submitted",
        "at": START,
        "orders": [],
        "deadline_moved": {"turn": 1, "deadline": "2026-11-28T10:00:00+00:00", "was": "x"},
    }
    assert journal.clock([opened, files, moved], 1).deadline == dt.datetime(
        2026, 11, 28, 10, tzinfo=dt.UTC
    )
