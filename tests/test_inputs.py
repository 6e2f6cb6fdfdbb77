"""Inputs that are not what they seem: no file input hangs, and no input ends in exit 1.

A file argument may be a pipe, a device or a folder; each command refuses it with a message
instead of reading forever. These run the real command in a subprocess with a timeout, so a
regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.engine.forms import FORM_MARK
from adjudicator.rules import schedule
from adjudicator.rules.rng import Rng
from adjudicator.signing.sshsig import looks_armored
from adjudicator.store.registry import game_names, load_game
from tests.helpers import DEMO_NO_SITE, Table, bot_round, run
from tests.ssh import make_key

TIMEOUT = 30


def command(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in its own process (a hang is a failure, not a stuck suite)."""
    try:
        return subprocess.run(
            # the installed command: `python -m adjudicator` run in the source tree would
            # import the source folder, where the games are not yet in the package
            [str(Path(sys.executable).parent / "adjudicator"), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"adjudicator {' '.join(map(str, args))} still ran after {TIMEOUT} s")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def starter(table: Table) -> str:
    (player,) = table.status()["owed"]
    return player


# -- key_file in the setup and replace --key-file ----------------------------------------------


def setup_with_key_file(tmp_path: Path, key_file: str) -> Path:
    make_key(tmp_path / "keys", "alice")
    path = tmp_path / "setup.yaml"
    path.write_text(
        "game: sultan\nid: x\nplayers:\n"
        "  - name: alice\n    email: alice@example.org\n    key_file: keys/alice.pub\n"
        f"  - name: bob\n    email: bob@example.org\n    key_file: {key_file}\n"
    )
    return path


@pytest.mark.seconds
@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("/dev/zero", "it is a device, not a file"),
        ("pipe", "it is a pipe, not a file"),
        ("keys", "it is a folder, not a file"),
        ("big.pub", "it is 20000 bytes; at most 16 KiB are accepted"),
    ],
)
def test_a_key_file_that_is_no_small_file(tmp_path: Path, target: str, reason: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "big.pub").write_bytes(b"x" * 20000)
    setup = setup_with_key_file(tmp_path, target)
    done = command("new", tmp_path / "g", "--setup", setup)
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == (
        f"Error: {setup}: refused\n  line 9: cannot read key_file {target!r} ({reason})\n"
    )
    assert not (tmp_path / "g").exists()


CAPS = {"setup": 256 * 1024, "key_file": 16 * 1024, "form": 64 * 1024}
"""The size caps docs/rulings.md gives: a file of the cap is read, one byte more is not."""
READ = {
    "setup": "the file is empty",  # comments only
    "key_file": "not an OpenSSH public key line",
    "form": "not an order form",
}
"""What each refusal says of the junk once it was read."""


@pytest.mark.parametrize("over", [0, 1], ids=["at the cap", "a byte over"])
@pytest.mark.parametrize("what", list(CAPS))
def test_each_file_is_read_up_to_its_cap_and_not_a_byte_more(
    tmp_path: Path, what: str, over: int
) -> None:
    """Each file is junk of the size tried: at the cap it is read (and refused for what it
    holds), a byte over it is refused for its size, unread."""
    size = CAPS[what] + over
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"#" * (size - 1) + b"\n")
    if what == "setup":
        result = run("new", tmp_path / "g", "--setup", junk)
    elif what == "key_file":
        result = run("new", tmp_path / "g", "--setup", setup_with_key_file(tmp_path, "junk.txt"))
    else:
        order = tmp_path / "order.yaml"
        order.write_text("id: x\n")
        result = run("check", order, "--form", junk)
    assert result.exit_code == 3, result.output
    said = f"it is {size} bytes; at most {CAPS[what] // 1024} KiB are accepted"
    assert (said in result.output, READ[what] in result.output) == (bool(over), not over)


