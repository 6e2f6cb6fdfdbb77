"""`adjudicator demo GAME --option KEY=VALUE`: every value of every option of each game, played
by the bots to the end through the command, with the option's effect checked in what the game
wrote.

The values come from the games' own option models (and the engine's ``ENGINE_OPTIONS``): every
``Literal`` value, both booleans and ``None`` where a type allows them; an option of a type that
cannot be listed (a whole number, a name) takes the samples given in ``SAMPLES``, and the quick
tests fail while one has none, or while a value has no check of its effect in ``EFFECTS``.
"""

from __future__ import annotations

import datetime as dt
import json
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest
import yaml
from pydantic import BaseModel

from adjudicator import demo
from adjudicator.engine import absences
from adjudicator.engine.open_game import OpenGame
from adjudicator.engine.setup import check_options
from adjudicator.games.sultan.option_models import Options as SultanOptions
from adjudicator.games.sultans_court.option_models import Options as CourtOptions
from adjudicator.rules import sealing
from adjudicator.rules.options import ENGINE_OPTIONS, NUMBER_OPTIONS
from adjudicator.signing import keys
from adjudicator.store.registry import load_game
from tests.helpers import DEMO_NO_SITE, run

MODELS: dict[str, type[BaseModel]] = {"sultan": SultanOptions, "sultans_court": CourtOptions}
"""Each game's options model (games/sultan/options.py, games/sultans_court/setup.py)."""

SAMPLES: dict[tuple[str, str], list[Any]] = {
    ("sultan", "start_player"): ["bob"],
    ("sultans_court", "max_rounds"): [1, 3],  # both end the game early, as a draw
    ("sultan", "absence_days"): [0],
    ("sultans_court", "absence_days"): [0],
}
"""Values of the options whose type lists no values (beside ``None`` and the default)."""

ENGINE_DEFAULTS = {
    "nmr": "default",
    "sealing": "plain",
    "press": "none",
    "absence": "none",
    "absence_days": 14,
}


class NotListed(Exception):
    """A type whose values cannot all be listed (``int``, ``str``)."""


def listed(annotation: Any) -> list[Any]:
    """Every value of ``annotation``: a ``Literal``'s, ``bool``'s, ``None``, and unions of them."""
    origin = get_origin(annotation)
    if origin is Literal:
        return list(get_args(annotation))
    if origin in (Union, types.UnionType):
        found: list[Any] = []
        unlisted = []
        for member in get_args(annotation):
            try:
                found += listed(member)
            except NotListed as error:
                unlisted.append(error)
        if unlisted:
            raise NotListed(found)
        return found
    if annotation is bool:
        return [False, True]
    if annotation is type(None):
        return [None]
    raise NotListed([])


def option_values(game: str) -> dict[str, list[Any]]:
    """Every option of ``game`` with the values a bot game is played with (the default first)."""
    values: dict[str, list[Any]] = {}
    for name, field in MODELS[game].model_fields.items():
        try:
            found = listed(field.annotation)
        except NotListed as error:
            (found,) = error.args
            found = [*found, *SAMPLES[game, name]]  # KeyError: give this option SAMPLES
        values[name] = [field.default, *(v for v in found if v != field.default)]
    for name, choices in ENGINE_OPTIONS.items():
        values[name] = [ENGINE_DEFAULTS[name], *(v for v in choices if v != ENGINE_DEFAULTS[name])]
    for name in NUMBER_OPTIONS:
        values[name] = [ENGINE_DEFAULTS[name], *SAMPLES[game, name]]
    return values


