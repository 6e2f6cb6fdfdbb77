"""The game lock, the demo's determinism, and the installed command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from filelock import FileLock

from adjudicator import demo
from adjudicator.store import gamedir as store
from tests.helpers import DEMO_NO_SITE, Table, run


def test_a_locked_game_refuses_with_exit_4_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Table(tmp_path)
    (player,) = table.status()["owed"]
    order = table.signed(player, table.legal(player))
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(table.gamedir / ".lock")):
        result = run("submit", table.gamedir, order)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {table.gamedir}: the game is locked by another command; try again\n"
    )
    assert table.status()["received"] == []


DEFAULT_OPTIONS = {
    "sultan": "absence=none, absence_days=14, "
    "jewel_choice=player, nmr=default, placement=sealed, press=none, screens=true, "
    "sealing=plain, start_player=null",
    "sultans_court": "absence=none, absence_days=14, "
    "banish_tie=lower_seat_goes, first_round_all_travel=true, max_rounds=null, "
    "nmr=default, press=none, sealing=plain",
}


def demo_output(
    gamedir: Path, seed: int, last: int, game: str = "sultan", site: bool = True
) -> str:
    """What a demo with the default options prints after its final table; ``last``: the last
    turn played; ``site``: played without ``--no-site``."""
    viewer = f"{gamedir.parent / 'site' / 'index.html'} (a static site of the whole game)"
    if not site:
        viewer = f"none made (--no-site); adjudicator site {gamedir} -o DIR makes it"
    return (
        f"options: {DEFAULT_OPTIONS[game]} (each as --option KEY=VALUE gives it)\n"
        f"reports: adjudicator report {gamedir} --player NAME --turn N (turns 1 to {last}: as "
        f"each turn opened; {last + 1}: the final reports)\n"
        f"html:    adjudicator report {gamedir} --player NAME --format html (with pictures)\n"
        f"viewer:  {viewer}\n"
        f"record:  adjudicator log {gamedir} (--json for the JSON)\n"
        f"seed:    {seed:032x} (--seed {seed} as 32 hex digits; a demo's seed is public, a real "
        "game draws its own and keeps it secret until the end)\n"
    )


SULTAN_42 = """\
Sultan, game demo-sultan-42: the game is over after turn 30 (seed 0000000000000000000000000000002a).

FINAL TABLE
  place  player        white  red  yellow  green  blue   points  bonus  total
  1      carol            0      5      0      1      3     29     12     41  WINNER
  2      alice            0      2      3      4      0     29      7     36
  3      bob              1      1      2      0      3     24      2     26
  white to blue: the jewels of each colour collected, worth 1, 2, 3, 4 and 5 points each;
  bonus: for 3 or more jewels of one colour (RULINGS S9); total: points and bonus.
carol wins and becomes the Sultan's new treasurer.
"""

SULTAN_2_PLAYERS_1 = """\
Sultan, game demo-sultan-1: the game is over after turn 24 (seed 00000000000000000000000000000001).

FINAL TABLE
  place  player        white  red  yellow  green  blue   points  bonus  total
  1      bob              2      7      2      2      1     35     20     55  WINNER
  2      alice            1      3      0      4      5     48      7     55
  white to blue: the jewels of each colour collected, worth 1, 2, 3, 4 and 5 points each;
  bonus: for 4 or more jewels of one colour (RULINGS S9); total: points and bonus.