@pytest.mark.parametrize("kind", ["/dev/zero", "pipe"])
def test_replace_key_file_that_is_no_file(table: Table, kind: str) -> None:
    target = Path("/dev/zero") if kind == "/dev/zero" else table.root / "pipe"
    if kind == "pipe":
        os.mkfifo(target)
    what = "a device" if kind == "/dev/zero" else "a pipe"
    before = (table.gamedir / "log.jsonl").read_bytes()
    done = command("replace", table.gamedir, "--player", "bob", "--key-file", target)
    assert (done.returncode, done.stderr) == (
        3,
        f"Error: --key-file {target}: cannot read the key file (it is {what}, not a file)\n",
    )
    assert (table.gamedir / "log.jsonl").read_bytes() == before


def test_replace_key_file_too_large(table: Table) -> None:
    big = table.root / "big.pub"
    big.write_bytes(b"ssh-ed25519 " + b"A" * 20000)
    result = run("replace", table.gamedir, "--player", "bob", "--key-file", big)
    assert (result.exit_code, result.output) == (
        3,
        f"Error: --key-file {big}: cannot read the key file "
        "(it is 20012 bytes; at most 16 KiB are accepted)\n",
    )


# -- every other file input ----------------------------------------------------------------------


@pytest.mark.seconds
@pytest.mark.parametrize("kind", ["/dev/zero", "pipe"])
def test_setup_file_that_is_no_file(tmp_path: Path, kind: str) -> None:
    setup = Path("/dev/zero") if kind == "/dev/zero" else tmp_path / "pipe"
    if kind == "pipe":
        os.mkfifo(setup)
    what = "a device" if kind == "/dev/zero" else "a pipe"
    done = command("new", tmp_path / "g", "--setup", setup)
    assert (done.returncode, done.stderr) == (
        3,
        f"Error: {setup}: cannot read the setup file (it is {what}, not a file)\n",
    )
    assert not (tmp_path / "g").exists()


@pytest.mark.seconds
def test_order_and_signature_that_are_pipes(table: Table, fifo: Path) -> None:
    player = starter(table)
    order = table.write("o.yaml", table.order_text(player, table.legal(player)))
    done = command("submit", table.gamedir, fifo, "/dev/zero")
    assert (done.returncode, done.stdout) == (
        3,
        f"{fifo}: refused: cannot read the order file (it is a pipe, not a file)\n"
        "/dev/zero: refused: cannot read the order file (it is a device, not a file)\n",
    )
    signature = table.root / "pipe.sig"
    os.mkfifo(signature)
    done = command("submit", table.gamedir, order, signature)
    assert (done.returncode, done.stdout) == (
        3,
        f"{order}: refused: cannot read the signature file (it is a pipe, not a file)\n",
    )
    os.mkfifo(order.with_name("o.yaml.sig"))
    done = command("submit", table.gamedir, order)
    assert (done.returncode, done.stdout) == (
        3,
        f"{order}: refused: cannot read the signature file (it is a pipe, not a file)\n",
    )
    assert table.status()["received"] == []


@pytest.mark.seconds
def test_sign_inputs_that_are_no_files(table: Table, fifo: Path) -> None:
    player = starter(table)
    order = table.write("o.yaml", table.order_text(player, table.legal(player)))
    done = command("sign", fifo, "--key", table.keys[player])
    assert (done.returncode, done.stderr) == (
        2,
        f"Error: {fifo}: cannot read the order file (it is a pipe, not a file)\n",
    )
    for key in (fifo, Path("/dev/zero")):
        what = "a pipe" if key == fifo else "a device"
        done = command("sign", order, "--key", key)
        assert (done.returncode, done.stderr) == (
            2,
            f"Error: {key}: cannot read the key file (it is {what}, not a file)\n",
        )
    assert not order.with_name("o.yaml.sig").exists()


