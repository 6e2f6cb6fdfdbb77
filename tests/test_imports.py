"""A command imports only what it needs: reading a game's data opens no schema, no
YAML parser, no templates, no signature code and no lock; a valid order is checked, submitted
and taken from mail without the schemas (pydantic). The benchmarks (benchmarks/read.py and
benchmarks/commands.py) time them; this test checks what makes that reachable."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from adjudicator import demo
from adjudicator.cli.support import EXIT_REFUSED
from tests.helpers import Table, order_mail, run

HEAVY = ("pydantic", "yaml", "jinja2", "cryptography", "filelock", "PIL", "babel")
GAMES = ("adjudicator.games.sultan", "adjudicator.games.sultans_court")
"""The built-in games' packages."""

PROBE = """
import atexit, json, sys
heavy = set({heavy!r})
def said():
    names = set(sys.modules) | {{m.split('.')[0] for m in sys.modules}}
    print(json.dumps(sorted(names & heavy)), file=sys.stderr)
atexit.register(said)
sys.argv = ["adjudicator", *{args!r}]
from adjudicator.cli import main
main()
"""


def loaded(
    *args: str, stdin: bytes = b"", exit: int = 0, heavy: tuple[str, ...] = HEAVY
) -> list[str]:
    """The ``heavy`` packages or modules a run of ``adjudicator ARGS`` imported (``stdin`` its
    standard input; ``exit`` the exit it must end with)."""
    code = PROBE.format(heavy=heavy, args=list(args))
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        input=stdin,
        timeout=120,
        check=False,
        cwd=tempfile.gettempdir(),  # not the source tree, which `-c` would put first on the path
    )
    assert done.returncode == exit, done.stderr.decode()
    found: list[str] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return found


COLLECTIONS = """
import atexit, gc, json, sys
from importlib.metadata import entry_points
(command,) = entry_points(group="console_scripts", name="adjudicator")
gc.collect()  # what finding the entry point made: the script starts without it
began = []
gc.callbacks.append(lambda phase, info: phase == "start" and began.append(info["generation"]))
atexit.register(lambda: print(json.dumps(began), file=sys.stderr))
sys.argv = ["adjudicator", *{args!r}]
command.load()()
"""