bob wins and becomes the Sultan's new treasurer.
""" + (
    "Equal totals (55 points): the player with the most jewels wins (RULINGS S9); "
    "jewels: bob 14, alice 13.\n"
)

COURT_5 = """\
At the Sultan's Court, game demo-sultans_court-5: the game is over after round 6 (seed \
00000000000000000000000000000005).
Winner: dave
The cards in front of each player at the end (the player's colour in brackets):
  alice (red)      Cannons, Gold, Troops, Ships, Pardon, Pardon (4 power types)
  bob (yellow)     Horses, Cannons, Gold, Supplies, Pardon (4 power types)
  carol (green)    Cannons, Gold, Troops, Supplies, Ships, Ships (5 power types)
  dave (blue)      Horses, Cannons, Gold, Troops, Supplies, Ships, Pardon (6 power types)
"""


@pytest.mark.seconds
def test_the_court_demo_prints_its_final_table_and_where_the_game_is(tmp_path: Path) -> None:
    result = run("demo", "sultans_court", "--seed", 5, "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    assert result.output == COURT_5 + demo_output(tmp_path / "d" / "game", 5, 6, "sultans_court")


@pytest.mark.seconds
def test_status_of_a_finished_game_names_its_last_turn(tmp_path: Path) -> None:
    """The final reports open no turn: status says the game is over after the last one."""
    played = run(*DEMO_NO_SITE, "sultan", "--players", 2, "--seed", 1, "--dir", tmp_path)
    assert played.exit_code == 0, played.output
    result = run("status", tmp_path / "game")
    assert result.exit_code == 0
    assert result.output == "demo-sultan-1 (sultan): the game is over after turn 24\n"
    assert json.loads(run("status", tmp_path / "game", "--json").output)["turn"] == 25


@pytest.mark.seconds
def test_same_seed_same_demo(tmp_path: Path) -> None:
    """The same seed plays the same game, also without its site (``--no-site``), which changes
    only the line that says where the site is."""
    records = []
    for name, site in (("one", "--site"), ("two", "--no-site")):
        result = run("demo", site, "sultan", "--players", 3, "--seed", 42, "--dir", tmp_path / name)
        assert result.exit_code == 0, result.output
        made = site == "--site"
        assert result.output == SULTAN_42 + demo_output(tmp_path / name / "game", 42, 30, site=made)
        assert (tmp_path / name / "site" / "index.html").exists() is made
        record = json.loads(run("log", tmp_path / name / "game", "--json").output)
        assert set(record) >= {"salt", "commitment"}  # each game draws its own salt: left out
        records.append({k: v for k, v in record.items() if k not in ("salt", "commitment")})
    assert records[0] == records[1]
    other = run("demo", "sultan", "--players", 3, "--seed", 43, "--dir", tmp_path / "three")
    assert other.exit_code == 0
    assert json.loads(run("log", tmp_path / "three" / "game", "--json").output) != records[0]


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_the_bots_orders_are_the_bytes_pyyamls_own_emitter_writes(
    tmp_path: Path, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo writes its bots' orders with libyaml's emitter where PyYAML has it (faster):
    a demo played with PyYAML's own emitter writes every order byte for byte the same."""
    if not yaml.__with_libyaml__:
        pytest.skip("this PyYAML is built without libyaml")
    assert demo._OrderDumper is yaml.CSafeDumper
    orders = {}
    for way, dumper in (("libyaml", yaml.CSafeDumper), ("pyyaml", yaml.SafeDumper)):
        monkeypatch.setattr(demo, "_OrderDumper", dumper)
        players = 5 if game == "sultan" else None
        demo.run(game, players, 3, tmp_path / way, lambda _line: None, site=False)
        written = sorted((tmp_path / way / "orders").glob("*.yaml"))
        orders[way] = {path.name: path.read_bytes() for path in written}
    assert len(orders["libyaml"]) > 20
    assert orders["libyaml"] == orders["pyyaml"]


def test_demo_refuses_a_bad_player_count(tmp_path: Path) -> None:
    result = run("demo", "sultan", "--players", 6, "--dir", tmp_path / "d")
    assert result.exit_code == 2
    assert result.output == "Error: Sultan takes 2 to 5 players, not 6\n"


def installed_command() -> str:
    found = shutil.which("adjudicator") or str(Path(sys.executable).parent / "adjudicator")
    if not Path(found).exists():
        pytest.fail("the adjudicator command is not installed in this environment")
    return found


def test_installed_command_version_and_games() -> None:
    command = installed_command()
    done = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == "adjudicator, version 0.1.0\n"
    done = subprocess.run([command, "games"], capture_output=True, text=True, check=True)
    assert "sultan\t2-5 players\tSultan" in done.stdout


@pytest.mark.seconds
def test_installed_templates_are_found(tmp_path: Path) -> None:
    """The installed package carries its templates (not only an editable install)."""
    command = installed_command()
    done = subprocess.run(
        [command, "demo", "sultan", "--players", "2", "--seed", "1", "--dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == SULTAN_2_PLAYERS_1 + demo_output(tmp_path / "d" / "game", 1, 24)