@pytest.mark.parametrize("kind", ["/dev/zero", "pipe"])
def test_check_with_a_form_that_is_no_file(table: Table, kind: str) -> None:
    form = Path("/dev/zero") if kind == "/dev/zero" else table.root / "pipe"
    if kind == "pipe":
        os.mkfifo(form)
    what = "a device" if kind == "/dev/zero" else "a pipe"
    player = starter(table)
    order = table.write("o.yaml", table.order_text(player, table.legal(player)))
    done = command("check", order, "--form", form)
    assert (done.returncode, done.stderr) == (
        3,
        f"Error: {form}: cannot read the form (it is {what}, not a file)\n",
    )
    done = command("check", form, "--form", order)
    assert done.returncode == 3


@pytest.mark.seconds
def test_config_that_is_no_file(table: Table, fifo: Path) -> None:
    """Exit 3, as for every settings file the mail commands cannot read (docs/mail.md: a settings
    file is an input refused); a device that gives bytes is read no further than the cap."""
    done = command("send", table.gamedir, "--config", fifo)
    assert (done.returncode, done.stderr) == (
        3,
        f"Error: {fifo}: cannot be read: it is a pipe, not a file\n",
    )
    for device in ("/dev/zero", "/dev/urandom"):
        done = command("send", table.gamedir, "--config", device)
        assert (done.returncode, done.stderr) == (
            3,
            f"Error: {device}: cannot be read: it is a device that does not read empty, "
            "not a file\n",
        )
    assert not (table.gamedir / "outbox").exists()


@pytest.mark.seconds
def test_config_dev_null_is_no_settings(table: Table) -> None:
    """``--config /dev/null`` (docs/game-master.md, "Trying out a schedule") is an empty file:
    no mail read, everything sent written to the outbox."""
    done = command("tick", table.gamedir, "--config", "/dev/null")
    assert (done.returncode, done.stderr) == (0, "")
    assert sorted(p.name for p in (table.gamedir / "outbox").iterdir())


def test_keygen_onto_a_pipe_or_device(tmp_path: Path, fifo: Path) -> None:
    for target in (fifo, Path("/dev/zero")):
        done = command("keygen", target)
        assert (done.returncode, done.stderr) == (
            2,
            f"Error: {target}: {target} already exists; not overwriting it\n",
        )
    assert fifo.exists() and not Path(f"{fifo}.pub").exists()


# -- check --form with a damaged form ------------------------------------------------------------


def damaged_form(table: Table, player: str, change: Callable[[dict[str, Any]], Any]) -> Path:
    """``player``'s form with the data it carries for checking changed by ``change``."""
    result = run("form", table.gamedir, "--player", player)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    marked = [i for i, line in enumerate(lines) if line.startswith(FORM_MARK)]
    carried = json.loads("".join(lines[i][len(FORM_MARK) :] for i in marked))
    change(carried)
    lines[marked[0] : marked[-1] + 1] = [FORM_MARK + json.dumps(carried)]
    form = table.root / "form.yaml"
    form.write_text("\n".join(lines) + "\n")
    return form


def form_line(form: Path) -> int:
    lines = form.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(FORM_MARK))


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(carried: dict[str, Any]) -> None:
        target = carried
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _drop(*path: str) -> Callable[[dict[str, Any]], None]:
    def change(carried: dict[str, Any]) -> None:
        target = carried
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_set(("context",), None), "'context' must be a mapping of keys, not nothing"),
        (_set(("context",), []), "'context' must be a mapping of keys, not a list"),
        (
            _set(("context", "cushions"), "3"),
            "'context.cushions' must be a whole number such as 12, not the text '3'",
        ),
        (_drop("context", "hand"), "nothing is given for 'context.hand'"),
        (_set(("context", "drawn"), {"a": 1}), "'context.drawn' must be a list, not a mapping"),
        (_set(("context", "hand"), None), "'context.hand' must be a list, not nothing"),
        (_set(("turn",), "1"), "'turn' must be a whole number such as 12, not the text '1'"),
        (_drop("player"), "nothing is given for 'player'"),
        (_set(("game",), "chess"), "no game named 'chess' is installed"),
        (_drop("game"), "nothing is given for 'game'"),
    ],
)
def test_check_with_a_damaged_form(
    table: Table, change: Callable[[dict[str, Any]], None], reason: str
) -> None:
    player = starter(table)
    form = damaged_form(table, player, change)
    order = table.write("o.yaml", table.order_text(player, {"return": "purple"}))
    result = run("check", order, "--form", form)
    assert result.exit_code == 3
    first, second, *rest = result.output.splitlines()
    assert first == (
        f"Error: {form}: refused: line {form_line(form)}: the data this order form carries "
        "for checking is damaged, so nothing was checked; get the form again"
    )
    assert second.startswith(f"  {reason}")
    assert rest == []


