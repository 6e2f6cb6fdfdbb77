"""`view` and `log`: readable text by default, JSON with --json, for both games."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from adjudicator.engine import open_game
from adjudicator.present.reports import render
from adjudicator.store.gamedir import GameDir
from tests.hashes import found
from tests.helpers import DEMO_NO_SITE, Table, run


@pytest.mark.parametrize("game, players", [("sultan", 3), ("sultans_court", 4)])
def test_view_json_names_the_game_and_its_id(tmp_path: Path, game: str, players: int) -> None:
    table = Table(tmp_path, players=players, game=game)
    result = run("view", table.gamedir, "--player", "alice", "--json")
    assert result.exit_code == 0, result.output
    view = json.loads(result.output)
    assert list(view)[:4] == ["id", "game", "player", "turn"]
    assert (view["id"], view["game"], view["player"], view["turn"]) == (
        "cairo-2026",
        game,
        "alice",
        1,
    )
    assert "to_do" in view


def test_view_json_holds_the_chain_head_of_the_journal_when_it_runs(tmp_path: Path) -> None:
    table = Table(tmp_path)
    journal = (table.gamedir / "log.jsonl").read_bytes().splitlines(keepends=True)
    head = hashlib.sha256(journal[-1]).hexdigest()
    view = json.loads(run("view", table.gamedir, "--player", "alice", "--json").output)
    assert view["chain_head"] == head
    table.play_turn()
    moved = json.loads(run("view", table.gamedir, "--player", "alice", "--json").output)
    assert moved["chain_head"] == GameDir(table.gamedir).head() != head


def test_report_form_and_view_show_the_chain_head_when_they_run(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.play_turn()
    head = GameDir(table.gamedir).head()
    commitment = json.loads((table.gamedir / "game.json").read_text())["commitment"]
    for args in (("report", "--player", "bob"), ("view", "--player", "bob")):
        text = run(args[0], table.gamedir, *args[1:]).output
        # turn 2: the head in text (32 digits), in the report and its form; the seed
        # commitment only in turn 1's report
        assert found(text) == [head[:32]] * 2, args
    first = run("report", table.gamedir, "--player", "bob", "--turn", "1").output
    assert found(first) == [head[:32], commitment]
    form = run("form", table.gamedir, "--player", "bob").output
    assert f"# Chain head: #{head[:32]}\n" in form and found(form) == [head[:32]]
    page = run("report", table.gamedir, "--player", "bob", "--format", "html").output
    # the page's own hash in full; the form it shows is the form, with its text comment line
    assert found(page)[-1] == head and set(found(page)) == {head, head[:32]}


@pytest.mark.parametrize("game, players", [("sultan", 3), ("sultans_court", 4)])
def test_view_text_is_the_players_report_of_the_current_turn(
    tmp_path: Path, game: str, players: int
) -> None:
    table = Table(tmp_path, players=players, game=game)
    table.play_turn()
    result = run("view", table.gamedir, "--player", "bob")
    assert result.exit_code == 0, result.output
    handle = open_game.OpenGame(table.gamedir)
    head = handle.dir.head()
    assert result.output == render(handle.game, handle.meta, handle.state(), "bob", head=head)
    assert result.output == run("report", table.gamedir, "--player", "bob").output


def test_view_of_an_unknown_player_is_a_usage_error(tmp_path: Path) -> None:
    table = Table(tmp_path)
    for extra in ((), ("--json",)):
        result = run("view", table.gamedir, "--player", "zed", *extra)
        assert result.exit_code == 2
        assert result.output == (
            "Error: no player 'zed' in game cairo-2026 (players: alice, bob, carol)\n"
        )


def test_log_text_of_a_new_sultan_game(tmp_path: Path) -> None:
    table = Table(tmp_path)
    result = run("log", table.gamedir)
    assert result.exit_code == 0, result.output
    commitment = json.loads((table.gamedir / "game.json").read_text())["commitment"]
    assert result.output == (
        "Sultan, game cairo-2026 (sultan)\n"
        "players: alice, bob, carol\n"
        "options: absence none, absence_days 14, "
        "jewel_choice player, nmr default, placement sealed, press none, screens yes, "
        "sealing plain, start_player drawn\n"
        f"seed commitment: {commitment}\n"
        "the game is running: the record holds what is public, ? what is not yet "
        "(0 rounds resolved)\n"
    )


def test_log_text_of_a_start_player_chosen_in_the_setup(tmp_path: Path) -> None:
    table = Table(tmp_path, start_player="bob")
    result = run("log", table.gamedir)
    assert ", start_player bob\n" in result.output


@pytest.mark.seconds
def test_log_text_of_a_whole_sultan_demo(tmp_path: Path) -> None:
    result = run(*DEMO_NO_SITE, "sultan", "--players", 3, "--seed", 42, "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    result = run("log", tmp_path / "d" / "game")
    assert result.exit_code == 0, result.output
    record = json.loads(run("log", tmp_path / "d" / "game", "--json").output)
    text = result.output
    assert text.startswith(
        "Sultan, game demo-sultan-42 (sultan)\n"
        "players: alice, bob, carol\n"
        "options: absence none, absence_days 14, "
        "jewel_choice player, nmr default, placement sealed, press none, screens yes, "
        "sealing plain, start_player drawn (alice)\n"
        f"seed commitment: {record['commitment']}\n"
        "the game is over: the record is complete (15 rounds)\n"
        "\n"
        "stage 1, round 1 (turns 1, 2): start player alice\n"
        "  awards:\n"
        "    - cushion 1, jewel blue, winner carol\n"
        "    - cushion 2, jewel blue, winner bob\n"
        "  defaults: none\n"
        "  drawn: blue, green, blue\n"
        "  offered: blue, blue\n"
        "  placements:\n"
        "    - card 2, cushion 1, default no, player alice\n"
        "    - card 12, cushion 2, default no, player bob\n"
        "    - card 10, cushion 1, default no, player carol\n"
        "  returned: green\n"
        "  returned_by: player\n"
        "\n"
        "stage 1, round 2 (turns 3, 4): start player bob\n"
    )
    assert text.count("\nstage ") == 15
    assert text.endswith(
        "\n"
        "decks:\n"
        "  alice: 3, 14, 2, 7, 10, 11, 8, 13, 9, 5, 15, 12, 6, 1, 4\n"
        "  bob: 7, 3, 6, 15, 12, 2, 11, 4, 5, 14, 13, 9, 1, 8, 10\n"
        "  carol: 3, 8, 7, 15, 10, 12, 4, 11, 9, 6, 1, 5, 13, 14, 2\n"
        "\n"
        "orders: every order by turn, in log --json\n"
        "seed: 0000000000000000000000000000002a\n"
        f"salt: {record['salt']}\n"
        "\n"
        "result: carol won\n"
        "  scores:\n"
        "    alice:\n"
        "      bonus: 7\n"
        "      jewels: green 4, red 2, yellow 3\n"
        "      points: 29\n"
        "      total: 36\n"
        "    bob:\n"
        "      bonus: 2\n"
        "      jewels: blue 3, red 1, white 1, yellow 2\n"
        "      points: 24\n"
        "      total: 26\n"
        "    carol:\n"
        "      bonus: 12\n"
        "      jewels: blue 3, green 1, red 5\n"
        "      points: 29\n"
        "      total: 41\n"
    )


def test_log_text_of_a_court_game_keeps_hidden_cards_hidden(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court")
    table.play_turn()
    record = json.loads(run("log", table.gamedir, "--json").output)
    result = run("log", table.gamedir)
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith(
        "At the Sultan's Court, game cairo-2026 (sultans_court)\n"
        "players: alice (red), bob (yellow), carol (green), dave (blue)\n"
        "options: absence none, absence_days 14, "
        "banish_tie lower_seat_goes, first_round_all_travel yes, max_rounds none, "
        "nmr default, press none, sealing plain\n"
        f"seed commitment: {record['commitment']}\n"
        "the game is running: the record holds what is public, ? what is not yet "
        "(1 rounds resolved)\n"
        "\n"
        "round 1 (turn 1): start player carol\n"
        "  orders:\n"
        "    alice:\n"
        "      travel: big Kaffa, fat Shiraz, small Bukhara\n"
        "      accuse: none\n"
    )
    assert "\n  events:\n    - turn_order: order [carol, dave, alice, bob], seat 12" in text
    for city, stack in record["deal"]["cities"].items():
        shown = ", ".join("?" if card is None else card for card in stack)
        assert f"\n    {city}: {shown}\n" in text
    assert "\nseed: " not in text and "salt" not in text and "result" not in text


@pytest.mark.seconds
def test_log_text_of_a_finished_court_game(tmp_path: Path) -> None:
    result = run(*DEMO_NO_SITE, "sultans_court", "--seed", 3, "--dir", tmp_path / "d")
    assert result.exit_code == 0, result.output
    result = run("log", tmp_path / "d" / "game")
    assert result.exit_code == 0, result.output
    record = json.loads(run("log", tmp_path / "d" / "game", "--json").output)
    assert result.output.count("\nround ") == 10
    assert "?" not in result.output
    assert result.output.endswith(
        "orders: every order by turn, in log --json\n"
        "seed: 00000000000000000000000000000003\n"
        f"salt: {record['salt']}\n"
        "\n"
        "result: carol won\n"
        "  rounds: 10\n"
    )
