"""A game as its own package, as a third party would ship it (docs/games.md).

``tests/thirdparty`` is such a package: the game Higher, with its entry point in the group
``adjudicator.games``, its templates inside the package and a key of its own in a setup's player
entries. The tests build its wheel and unpack it into a temporary folder on ``sys.path``, which
is all that installing it would do; nothing is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from adjudicator.present import rendered
from adjudicator.present.rules_summary import summary
from adjudicator.store.registry import game_names, load_game
from tests.helpers import SEED, Table, run
from tests.ssh import make_key
from tests.test_engine_runtime import installed_command
from tests.wheels import unpacked_wheel

# a game's package built and installed (`make quick` leaves it out)
pytestmark = pytest.mark.seconds

PACKAGE = Path(__file__).parent / "thirdparty"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the unpacked wheel of the game Higher: its package and its dist-info."""
    site, names = unpacked_wheel(PACKAGE, tmp_path_factory.mktemp("higher"))
    assert "higher_game/templates/player.txt.j2" in names
    assert "higher_game/templates/texts/problems.yaml" in names
    assert "higher_game/templates/rules/en.md" in names
    assert "higher_game-0.1.0.dist-info/entry_points.txt" in names
    return site


@pytest.fixture
def higher(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Higher is installed for this test only (``sys.path``, as a site folder is)."""
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("higher_game", None)


def test_without_the_package_there_is_no_higher() -> None:
    assert "higher" not in game_names()


def test_the_registry_finds_the_game_by_its_entry_point(higher: Path) -> None:
    assert "higher" in game_names()
    game = load_game("higher")
    assert game.title == "Higher"
    assert Path(str(game.templates())) == higher / "higher_game" / "templates"
    # A report of Higher shown again is keyed on its package, templates included, too.
    assert (higher / "higher_game").resolve() in rendered.program("higher", lambda: game)
    assert summary("higher", "fr") == (game.templates() / "rules" / "en.md").read_text("utf-8")
    result = run("games")
    assert result.exit_code == 0
    assert "higher\t2-3 players\tHigher\n" in result.output
    assert "sultan\t2-5 players\tSultan\n" in result.output


def write_setup(root: Path, players: list[dict[str, str]]) -> Path:
    for player in players:
        make_key(root / "keys", player["name"])
        player.update(email=f"{player['name']}@example.org", key_file=f"keys/{player['name']}.pub")
    setup = root / "setup.yaml"
    data = {"game": "higher", "id": "h1", "seed": SEED, "players": players}
    setup.write_text(yaml.safe_dump(data, sort_keys=False))
    return setup


def test_the_games_own_player_key_reaches_its_reports(higher: Path, tmp_path: Path) -> None:
    setup = write_setup(tmp_path, [{"name": "alice", "motto": "Up we go"}, {"name": "bob"}])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 0, result.output
    report = run("report", tmp_path / "g", "--player", "alice")
    assert report.output.startswith("HIGHER: game h1, turn 1, report for alice\n")
    assert '  alice: 0 point(s) ("Up we go")\n  bob: 0 point(s)\n' in report.output
    assert "Your cards: 1, 2, 3, 4, 5\n" in report.output
    assert "YOUR ORDER FOR TURN 1" in report.output, "templates/common is shared"
    assert "pick:     # one of your cards: 1, 2, 3, 4, 5\n" in report.output


def test_the_games_player_keys_are_checked_like_any_other(higher: Path, tmp_path: Path) -> None:
    setup = write_setup(
        tmp_path, [{"name": "alice", "colour": "red"}, {"name": "bob", "motto": "x" * 41}]
    )
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    lines = setup.read_text().splitlines()
    colour = 1 + next(i for i, line in enumerate(lines) if "colour: red" in line)
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line {colour}: unknown key 'players[1].colour'; a player of Higher has the keys "
        "name, email, key, key_file, lang, tz, motto\n"
    )
    setup.write_text(setup.read_text().replace("colour: red", "motto: fine"))
    result = run("new", tmp_path / "g", "--setup", setup)
    motto = 1 + next(i for i, line in enumerate(lines) if "motto: xxx" in line)
    assert result.output == (
        f"Error: {setup}: refused\n  line {motto}: bob: a motto has at most 40 characters\n"
    )
    assert not (tmp_path / "g").exists()


def test_orders_are_checked_by_the_game(higher: Path, tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, game="higher", rounds=1)
    accepted = run("submit", table.gamedir, table.signed("alice", {"pick": 5}))
    assert accepted.exit_code == 0, accepted.output
    refused = table.signed("bob", {"pick": 6})
    result = run("submit", table.gamedir, refused)
    assert result.exit_code == 3
    assert result.output == (f"{refused}: refused: line 4: you hold no 6: you hold 1, 2, 3, 4, 5\n")


def test_a_game_whose_package_is_gone_is_refused_and_left_as_it_was(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every command that opens a game of a package no longer installed says so (exit 2) and
    changes nothing, whether or not it would have asked the game anything."""
    monkeypatch.syspath_prepend(str(site))
    table = Table(tmp_path, players=2, game="higher", rounds=2)
    for player, pick in (("alice", 5), ("bob", 4)):
        assert run("submit", table.gamedir, table.signed(player, {"pick": pick})).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(site)])
    sys.modules.pop("higher_game", None)
    before = {p: p.read_bytes() for p in table.gamedir.rglob("*") if p.is_file()}
    for command in (["rollback"], ["status"], ["report", "--player", "alice"]):
        result = run(command[0], table.gamedir, *command[1:])
        assert result.exit_code == 2, (command, result.output)
        assert "no game named 'higher' is installed" in result.output, command
    assert {p: p.read_bytes() for p in table.gamedir.rglob("*") if p.is_file()} == before