def test_check_with_a_damaged_court_form(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court")
    form = damaged_form(table, "alice", _set(("context", "vizirs", "fat"), "Kaffa"))
    order = table.write("o.yaml", table.order_text("alice", table.legal("alice")))
    result = run("check", order, "--form", form)
    assert result.exit_code == 3
    assert result.output == (
        f"Error: {form}: refused: line {form_line(form)}: the data this order form carries "
        "for checking is damaged, so nothing was checked; get the form again\n"
        "  'context.vizirs.fat' must be a mapping of keys, not the text 'Kaffa'\n"
    )


def test_check_with_a_form_whose_data_is_no_json(table: Table) -> None:
    player = starter(table)
    form = table.root / "form.yaml"
    form.write_text(f'return:\n{FORM_MARK}{{"game": "sultan",\n')
    order = table.write("o.yaml", table.order_text(player, table.legal(player)))
    result = run("check", order, "--form", form)
    assert result.exit_code == 3
    assert result.output.startswith(
        f"Error: {form}: refused: line 2: the data this order form carries for checking is "
        "damaged, so nothing was checked; get the form again\n  not JSON: "
    )


def test_check_with_a_file_that_is_no_form(table: Table) -> None:
    player = starter(table)
    order = table.write("o.yaml", table.order_text(player, table.legal(player)))
    result = run("check", order, "--form", order)
    assert result.exit_code == 3
    assert result.output == f"Error: {order}: not an order form (no '# adjudicator-form:' line)\n"


def every_game_and_count() -> list[tuple[str, int, dict[str, Any]]]:
    """Every registered game at every player count with its default options, and the options
    that change what a Sultan player is asked."""
    cases = [
        (name, count, {})
        for name in game_names()
        for count in range(load_game(name).min_players, load_game(name).max_players + 1)
    ]
    return [
        *cases,
        ("sultan", 2, {"placement": "sequential"}),
        ("sultan", 5, {"jewel_choice": "random"}),
    ]


@pytest.mark.parametrize(("name", "count", "options"), every_game_and_count())
def test_every_context_fits_the_games_context_model(
    name: str, count: int, options: dict[str, Any]
) -> None:
    """So a form that was not damaged is never refused as damaged."""
    game = load_game(name)
    names = ["alice", "bob", "carol", "dave", "erin"][:count]
    effective, _ = game.options(names, options)
    rng = Rng("5f0c9d3e2b1a40718293a4b5c6d7e8f9")
    state = game.setup([{"name": n} for n in names], effective, rng)
    while not game.is_over(state):
        for player in names:
            game.context_model().model_validate(game.context(game.view(state, player)))
        state = bot_round(game, state, rng)


# -- deadlines past the year 9999 ----------------------------------------------------------------


def test_later_and_earlier_past_the_calendar() -> None:
    start = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert schedule.later(start, timedelta(hours=2)) == datetime(2026, 11, 25, 14, 0, tzinfo=UTC)
    with pytest.raises(schedule.PastTheCalendar, match="past the year 9999"):
        schedule.later(start, timedelta(days=99999999))
    with pytest.raises(schedule.PastTheCalendar, match="before the year 1"):
        schedule.earlier(start, timedelta(days=99999999))
    with pytest.raises(schedule.PastTheCalendar, match="past the year 9999"):
        schedule.duration("9999999999999999999999d")
    with pytest.raises(schedule.PastTheCalendar, match="past the year 9999"):
        schedule.deadline_after("99999999d", start, {})
    with pytest.raises(schedule.PastTheCalendar, match="past the year 9999"):
        schedule.moment("9999-12-31 23:59 America/New_York", lambda: ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("deadline", "taken"),
    [("48h", True), ("20:00 Europe/Berlin", True), ("20:00", True), ("soon", False)],
)
def test_a_deadline_is_a_duration_or_a_daily_time(
    tmp_path: Path, deadline: str, taken: bool
) -> None:
    make_key(tmp_path, "a")
    make_key(tmp_path, "b")
    setup = tmp_path / "setup.yaml"
    setup.write_text(
        "game: sultan\nid: x\nplayers:\n"
        "  - {name: alice, email: a@example.org, key_file: a.pub}\n"
        "  - {name: bob, email: b@example.org, key_file: b.pub}\n"
        f"deadline: '{deadline}'\n"
    )
    result = run("new", tmp_path / "g", "--setup", setup)
    if taken:
        assert result.exit_code == 0, result.output
        return
    assert (result.exit_code, result.output) == (
        3,
        f"Error: {setup}: refused\n  line 6: the deadline must be a duration such as '48h' or "
        "a daily time such as '20:00 Europe/Berlin'\n",
    )


@pytest.mark.parametrize(
    ("key", "value", "line", "reason"),
    [
        (
            "deadline",
            "99999999d",
            "line 8",
            "the first deadline, 99999999d after the game starts, would be past the year 9999",
        ),
        (
            "deadline",
            "9999999999999999999999m",
            "line 8",
            "the first deadline, 9999999999999999999999m after the game starts, would be past "
            "the year 9999",
        ),
        (
            "reminders",
            "[24h, 99999999d]",
            "line 8",
            "the reminder 99999999d before the first deadline would be before the year 1",
        ),
        (
            "no deadline, reminders",
            "[24h, 99999999d]",
            "line 8",
            "the reminder 99999999d before any deadline would be before the year 1",
        ),
    ],
)
def test_setup_deadline_past_the_calendar(
    tmp_path: Path, key: str, value: str, line: str, reason: str
) -> None:
    make_key(tmp_path, "a")
    make_key(tmp_path, "b")
    setup = tmp_path / "setup.yaml"
    deadline = "" if key != "reminders" else "deadline: 48h\n"
    key = key.rpartition(" ")[2]
    setup.write_text(
        "game: sultan\nid: x\nplayers:\n"
        "  - {name: alice, email: a@example.org, key_file: a.pub}\n"
        "  - {name: bob, email: b@example.org, key_file: b.pub}\n"
        "timezone: UTC\noptions: {}\n"
        f"{key}: {value}\n{deadline}"
    )
    result = run("new", tmp_path / "g", "--setup", setup)
    assert (result.exit_code, result.output) == (
        3,
        f"Error: {setup}: refused\n  {line}: {reason}\n",
    )
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--by", "99999999d"], "99999999d after"),
        (["--by", "9999999999999999999999d"], "'9999999999999999999999d'"),
        (["--to", "9999-12-31T23:59-05:00"], "'9999-12-31T23:59-05:00'"),
        (["--to", "9999-12-31 23:59 America/New_York"], "'9999-12-31 23:59 America/New_York'"),
    ],
)
def test_extend_past_the_calendar(tmp_path: Path, args: list[str], reason: str) -> None:
    table = Table(tmp_path, schedule={"deadline": "48h"})
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("extend", table.gamedir, *args)
    assert result.exit_code == 3, result.output
    option = args[0]
    assert result.output.startswith(f"Error: {option} ")
    assert reason in result.output
    assert "past the year 9999" in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["--to", "9999-12-31 09:59 UTC"], False),
        (["--to", "9999-12-31 10:00 UTC"], True),
        (["--to", "9999-12-31 00:00 Etc/GMT+12"], True),  # 12:00 UTC, the next year at UTC+14
        (["--to", "9999-12-31T23:59+14:00"], False),
    ],
)
def test_a_deadline_every_time_zone_can_show(
    tmp_path: Path, args: list[str], refused: bool
) -> None:
    """A deadline still in the year 9999 in UTC may be in the year 10000 east of it, where no
    reader could be shown it: the last one taken is 9999-12-31 23:59 at UTC+14 (E15)."""
    table = Table(tmp_path, schedule={"deadline": "48h", "timezone": "Pacific/Kiritimati"})
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("extend", table.gamedir, *args)
    if refused:
        assert result.exit_code == 3, result.output
        assert "9999-12-31 09:59 UTC, the last deadline" in result.output
        assert (table.gamedir / "log.jsonl").read_bytes() == before
        return
    assert result.exit_code == 0, result.output
    assert result.output == (
        "deadline: 9999-12-31 09:59 UTC (9999-12-31 23:59 +14, Pacific/Kiritimati)\n"
    )
    for command in (["status"], ["report", "--player", "alice"], ["send", "--config", os.devnull]):
        shown = run(*command, table.gamedir)
        assert shown.exit_code == 0, (command, shown.output)
    assert "9999-12-31 23:59 +14" in run("status", table.gamedir).output


