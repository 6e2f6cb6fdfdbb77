"""At the Sultan's Court through the commands: setup refusals, order refusals with their lines,
the order form, and a whole game played with ssh-keygen signatures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from adjudicator.present.words import said
from adjudicator.store.registry import game_names, load_game
from tests.helpers import SEED, Table, run
from tests.ssh import make_key, pub_line, ssh_sign


@pytest.fixture
def court(tmp_path: Path) -> Table:
    return Table(tmp_path, players=4, game="sultans_court")


def test_games_lists_every_registered_game() -> None:
    result = run("games")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split("\t")[0] for line in lines] == game_names()
    assert "sultan\t2-5 players\tSultan" in lines
    assert "sultans_court\t4 players\tAt the Sultan's Court" in lines


def write_setup(tmp_path: Path, game: str, colours: list[str | None]) -> Path:
    players = []
    for name, colour in zip(["alice", "bob", "carol", "dave"], colours, strict=True):
        key = pub_line(make_key(tmp_path / "keys", name))
        entry = {"name": name, "email": f"{name}@example.org", "key": key}
        if colour is not None:
            entry["colour"] = colour
        players.append(entry)
    setup = tmp_path / "setup.yaml"
    setup.write_text(yaml.safe_dump({"game": game, "id": "c", "players": players}, sort_keys=False))
    return setup


def line_of(path: Path, text: str, nth: int = 1) -> int:
    """The line number of the ``nth`` line of ``path`` that ends with ``text``."""
    lines = [i for i, line in enumerate(path.read_text().splitlines(), 1) if line.endswith(text)]
    return lines[nth - 1]


def test_colours_are_checked_in_the_setup(tmp_path: Path) -> None:
    setup = write_setup(tmp_path, "sultans_court", ["red", "pink", "red", None])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    pink, red = line_of(setup, "colour: pink"), line_of(setup, "colour: red", 2)
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line {pink}: bob: colour 'pink' is not one of red, yellow, green, blue\n"
        f"  line {red}: carol: colour 'red' is alice's already\n"
    )
    assert not (tmp_path / "g").exists()


def test_sultan_has_no_colours(tmp_path: Path) -> None:
    """A player entry takes the keys every game reads and the game's own: Sultan has none."""
    setup = write_setup(tmp_path, "sultan", [None, "red", None, None])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    line = line_of(setup, "colour: red")
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line {line}: unknown key 'players[2].colour'; a player of Sultan has the keys "
        "name, email, key, key_file, lang, tz\n"
    )
    assert not (tmp_path / "g").exists()


def test_a_player_key_no_game_declares_is_refused_with_its_line(tmp_path: Path) -> None:
    setup = write_setup(tmp_path, "sultans_court", [None, None, "green", None])
    text = setup.read_text().replace("colour: green", "color: green")
    setup.write_text(text)
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    line = line_of(setup, "color: green")
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line {line}: unknown key 'players[3].color'; a player of At the Sultan's Court has "
        "the keys name, email, key, key_file, lang, tz, colour\n"
    )


def test_a_game_key_is_as_strict_as_the_others(tmp_path: Path) -> None:
    setup = write_setup(tmp_path, "sultans_court", [None, None, None, "blue"])
    setup.write_text(setup.read_text().replace("colour: blue", "colour: 3"))
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3, result.output
    line = line_of(setup, "colour: 3")
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line {line}: 'players[4].colour' must be a name or text, not the number 3\n"
    )