def text(value: Any) -> str:
    """A value as written after ``--option KEY=``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


@dataclass
class Played:
    """A finished demo: its directory, record and command output."""

    gamedir: Path
    record: dict[str, Any]
    output: str

    def report(self, player: str, turn: int) -> str:
        result = run("report", self.gamedir, "--player", player, "--turn", turn)
        assert result.exit_code == 0, result.output
        return result.output

    def stored_orders(self) -> list[Path]:
        return sorted(self.gamedir.glob("turns/*/orders/*.yaml"))


def play(tmp_path: Path, game: str, players: int, seed: int, *options: str) -> Played:
    directory = tmp_path / "demo"
    arguments: list[Any] = [*DEMO_NO_SITE, game, "--players", players, "--seed", seed]
    arguments += ["--dir", directory]
    for option in options:
        arguments += ["--option", option]
    result = run(*arguments)
    assert result.exit_code == 0, result.output
    gamedir = directory / "game"
    record = json.loads(run("log", gamedir, "--json").output)
    assert record["over"] is True
    return Played(gamedir, record, result.output)


# ---------------------------------------------------------------------------------------------
# What each value does, seen in the record, the reports and the stored files


def sultan_placement_sealed(game: Played) -> None:
    """Each round: the jewel choice, then one turn in which every player places all cards."""
    players = game.record["players"]
    for entry in game.record["rounds"]:
        bids = game.record["orders"][str(entry["turns"][-1])]
        assert sorted(bids) == sorted(players)
        assert len(entry["placements"]) == len(players) * (2 if len(players) == 2 else 1)


def sultan_placement_sequential(game: Played) -> None:
    """One bid per turn, by the player whose placement it is."""
    for entry in game.record["rounds"]:
        _choice, *placing = entry["turns"]
        assert len(placing) == len(entry["placements"])
        for turn, placement in zip(placing, entry["placements"], strict=True):
            order = game.record["orders"][str(turn)]
            assert order == {
                placement["player"]: {
                    "bid": {"cushion": placement["cushion"], "card": placement["card"]}
                }
            }


def sultan_jewel_choice_player(game: Played) -> None:
    for entry in game.record["rounds"]:
        assert entry["returned_by"] == "player"
        order = game.record["orders"][str(entry["turns"][0])]
        assert order == {entry["start_player"]: {"return": entry["returned"]}}


def sultan_jewel_choice_random(game: Played) -> None:
    """No return orders: the adjudicator draws the jewel that goes back; a round is one turn."""
    assert all(entry["returned_by"] == "random" for entry in game.record["rounds"])
    assert all(len(entry["turns"]) == 1 for entry in game.record["rounds"])
    orders = [o for turn in game.record["orders"].values() for o in turn.values()]
    assert orders and not any("return" in order for order in orders)


def sultan_screens(shown: bool) -> Callable[[Played], None]:
    def check(game: Played) -> None:
        """alice's report in the middle of the game shows bob's collection exactly when the
        screens are down."""
        report = game.report("alice", 10)
        assert ("\nCOLLECTIONS\n  alice " in report) is shown
        assert ("\n  bob " in report.partition("\nCOLLECTIONS\n")[2]) is shown

    return check


def sultan_start_player(game: Played) -> None:
    assert game.record["rounds"][0]["start_player"] == game.record["options"]["start_player"]


def sultan_start_player_drawn(game: Played) -> None:
    assert game.record["options"]["start_player"] is None
    assert game.record["rounds"][0]["start_player"] in game.record["players"]


def no_default_orders(game: Played) -> None:
    """Every order came from a bot: the bots always send, so ``nmr`` never had to act."""
    for line in (game.gamedir / "log.jsonl").read_text().splitlines():
        entry = json.loads(line)
        assert entry.get("defaulted", []) == []


def press_sent(option: str) -> Callable[[Played], None]:
    """The bots' press was taken (one a turn), and was what the option allows: none, to
    everyone, or to one player."""

    def check(game: Played) -> None:
        folder = game.gamedir / "notices" / "press"
        sent = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
        if option == "none":
            assert sent == []
            return
        log = (game.gamedir / "log.jsonl").read_text().splitlines()
        turns = [line for line in log if json.loads(line)["type"] == "adjudicated"]
        assert len(sent) == len(turns)
        to = {str(yaml.safe_load(p.read_text())["press"]["to"]) for p in sent}
        assert (to == {"all"}) == (option == "public"), to

    return check


def absence_taken(option: str) -> Callable[[Played], None]:
    """Under ``extend`` and ``default`` the last seat's bot announced a week away (demo.AWAY),
    honoured (the reports of a running game show it: tests/test_absences.py); under ``none`` no
    bot announces any."""

    def check(game: Played) -> None:
        folder = game.gamedir / "notices" / "absence"
        sent = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
        if option == "none":
            assert sent == []
            return
        away = game.record["players"][-1]
        assert [yaml.safe_load(p.read_text())["player"] for p in sent] == [away]
        handle = OpenGame(game.gamedir)
        honoured = absences.stretches(absences.days_of(handle), handle.players)
        assert honoured == [absences.Away(away, dt.date(2099, 1, 1), dt.date(2099, 1, 7))]

    return check


def absence_days(days: int) -> Callable[[Played], None]:
    """The limit stands in the record; with ``absence: none`` beside it no absence is taken
    (what the limit does is checked in tests/test_absences.py)."""

    def check(game: Played) -> None:
        assert game.record["options"]["absence_days"] == days
        if game.record["options"]["absence"] == "none":
            assert not (game.gamedir / "notices" / "absence").exists()

    return check


def sealing_plain(game: Played) -> None:
    assert not [p for p in game.stored_orders() if b"\ncommit: " in p.read_bytes()]


def sealing_commit_reveal(game: Played) -> None:
    """Each order stored after its signed commitment, whose digest is that of the salted order."""
    stored = [p.read_bytes() for p in game.stored_orders()]
    commitments = {
        line.split(b": ")[1].decode()
        for data in stored
        for line in data.splitlines()
        if line.startswith(b"commit: ")
    }
    reveals = [data for data in stored if b"\nsalt: " in data]
    assert reveals and len(reveals) == len(commitments) == len(stored) // 2
    assert {sealing.commitment_of(reveal) for reveal in reveals} == commitments


def court_first_round(all_travel: bool) -> Callable[[Played], None]:
    def check(game: Played) -> None:
        """In round 1, every vizir travels to a city exactly when the option says so."""
        cities = set(game.record["deal"]["cities"])
        first = game.record["rounds"][0]["orders"]
        places = [place for order in first.values() for place in order["travel"].values()]
        assert all(place in cities for place in places) is all_travel

    return check


def court_banish_tie(higher: bool) -> Callable[[Played], None]:
    def check(game: Played) -> None:
        """Every banishment in the game follows the tie rule (docs/rulings.md C9): most votes, then
        the lower (or higher) seat, a vizir in a city counting as seat 0, then the earlier
        accuser; the game of the option's own case has a tie that the seat decides."""
        decided_by_seat = banishments(game.record, higher)
        if higher:
            assert decided_by_seat, "no tie decided by the seat: choose another seed"

    return check