def test_extend_by_past_the_last_deadline(tmp_path: Path) -> None:
    table = Table(tmp_path, schedule={"deadline": "48h"})
    assert run("extend", table.gamedir, "--to", "9999-12-30 09:59 UTC").exit_code == 0
    assert run("extend", table.gamedir, "--by", "24h").exit_code == 0
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("extend", table.gamedir, "--by", "1m")
    assert result.exit_code == 3, result.output
    assert result.output.startswith("Error: --by 1m: 1m after 9999-12-31 09:59 UTC is past ")
    assert (table.gamedir / "log.jsonl").read_bytes() == before


def test_a_deadline_past_the_last_one_is_past_the_calendar() -> None:
    last = datetime(9999, 12, 31, 9, 59, 59, 999999, tzinfo=UTC)
    assert last == schedule.LAST_DEADLINE
    kiritimati = ZoneInfo("Pacific/Kiritimati")
    assert schedule.shown(last, kiritimati).endswith("(9999-12-31 23:59 +14, Pacific/Kiritimati)")
    start = datetime(9999, 12, 29, 10, 0, tzinfo=UTC)
    assert schedule.later(start, timedelta(hours=47, minutes=59)) < last
    with pytest.raises(schedule.PastTheCalendar, match="the last deadline"):
        schedule.later(start, timedelta(hours=48))
    with pytest.raises(schedule.PastTheCalendar, match="the last deadline"):
        schedule.deadline_after("48h", start, {})
    evening = datetime(9999, 12, 30, 0, 0, tzinfo=UTC)  # the next day at 08:00 and 10:00 UTC
    assert schedule.deadline_after("20:00 Etc/GMT+12", evening, {}) < last
    with pytest.raises(schedule.PastTheCalendar, match="the last deadline"):
        schedule.deadline_after("22:00 Etc/GMT+12", evening, {})
    with pytest.raises(schedule.PastTheCalendar, match="the last deadline"):
        schedule.moment("9999-12-31 10:00", lambda: ZoneInfo("UTC"))