def collections(*args: str, stdin: bytes = b"") -> list[int]:
    """The generation of each garbage collection a run of the ``adjudicator`` command (the
    installed script's own entry point) with ``ARGS`` began, in order."""
    done = subprocess.run(
        [sys.executable, "-c", COLLECTIONS.format(args=list(args))],
        capture_output=True,
        input=stdin,
        timeout=120,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    assert done.returncode == 0, done.stderr.decode()
    began: list[int] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return began


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("games")
    return {
        name: demo.run(name, None, 1, tmp / name, lambda _line: None, site=False)
        for name in ("sultan", "sultans_court")
    }


def test_the_version_imports_nothing_heavy() -> None:
    assert loaded("--version") == []


STARTED = """
import sys
before = set(sys.modules)
sys.argv = ["adjudicator", {flag!r}]
from adjudicator.cli import main
try:
    main()
finally:
    print(sorted(set(sys.modules) - before), file=sys.stderr)
"""


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_the_version_and_the_help_load_no_json_or_paths(flag: str) -> None:
    """The command table's own module (``cli.support``) loads nothing the commands alone
    need: neither the JSON they print nor the paths they are given (``pathlib`` with
    ``urllib.parse`` and ``ipaddress``; a ``click.Path`` also loads ``locale``, which
    ``--version`` loads anyway, for click's words)."""
    done = subprocess.run(
        [sys.executable, "-c", STARTED.format(flag=flag)],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    assert done.returncode == 0, done.stderr.decode()
    new = set(ast.literal_eval(done.stderr.decode().strip().splitlines()[-1]))
    assert "json" not in new
    if flag == "--version":
        assert not new & {"pathlib", "urllib.parse", "ipaddress"}


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize(
    "command",
    [["status"], ["status", "--json"], ["view", "--player", "alice", "--json"], ["log"]],
    ids=["status", "status --json", "view --json", "log"],
)
def test_reading_a_games_data_opens_no_schema_parser_template_or_lock(
    games: dict[str, Path], game: str, command: list[str]
) -> None:
    assert loaded(command[0], str(games[game]), *command[1:]) == []


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize(
    "command",
    [["status"], ["view", "--player", "alice", "--json"], ["log"]],
    ids=["status", "view --json", "log"],
)
def test_reading_a_running_game_loads_no_mail_parser_zone_salt_or_step_runner(
    tmp_path: Path, game: str, command: list[str]
) -> None:
    """Without queued mail, deadlines or zones, nothing of these: the email package reads how
    long mail has waited, zoneinfo shows a deadline, secrets draws a salt for a new game, and
    the step runner changes a game."""
    table = Table(tmp_path, players=4, game=game)
    unneeded = ("email", "zoneinfo", "secrets", "adjudicator.store.steps")
    assert loaded(command[0], str(table.gamedir), *command[1:], heavy=unneeded) == []


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize("command", [["log"], ["log", "--json"]], ids=["log", "log --json"])
def test_the_record_of_a_finished_game_loads_no_step_runner(
    games: dict[str, Path], game: str, command: list[str]
) -> None:
    """The complete record holds every order used, read from each turn's resolution: the
    step runner, which changes a game, is not loaded to read them."""
    unneeded = ("adjudicator.engine.adjudication", "adjudicator.store.steps")
    assert loaded(command[0], str(games[game]), *command[1:], heavy=unneeded) == []
    record = json.loads(run("log", games[game], "--json").output)
    resolved = (games[game] / "turns").glob("[0-9][0-9][0-9][0-9]/resolution.json")
    assert record["over"]
    assert sorted(record["orders"], key=int) == sorted(
        (str(int(r.parent.name)) for r in resolved), key=int
    )


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
@pytest.mark.parametrize(
    "command",
    [["report", "--player", "alice"], ["report", "--gm"], ["view", "--player", "alice"]],
    ids=["report", "report --gm", "view"],
)
def test_a_report_shown_before_is_shown_again_without_templates(
    games: dict[str, Path], game: str, command: list[str]
) -> None:
    """The first time renders (Jinja, the texts' YAML); the second reads the rendered text
    from the user's cache folder (adjudicator/present/rendered.py), and loads not even the
    game's own package (its cache key finds a built-in game's folder without importing it)."""
    first = loaded(command[0], str(games[game]), *command[1:])
    assert "jinja2" in first
    assert loaded(command[0], str(games[game]), *command[1:], heavy=(*HEAVY, *GAMES)) == []


@pytest.mark.seconds
def test_a_form_shown_before_is_shown_again_without_templates(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    owed = next(iter(table.status()["owed"]))
    assert "jinja2" in loaded("form", str(table.gamedir), "--player", owed)
    assert loaded("form", str(table.gamedir), "--player", owed, heavy=(*HEAVY, *GAMES)) == []


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_checking_a_valid_order_loads_no_schema_and_no_signature_code(
    tmp_path: Path, game: str
) -> None:
    """`check` verifies no signature: the cryptography is left unloaded; and the game's plain
    check tells that a valid order and the form's context fit their schemas, so pydantic is
    left unloaded too. An order with a problem is worded from the schema's problems."""
    table = Table(tmp_path, players=4, game=game)
    owed = next(iter(table.status()["owed"]))
    form = tmp_path / "form.yaml"
    form.write_text(run("form", table.gamedir, "--player", owed).output)
    order = table.write("order.yaml", table.order_text(owed, table.legal(owed)))
    found = loaded("check", str(order), "--form", str(form))
    assert "cryptography" not in found
    assert "pydantic" not in found
    wrong = table.write("wrong.yaml", table.order_text(owed, {**table.legal(owed), "extra": 1}))
    assert "pydantic" in loaded("check", str(wrong), "--form", str(form), exit=EXIT_REFUSED)


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_a_valid_order_is_submitted_and_taken_from_mail_without_the_schemas(
    tmp_path: Path, game: str
) -> None:
    by_hand, by_mail = (Table(tmp_path / way, players=4, game=game) for way in ("hand", "mail"))
    owed = next(iter(by_hand.status()["owed"]))
    signed = by_hand.signed(owed, by_hand.legal(owed), name="order.yaml")
    # nor what only a game with deadlines, a settings file or a password command needs, nor
    # the package-data reader (the built-in templates are a folder of files), nor the runner
    # of an adjudication (a turn is resolved by `tick` or `adjudicate`, never by an order),
    # nor the reader of keys' files (an Ed25519 key line is read without it)
    unneeded = (
        "adjudicator.signing.keys",
        "cryptography.hazmat.primitives.serialization",
        "cryptography.hazmat.primitives.asymmetric.rsa",
        "zoneinfo",
        "tomllib",
        "subprocess",
        "shlex",
        "importlib.resources",
        "adjudicator.engine.adjudication",
    )
    found = loaded("submit", str(by_hand.gamedir), str(signed), heavy=("pydantic", *unneeded))
    assert found == []
    assert owed in by_hand.status()["received"]
    message = order_mail(by_mail, owed, by_mail.legal(owed))
    # nor the sending (smtplib, ssl), nor the readers of HTML mail and of mail folders
    sending = ("smtplib", "ssl", "html.parser", "mailbox", "imapclient")
    heavy = ("pydantic", *sending, *unneeded)
    found = loaded("ingest", str(by_mail.gamedir), stdin=message, heavy=heavy)
    assert found == []
    assert owed in by_mail.status()["received"]


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_a_valid_order_is_submitted_and_taken_from_mail_without_a_garbage_collection(
    tmp_path: Path, game: str
) -> None:
    """What a command makes as it starts (its modules, their classes and functions) lasts
    until it ends: a collection then would free nothing (adjudicator/__main__.py)."""
    by_hand, by_mail = (Table(tmp_path / way, players=4, game=game) for way in ("hand", "mail"))
    owed = next(iter(by_hand.status()["owed"]))
    signed = by_hand.signed(owed, by_hand.legal(owed), name="order.yaml")
    assert collections("submit", str(by_hand.gamedir), str(signed)) == []
    assert owed in by_hand.status()["received"]
    message = order_mail(by_mail, owed, by_mail.legal(owed))
    assert collections("ingest", str(by_mail.gamedir), stdin=message) == []
    assert owed in by_mail.status()["received"]


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_a_valid_setup_makes_a_game_without_the_schemas(tmp_path: Path, game: str) -> None:
    """Its keys, options and player entries are told fit in plain Python, and the game is
    one of the adjudicator's own; a setup with a problem is worded from the schema's problems
    (adjudicator/engine/setup.py)."""
    table = Table(tmp_path, players=4, game=game, schedule={"reminders": ["1h"]})
    setup = dict(table.setup)
    if game == "sultans_court":
        setup["players"] = [{**setup["players"][0], "colour": "blue"}, *setup["players"][1:]]
        setup["options"] = {"max_rounds": 9, "press": "public"}
    else:
        setup["options"] = {"screens": False, "start_player": "bob", "nmr": "wait"}
    table.setup_path.write_text(yaml.safe_dump(setup, sort_keys=False))
    # nor the installed packages' metadata (an entry point names a game of another package)
    unneeded = ("pydantic", "importlib.metadata", "email")
    new = ("new", str(tmp_path / "again"), "--setup", str(table.setup_path))
    assert loaded(*new, heavy=unneeded) == []
    assert run("status", tmp_path / "again").exit_code == 0
    wrong = {**setup, "options": {**setup["options"], "no_such_option": 1}}
    table.setup_path.write_text(yaml.safe_dump(wrong, sort_keys=False))
    refused = loaded(
        "new", str(tmp_path / "refused"), "--setup", str(table.setup_path), exit=EXIT_REFUSED
    )
    assert "pydantic" in refused
    assert not (tmp_path / "refused").exists()