def test_the_installed_command_plays_a_third_party_game(site: Path, tmp_path: Path) -> None:
    """The command a user runs, with the game's package on its path as an install puts it."""
    command = installed_command()
    environment = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([command, "games"], capture_output=True, text=True, env=environment)
    assert done.returncode == 0, done.stderr
    assert "higher\t2-3 players\tHigher\n" in done.stdout
    folder = tmp_path / "demo"
    done = subprocess.run(
        [command, "demo", "higher", "--seed", "3", "--dir", str(folder)],
        capture_output=True,
        text=True,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("HIGHER, game demo-higher-3: FINAL TABLE after turn 3\n")
    stored = sorted((folder / "game" / "turns").glob("*/views/alice.json"))
    assert len(stored) == 4, "every turn's views are written, the final one too"
    first = subprocess.run(
        [command, "report", str(folder / "game"), "--player", "alice", "--turn", "1"],
        capture_output=True,
        text=True,
        env=environment,
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("HIGHER: game demo-higher-3, turn 1, report for alice")


def test_the_contract_test_holds_for_the_third_party_game(higher: Path, tmp_path: Path) -> None:
    """What Higher's author runs from their own tests: adjudicator.testing, installed with the
    adjudicator, the engine's demo, archive and verify included."""
    from adjudicator.testing import check_game

    gamedir = check_game(load_game("higher"), tmp_path)
    assert gamedir is not None and (gamedir / "turns" / "0004" / "views" / "gm.json").is_file()


def test_a_third_party_game_is_mailed_its_form_without_an_order_page(
    higher: Path, tmp_path: Path
) -> None:
    """The order page knows Sultan and the Court; another game's report mail brings the form
    alone, and ``form --html`` says there is no page (its welcome brings the notice page, which
    is the same for every game)."""
    import email.policy
    from email.parser import BytesParser

    setup = write_setup(tmp_path, [{"name": "alice"}, {"name": "bob"}])
    assert run("new", tmp_path / "g", "--setup", setup).exit_code == 0
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    result = run("send", tmp_path / "g", "--config", config)
    assert result.exit_code == 0, result.output
    parser = BytesParser(policy=email.policy.default)
    names = [
        str(part.get_filename())
        for path in sorted((tmp_path / "g" / "outbox").glob("*report-*.eml"))
        for part in parser.parsebytes(path.read_bytes()).iter_attachments()  # type: ignore[attr-defined]
    ]
    assert names == ["h1-turn1-alice.yaml", "h1-turn1-bob.yaml"]
    page = tmp_path / "page.html"
    result = run("form", tmp_path / "g", "--player", "alice", "--html", page)
    assert result.exit_code != 0 and not page.exists()
    assert "has no order page; use its form" in result.output