@pytest.mark.parametrize(
    "to",
    ["0001-01-01 00:00 UTC", "0001-01-01T11:59+00:00", "0001-01-01 00:00 Pacific/Kiritimati"],
)
def test_extend_to_the_first_year_is_refused(tmp_path: Path, to: str) -> None:
    """A time in the year 1 in UTC is in the year 0 west of it, where it cannot be shown: it
    is refused as before the calendar, not shown as a deadline that is not in the future."""
    table = Table(tmp_path, schedule={"deadline": "48h", "timezone": "Etc/GMT+12"})
    before = (table.gamedir / "log.jsonl").read_bytes()
    result = run("extend", table.gamedir, "--to", to)
    assert result.exit_code == 3, result.output
    assert "before the year 1" in result.output
    assert (table.gamedir / "log.jsonl").read_bytes() == before


def test_a_time_outside_the_calendar_in_utc_says_which_end() -> None:
    with pytest.raises(schedule.PastTheCalendar, match="before the year 1 in UTC"):
        schedule.moment("0001-01-01T00:00+14:00", lambda: ZoneInfo("UTC"))


def test_a_reminder_before_the_calendar_is_long_past(tmp_path: Path) -> None:
    """``extend --to`` may move a deadline earlier than the first, so that a long reminder
    before it falls before the year 1: it is due, as any reminder whose time has passed."""
    first = datetime(1, 1, 1, tzinfo=UTC)
    assert schedule.reminder_at(first + timedelta(days=1), "2d") == first
    assert schedule.reminder_at(first + timedelta(days=3), "2d") == first + timedelta(days=1)
    now = datetime.now(UTC)
    # the longest reminder the setup takes, whatever the hour (the calendar's first moment,
    # where every zone is in the year 1, is at noon UTC: counted from midnight, this test
    # failed every morning)
    days = (now - schedule.FIRST_MOMENT).days + 2
    table = Table(tmp_path, schedule={"deadline": "48h", "reminders": [f"{days}d"]})
    soon = (now + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M UTC")
    assert run("extend", table.gamedir, "--to", soon).exit_code == 0
    result = run("tick", table.gamedir, "--config", os.devnull)
    assert result.exit_code in (0, 75), result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("now", ["0001-01-01T00:00+01:00", "9999-12-31T23:59-12:00"])
def test_a_clock_outside_the_calendar_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, now: str
) -> None:
    table = Table(tmp_path, schedule={"deadline": "48h"})
    monkeypatch.setenv("ADJUDICATOR_NOW", now)
    result = run("status", table.gamedir)
    assert result.exit_code == 2, result.output
    assert "ADJUDICATOR_NOW" in result.output