def banishments(record: dict[str, Any], higher: bool) -> int:
    """Check each banishment of ``record`` against C9; the number decided by the seats."""
    markers = record["deal"]["markers"]
    places = dict(record["deal"]["vizirs"])
    decided_by_seat = 0
    for entry in record["rounds"]:
        tally: dict[str, tuple[int, int]] = {}  # vizir: votes, earliest accuser
        for index, event in enumerate(entry["events"]):
            if event["type"] == "travel":
                places[event["vizir"]] = event["to"]
            elif event["type"] == "accusation" and event["counts"]:
                votes, first = tally.get(event["vizir"], (0, index))
                tally[event["vizir"]] = (votes + event["votes"], first)
            elif event["type"] == "banished":
                seats = {
                    vizir: int(markers[places[vizir]]) if isinstance(places[vizir], int) else 0
                    for vizir in tally
                }
                ranks = {
                    vizir: (-votes, -seats[vizir] if higher else seats[vizir], first)
                    for vizir, (votes, first) in tally.items()
                }
                assert event["vizir"] == min(ranks, key=ranks.__getitem__)
                most = max(votes for votes, _ in tally.values())
                tied = [vizir for vizir, (votes, _) in tally.items() if votes == most]
                decided_by_seat += len({seats[vizir] for vizir in tied}) > 1
        places = dict(entry["after"]["vizirs"])
    return decided_by_seat


def court_max_rounds(game: Played) -> None:
    """The game ends as a draw after the last round the option allows."""
    limit = game.record["options"]["max_rounds"]
    assert game.record["result"] == {"winner": None, "draw": True, "rounds": limit}
    assert len(game.record["rounds"]) == limit


def court_no_round_limit(game: Played) -> None:
    """Without a limit the game ends by a victory."""
    assert game.record["result"]["winner"] in game.record["players"]