def test_an_unknown_game_is_named_before_its_player_keys(tmp_path: Path) -> None:
    """Which keys a player entry takes depends on the game: 'colour' is not blamed."""
    setup = write_setup(tmp_path, "chess", ["red", None, None, None])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: no game named 'chess' is installed (installed: ")


def test_colours_given_and_assigned_appear_in_the_view(tmp_path: Path) -> None:
    setup = write_setup(tmp_path, "sultans_court", [None, "blue", None, None])
    assert run("new", tmp_path / "g", "--setup", setup).exit_code == 0
    view = json.loads(run("view", tmp_path / "g", "--player", "carol", "--json").output)
    assert view["colours"] == {"alice": "red", "bob": "blue", "carol": "yellow", "dave": "green"}
    assert view["to_do"] == "orders"


def test_round_one_orders_are_refused_with_every_reason(court: Table) -> None:
    body = {"travel": {"fat": "stay", "small": "Atlantis", "big": 3}, "accuse": "zed.fat"}
    path = court.signed("alice", body)
    result = run("submit", court.gamedir, path)
    assert result.exit_code == 3
    assert result.output == (
        f"{path}: refused: line 5: in round 1 every vizir must travel to a city (RULINGS C3); "
        "fat may not stay\n"
        "  line 6: 'Atlantis' is not a destination: give a city (Bukhara, Tabriz, Shiraz, Kaffa, "
        "Gidda, Uskub, Isfahan or its initial), a seat number 1-12, or stay\n"
        "  line 7: in round 1 every vizir must travel to a city (RULINGS C3); big may not go to "
        "seat 3\n"
        "  line 8: 'zed.fat' is not a vizir: write player.kind (kind fat, small or big; players "
        "alice, bob, carol, dave), or none\n"
    )
    assert court.status()["received"] == []


def test_the_form_filled_in_is_a_valid_order(court: Table) -> None:
    form = run("form", court.gamedir, "--player", "bob").output
    filled = form
    for kind, city in (("fat", "b"), ("small", "KAFFA"), ("big", "Isfahan")):
        filled, count = re.subn(rf"(?m)^  {kind}: +#.*$", f"  {kind}: {city}", filled)
        assert count == 1, form
    path = court.write("bob.yaml", filled)
    formfile = court.write("form.yaml", form)
    result = run("check", path, "--form", formfile)
    assert result.exit_code == 0, result.output
    unfilled = run("check", formfile, "--form", formfile)
    assert unfilled.exit_code == 3
    fat = next(i for i, line in enumerate(form.splitlines(), 1) if line.startswith("  fat:"))
    assert (
        f"line {fat}: 'travel.fat' must be a name or text or a whole number such as 12, "
        "not nothing" in unfilled.output
    )
    ssh_sign(court.keys["bob"], path)
    result = run("submit", court.gamedir, path)
    assert result.exit_code == 0, result.output
    assert result.output == f"{path}: accepted (bob, turn 1)\n"


@pytest.mark.seconds
def test_a_whole_game_by_signed_orders(court: Table) -> None:
    for _ in range(60):
        if court.status()["over"]:
            break
        court.play_turn()
    else:
        pytest.fail("the game did not end in 60 rounds")
    record = json.loads(run("log", court.gamedir, "--json").output)
    assert record["over"] is True and record["result"]["rounds"] == len(record["rounds"])
    assert record["seed"] == SEED
    final = run("report", court.gamedir, "--player", "alice").output
    assert f"Seed: {record['seed']}" in final and "CITY STACKS" in final
    turns = sorted(
        {
            item["turn"]
            for item in record["rounds"]
            for e in item["events"]
            if e["type"] == "skipped"
        }
    )
    assert turns, "some standing instruction did not apply"
    game = load_game("sultans_court")
    for turn in turns[:4]:
        events = next(item["events"] for item in record["rounds"] if item["turn"] == turn)
        for player in court.names:
            text = run("report", court.gamedir, "--player", player, "--turn", turn + 1).output
            shown = [line for line in text.splitlines() if "did not apply" in line]
            mine = [
                said(e["reason"], game)
                for e in events
                if e["type"] == "skipped" and e["player"] == player
            ]
            assert [line.rsplit("did not apply: ", 1)[1] for line in shown] == [
                f"{reason}." for reason in mine
            ], (player, turn)


def test_a_game_may_not_take_a_key_every_game_reads() -> None:
    from pydantic import BaseModel, ConfigDict

    from adjudicator.engine.setup_schema import setup_model
    from adjudicator.games.sultan import GAME as SULTAN

    class Clash(BaseModel):
        model_config = ConfigDict(strict=True, extra="forbid")
        email: str | None = None

    class Greedy:
        name = "greedy"

        def __getattr__(self, attribute: str) -> object:
            return getattr(SULTAN, attribute)

        def player_model(self) -> type[BaseModel]:
            return Clash

    with pytest.raises(ValueError, match=r"greedy's player keys \['email'\] are keys every game"):
        setup_model(Greedy())  # type: ignore[arg-type]