def test_extend_with_a_malformed_value_is_a_usage_error(tmp_path: Path) -> None:
    table = Table(tmp_path, schedule={"deadline": "48h"})
    result = run("extend", table.gamedir, "--to", "99999-01-01")
    assert result.exit_code == 2
    result = run("extend", table.gamedir, "--by", "soon")
    assert result.exit_code == 2


# -- whatever the order file holds, submit and check refuse it or take it ------------------------

ORDERISH = st.lists(
    st.sampled_from(
        [
            *["id: cairo-2026\n", "player: alice\n", "turn: 1\n", "return: white\n", "bid: "],
            *["{cushion: 1, card: 3}", "bids: [", "]", "- ", "\n", "  ", ": ", '"', "'", "#"],
            *['"\\U00110000"', '"\\UFFFFFFFF"', '"\\uD800"', '"\\x85"', '"\\N', "\\"],
            *["&a ", "*a ", "!!int ", "<<: ", "? "],
            *["99999999999999999999999", "1e309", ".nan", "2026-02-30", "null", "~", "yes"],
            *["\t", "\r\n", "\x00", "\ufeff", "é", "---\n", "...\n", "{", "}", "[", ","],
        ]
    ),
    max_size=25,
).map("".join)


@pytest.fixture(scope="module")
def fuzz_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Table, Path]:
    table = Table(tmp_path_factory.mktemp("fuzz"))
    (player,) = table.status()["owed"]
    form = table.root / "form.yaml"
    form.write_text(run("form", table.gamedir, "--player", player).output)
    return table, form


@pytest.mark.seconds
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=ORDERISH, other=st.text(max_size=80), raw=st.binary(max_size=80))
def test_any_order_file_is_refused_or_taken(
    fuzz_table: tuple[Table, Path], text: str, other: str, raw: bytes
) -> None:
    """No exception but the loader's own escapes: submit and check end in 0 or 3."""
    table, form = fuzz_table
    for data in (text.encode("utf-8", "surrogatepass"), other.encode("utf-8", "replace"), raw):
        order = table.root / "fuzz.yaml"
        order.write_bytes(data)
        result = run("check", order, "--form", form)
        assert result.exit_code in (0, 3), result.output
        result = run("submit", table.gamedir, order)
        # unsigned: refused; a file that begins with the armor is a signature by the pairing
        # rule, and one with no order file before it is a usage error
        assert result.exit_code == (2 if looks_armored(data) else 3), result.output