EFFECTS: dict[tuple[str, str, Any], Callable[[Played], None]] = {
    ("sultan", "placement", "sealed"): sultan_placement_sealed,
    ("sultan", "placement", "sequential"): sultan_placement_sequential,
    ("sultan", "jewel_choice", "player"): sultan_jewel_choice_player,
    ("sultan", "jewel_choice", "random"): sultan_jewel_choice_random,
    ("sultan", "screens", True): sultan_screens(False),
    ("sultan", "screens", False): sultan_screens(True),
    ("sultan", "start_player", None): sultan_start_player_drawn,
    ("sultan", "start_player", "bob"): sultan_start_player,
    ("sultan", "nmr", "default"): no_default_orders,
    ("sultan", "nmr", "wait"): no_default_orders,
    ("sultan", "sealing", "plain"): sealing_plain,
    ("sultan", "sealing", "commit-reveal"): sealing_commit_reveal,
    ("sultan", "press", "none"): press_sent("none"),
    ("sultan", "press", "public"): press_sent("public"),
    ("sultan", "press", "private"): press_sent("private"),
    ("sultan", "press", "grey"): press_sent("grey"),
    ("sultan", "absence", "none"): absence_taken("none"),
    ("sultan", "absence", "extend"): absence_taken("extend"),
    ("sultan", "absence", "default"): absence_taken("default"),
    ("sultan", "absence_days", 14): absence_days(14),
    ("sultan", "absence_days", 0): absence_days(0),
    ("sultans_court", "first_round_all_travel", True): court_first_round(True),
    ("sultans_court", "first_round_all_travel", False): court_first_round(False),
    ("sultans_court", "banish_tie", "lower_seat_goes"): court_banish_tie(False),
    ("sultans_court", "banish_tie", "higher_seat_goes"): court_banish_tie(True),
    ("sultans_court", "max_rounds", None): court_no_round_limit,
    ("sultans_court", "max_rounds", 1): court_max_rounds,
    ("sultans_court", "max_rounds", 3): court_max_rounds,
    ("sultans_court", "nmr", "default"): no_default_orders,
    ("sultans_court", "nmr", "wait"): no_default_orders,
    ("sultans_court", "sealing", "plain"): sealing_plain,
    ("sultans_court", "sealing", "commit-reveal"): sealing_commit_reveal,
    ("sultans_court", "press", "none"): press_sent("none"),
    ("sultans_court", "press", "public"): press_sent("public"),
    ("sultans_court", "press", "private"): press_sent("private"),
    ("sultans_court", "press", "grey"): press_sent("grey"),
    ("sultans_court", "absence", "none"): absence_taken("none"),
    ("sultans_court", "absence", "extend"): absence_taken("extend"),
    ("sultans_court", "absence", "default"): absence_taken("default"),
    ("sultans_court", "absence_days", 14): absence_days(14),
    ("sultans_court", "absence_days", 0): absence_days(0),
}

# How many players each game is played with (every count a game allows comes up) and, where
# the first seed does not show the effect, the seed.
PLAYERS = {
    ("sultan", None): 5,
    ("sultan", "placement"): 2,
    ("sultan", "jewel_choice"): 4,
    ("sultan", "nmr"): 3,
    ("sultan", "press"): 3,  # grey press needs three players (ruling E23)
}
SEEDS = {("sultans_court", "banish_tie"): 26}  # round 14: a tie between seats 8 and 2


def cases() -> list[Any]:
    """One game with every default, then one game for each other value of each option."""
    found = []
    for game in MODELS:
        found.append(pytest.param(game, None, None, id=f"{game}-defaults", marks=pytest.mark.slow))
        for name, (_default, *others) in option_values(game).items():
            for value in others:
                found.append(
                    pytest.param(
                        game, name, value, id=f"{game}-{name}={text(value)}", marks=pytest.mark.slow
                    )
                )
    return found


@pytest.mark.parametrize(("game", "name", "value"), cases())
def test_a_bot_game_with_each_option_value_reaches_its_end(
    tmp_path: Path, game: str, name: str | None, value: Any
) -> None:
    effective = {key: choices[0] for key, choices in option_values(game).items()}
    if name is not None:
        effective[name] = value
    # the game of defaults gives each one (max_rounds=null, screens=true...): read as typed
    given = [f"{k}={text(v)}" for k, v in effective.items() if name is None or k == name]
    players = PLAYERS.get((game, name), load_game(game).min_players)
    played = play(tmp_path, game, players, SEEDS.get((game, name), 1), *given)
    assert played.record["options"] == effective
    shown = ", ".join(f"{key}={text(v)}" for key, v in played.record["options"].items())
    assert f"\noptions: {shown} (each as --option KEY=VALUE gives it)\n" in played.output
    # the value given, and every other option at its default, does what it says
    for key, v in effective.items():
        EFFECTS[game, key, v](played)