# -- the seed ------------------------------------------------------------------------------------

SEED = "0123456789abcdef0123456789ABCDEF"


def seeded_setup(tmp_path: Path, seed_line: str) -> Path:
    make_key(tmp_path, "a")
    make_key(tmp_path, "b")
    setup = tmp_path / "setup.yaml"
    setup.write_text(
        "game: sultan\nid: x\n"
        f"{seed_line}\n"
        "players:\n"
        "  - {name: alice, email: a@example.org, key_file: a.pub}\n"
        "  - {name: bob, email: b@example.org, key_file: b.pub}\n"
    )
    return setup


@pytest.mark.parametrize(
    ("seed", "found"),
    [
        ("11", "the number 11 (write the seed in quotes)"),
        (
            "12345678901234567890123456789012",
            "the number 12345678901234567890123456789012 (write the seed in quotes)",
        ),
        ('"9f2c"', "'9f2c' (4 hex digits)"),
        (f'"{SEED[:-1]}"', f"'{SEED[:-1]}' (31 hex digits)"),
        (f'"{SEED[:-1]}g"', f"'{SEED[:-1]}g' ('g' is not a hex digit)"),
        (f'"0x{SEED}"', f"'0x{SEED}' ('x' is not a hex digit)"),
        (f'"{SEED * 4}0"', "a string of 129 hex digits"),
        ("", "nothing (the value is empty)"),
    ],
)
def test_a_seed_anyone_could_guess_is_refused(tmp_path: Path, seed: str, found: str) -> None:
    setup = seeded_setup(tmp_path, f"seed: {seed}")
    result = run("new", tmp_path / "g", "--setup", setup)
    assert (result.exit_code, result.output) == (
        3,
        f"Error: {setup}: refused\n"
        "  line 3: the seed must be a string of 32 to 128 hex digits (128 random bits or more; "
        f"leave it out to have one drawn), not {found}\n",
    )
    assert not (tmp_path / "g").exists()


def test_a_seed_of_32_hex_digits_is_kept_as_written(tmp_path: Path) -> None:
    setup = seeded_setup(tmp_path, f'seed: "{SEED}"')
    assert run("new", tmp_path / "g", "--setup", setup).exit_code == 0
    assert json.loads((tmp_path / "g" / "game.json").read_text())["seed"] == SEED


def test_a_drawn_seed_has_128_bits(tmp_path: Path) -> None:
    seeds = set()
    for name in ("g1", "g2"):
        folder = tmp_path / name
        folder.mkdir()
        setup = seeded_setup(folder, "")
        assert run("new", folder / "g", "--setup", setup).exit_code == 0
        seed = json.loads((folder / "g" / "game.json").read_text())["seed"]
        assert isinstance(seed, str)
        assert len(seed) == 32 and int(seed, 16) >= 0
        seeds.add(seed)
    assert len(seeds) == 2


@pytest.mark.seconds
def test_the_demo_seed_is_public_and_says_so(tmp_path: Path) -> None:
    result = run(*DEMO_NO_SITE, "sultan", "--players", "3", "--seed", "7", "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    seed = "00000000000000000000000000000007"
    assert json.loads((tmp_path / "d" / "game" / "game.json").read_text())["seed"] == seed
    assert result.output.splitlines()[-1] == (
        f"seed:    {seed} (--seed 7 as 32 hex digits; a demo's seed is public, a real game "
        "draws its own and keeps it secret until the end)"
    )
    result = run("demo", "sultan", "--seed", "-1", "--dir", tmp_path / "e")
    assert result.exit_code == 2