def test_every_value_of_every_option_is_played_and_checked() -> None:
    """Each option of each game is listed with its values (a new Literal value or option of a
    listable type joins by itself; one of another type needs SAMPLES), and each value has a
    check of its effect."""
    every = {
        (game, name, value)
        for game in MODELS
        for name, values in option_values(game).items()
        for value in values
    }
    assert every == set(EFFECTS)
    assert option_values("sultan") == {
        "placement": ["sealed", "sequential"],
        "jewel_choice": ["player", "random"],
        "screens": [True, False],
        "start_player": [None, "bob"],
        "nmr": ["default", "wait"],
        "sealing": ["plain", "commit-reveal"],
        "press": ["none", "public", "private", "grey"],
        "absence": ["none", "extend", "default"],
        "absence_days": [14, 0],
    }
    assert set(MODELS) == {"sultan", "sultans_court"}
    for game, model in MODELS.items():  # the models are what the games check options with
        names = ["alice", "bob", "carol", "dave"]
        effective, problems = check_options(load_game(game), names, {})
        assert problems == []
        assert effective == {**model().model_dump(), **ENGINE_DEFAULTS}


# ---------------------------------------------------------------------------------------------
# Options that cannot be played: exit 2, the option named, nothing written

ENGINE_KNOWN = "nmr, sealing, press, absence, absence_days"
SULTAN_KNOWN = f"placement, jewel_choice, screens, start_player, {ENGINE_KNOWN}"
COURT_KNOWN = f"first_round_all_travel, banish_tie, max_rounds, {ENGINE_KNOWN}"


@pytest.mark.parametrize(
    ("game", "options", "message"),
    [
        (
            "sultan",
            ["press=loud"],
            "--option: refused for Sultan\n"
            "  option 'press' must be 'none', 'public', 'private' or 'grey'",
        ),
        (
            "sultan",
            ["placement=sequential", "max_rounds=5"],
            "--option: refused for Sultan\n"
            f"  unknown option 'max_rounds'; Sultan's options are {SULTAN_KNOWN}",
        ),
        (
            "sultan",
            ["placement=seq", "screens=maybe", "start_player=erin", "nmr=later"],
            "--option: refused for Sultan\n"
            "  option 'nmr' must be 'default' or 'wait'\n"
            "  option 'placement' must be one of 'sealed' or 'sequential', not the text 'seq'\n"
            "  option 'screens' must be true or false, not the text 'maybe'\n"
            "  option 'start_player' must name a player (alice, bob, carol, dave), not 'erin'",
        ),
        (
            "sultans_court",
            ["max_rounds=0", "banish_tie=lower", "first_round_all_travel=1", "sealing=sealed"],
            "--option: refused for At the Sultan's Court\n"
            "  option 'sealing' must be 'plain' or 'commit-reveal'\n"
            "  option 'first_round_all_travel' must be true or false, not the number 1\n"
            "  option 'banish_tie' must be one of 'lower_seat_goes' or 'higher_seat_goes', "
            "not the text 'lower'\n"
            "  option 'max_rounds': input should be greater than or equal to 1, not 0",
        ),
        (
            "sultan",
            ["absence=away", "absence_days=-1"],
            "--option: refused for Sultan\n"
            "  option 'absence' must be 'none', 'extend' or 'default'\n"
            "  option 'absence_days' must be a whole number of days from 0 to 366, "
            "not the number -1",
        ),
        (
            "sultans_court",
            ["absence_days=two"],
            "--option: refused for At the Sultan's Court\n"
            "  option 'absence_days' must be a whole number of days from 0 to 366, "
            "not the text 'two'",
        ),
        (
            "sultans_court",
            ["max_rounds=five"],
            "--option: refused for At the Sultan's Court\n"
            "  option 'max_rounds' must be a whole number such as 12, not the text 'five'",
        ),
        (
            "sultans_court",
            ["placement=sealed"],
            "--option: refused for At the Sultan's Court\n"
            f"  unknown option 'placement'; At the Sultan's Court's options are {COURT_KNOWN}",
        ),
        (
            "sultan",
            ["placement"],
            "--option placement: write KEY=VALUE, as in a setup file's options "
            "(placement=sequential, screens=false, max_rounds=5)",
        ),
        (
            "sultan",
            ["=sealed"],
            "--option =sealed: write KEY=VALUE, as in a setup file's options "
            "(placement=sequential, screens=false, max_rounds=5)",
        ),
        (
            "sultans_court",
            ["max_rounds= "],
            "--option max_rounds= : give a value after '=' (null for none)",
        ),
        (
            "sultan",
            ["screens=false", "placement=sealed", "screens=true"],
            "--option screens is given twice (screens=false, screens=true): give it once",
        ),
        (
            "sultan",
            ["screens=[false"],
            "--option screens=[false: its value is not plain YAML\n"
            "  this '[' is never closed (is a ']' missing?)",
        ),
        (
            "sultan",
            ["start_player=&a bob"],
            "--option start_player=&a bob: its value is not plain YAML\n"
            "  anchors ('&a') are not allowed; remove it",
        ),
        (  # not echoed whole
            "sultan",
            ["start_player=" + "b" * 100_000],
            "--option start_player=bbbbbbbbbbbbbbbbbbbbbbbbbbb...: 100013 characters; an option "
            "takes at most 1024",
        ),
    ],
)
def test_an_option_the_game_does_not_take_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, options: list[str], message: str
) -> None:
    directory = tmp_path / "demo"
    arguments: list[Any] = ["demo", game, "--dir", directory]
    for option in options:
        arguments += ["--option", option]
    result = run(*arguments)
    assert result.exit_code == 2
    assert result.output == f"Error: {message}\n"
    assert not directory.exists()
    # without --dir, no folder is made either
    monkeypatch.setattr(demo.tempfile, "mkdtemp", lambda **_: pytest.fail("a folder was made"))
    assert run(*arguments[:2], *arguments[4:]).exit_code == 2


def test_a_value_is_read_as_a_setup_file_reads_it() -> None:
    given = ["max_rounds=5", "screens=false", "placement=sequential", "start_player='no'"]
    assert demo.read_options([*given, "max_rounds2=null", "x=a=b"]) == {
        "max_rounds": 5,
        "screens": False,
        "placement": "sequential",
        "start_player": "no",
        "max_rounds2": None,
        "x": "a=b",
    }


@pytest.mark.parametrize(
    ("game", "players", "message"),
    [
        ("sultan", 1, "Sultan takes 2 to 5 players, not 1"),
        ("sultan", 6, "Sultan takes 2 to 5 players, not 6"),
        ("sultans_court", 3, "At the Sultan's Court takes 4 players, not 3"),
        ("sultans_court", 5, "At the Sultan's Court takes 4 players, not 5"),
    ],
)
def test_a_player_count_the_game_does_not_allow_is_refused(
    tmp_path: Path, game: str, players: int, message: str
) -> None:
    result = run("demo", game, "--players", players, "--dir", tmp_path / "d")
    assert result.exit_code == 2
    assert result.output == f"Error: {message}\n"
    assert not (tmp_path / "d").exists()


def test_a_setup_file_names_the_engine_options_beside_the_games(tmp_path: Path) -> None:
    """The same check as --option's: an unknown option in a setup file lists nmr, sealing and
    press."""
    for name in ("alice", "bob"):
        keys.generate(tmp_path / name, name)
    (tmp_path / "setup.yaml").write_text(
        "game: sultan\n"
        "id: cairo\n"
        "players:\n"
        "  - {name: alice, email: alice@example.org, key_file: alice.pub}\n"
        "  - {name: bob, email: bob@example.org, key_file: bob.pub}\n"
        "options: {chat: grey}\n"
    )
    result = run("new", tmp_path / "game", "--setup", tmp_path / "setup.yaml")
    assert result.exit_code == 3
    assert result.output == (
        f"Error: {tmp_path / 'setup.yaml'}: refused\n"
        f"  line 6: unknown option 'chat'; Sultan's options are {SULTAN_KNOWN}\n"
    )


@pytest.mark.seconds
def test_a_demo_played_after_the_bots_week_away_takes_no_absence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADJUDICATOR_NOW past the bot's fixed week away: an absence that has ended is refused, so
    the demo announces none instead of stopping with a traceback."""
    monkeypatch.setenv("ADJUDICATOR_NOW", "2099-01-08T12:00:00+00:00")
    played = play(tmp_path, "sultan", 3, 1, "absence=extend")
    assert not (played.gamedir / "notices" / "absence").exists()
