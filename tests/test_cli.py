"""The command contract: exact messages and exit codes, with real ssh-keygen signatures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest

from adjudicator.cli import cli
from tests.helpers import SEED, Table, run
from tests.ssh import make_key, pub_line, ssh_keygen, ssh_sign


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def starter(table: Table) -> str:
    (player,) = table.status()["owed"]
    return player


def test_new_game_opens_turn_one_with_the_start_players_choice(table: Table) -> None:
    status = table.status()
    assert status["id"] == "cairo-2026"
    assert status["game"] == "sultan"
    assert status["turn"] == 1
    assert status["over"] is False
    assert list(status["owed"].values()) == ["return"]
    assert status["waiting_for"] == list(status["owed"])
    assert status["received"] == []
    assert status["deadline"] is None
    stored = table.gamedir / "turns" / "0001" / "views"
    assert sorted(p.name for p in stored.glob("*")) == [
        "alice.json",
        "bob.json",
        "carol.json",
        "gm.json",
        "public.json",
    ]


def test_new_writes_the_created_line_with_turn_one_and_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's first line says the game was created, at turn 1, with the first turn's
    deadline (docs/game-directory.md); status reads that deadline."""
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T10:00:00+00:00")
    table = Table(tmp_path, schedule={"deadline": "48h"})
    first = json.loads((table.gamedir / "log.jsonl").read_text().splitlines()[0])
    assert (first["type"], first["turn"]) == ("created", 1)
    assert first["at"] == "2026-11-23T10:00:00+00:00"
    assert first["deadline"] == "2026-11-25T10:00:00+00:00"
    assert table.status()["deadline"] == first["deadline"]


def test_accepted_order_and_a_replacement(table: Table) -> None:
    player = starter(table)
    first = table.signed(player, table.legal(player), "first.yaml")
    result = run("submit", table.gamedir, first)
    assert result.exit_code == 0
    assert result.output == f"{first}: accepted ({player}, turn 1)\n"
    status = table.status()
    assert status["received"] == [player]
    assert status["waiting_for"] == []
    drawn = table.view(player)["drawn"]
    other = next(colour for colour in drawn if colour != drawn[0])
    second = table.signed(player, {"return": other}, "second.yaml")
    result = run("submit", table.gamedir, second)
    assert result.output == f"{second}: accepted ({player}, turn 1), replaces the earlier order\n"
    stored = table.gamedir / "turns" / "0001" / "orders"
    assert (stored / f"{player}-2.yaml").read_bytes() == second.read_bytes()
    assert (stored / f"{player}-2.yaml.sig").read_bytes() == Path(f"{second}.sig").read_bytes()


def test_two_orders_of_one_player_in_one_submit_the_second_replaces_the_first(
    table: Table,
) -> None:
    player = starter(table)
    drawn = table.view(player)["drawn"]
    first = table.signed(player, {"return": drawn[0]}, "first.yaml")
    second = table.signed(player, {"return": drawn[1]}, "second.yaml")
    result = run("submit", table.gamedir, first, second)
    assert (result.exit_code, result.output) == (
        0,
        f"{first}: accepted ({player}, turn 1)\n"
        f"{second}: accepted ({player}, turn 1), replaces the earlier order\n",
    )
    entries = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    assert [o["replaces"] for o in entries[-1]["orders"]] == [False, True]


def test_stored_pair_verifies_with_ssh_keygen(table: Table) -> None:
    player = starter(table)
    order = table.signed(player, table.legal(player))
    assert run("submit", table.gamedir, order).exit_code == 0
    stored = table.gamedir / "turns" / "0001" / "orders" / f"{player}-1.yaml"
    signers = table.root / "allowed_signers"
    signers.write_text(f"{player} {pub_line(table.keys[player])}\n")
    done = ssh_keygen(
        "-Y",
        "verify",
        "-f",
        signers,
        "-I",
        player,
        "-n",
        "adjudicator-orders",
        "-s",
        f"{stored}.sig",
        stdin=stored.read_bytes(),
    )
    assert done.returncode == 0, done.stderr


def test_replay_is_refused(table: Table) -> None:
    player = starter(table)
    order = table.signed(player, table.legal(player))
    assert run("submit", table.gamedir, order).exit_code == 0
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output == (
        f"{order}: refused: replay: these exact signed bytes were accepted before (turn 1); "
        "to send the same order again, change anything and sign again\n"
    )


def test_tampered_order_is_refused_and_changes_nothing(table: Table) -> None:
    player = starter(table)
    order = table.signed(player, table.legal(player))
    order.write_text(order.read_text().replace("turn: 1", "turn:  1"))
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output.startswith(f"{order}: refused: bad signature: ")
    assert table.status()["received"] == []
    assert not (table.gamedir / "turns" / "0001" / "orders").exists()


def test_signed_with_another_players_key_names_whose(tmp_path: Path) -> None:
    """The refusal names the player whose key made the signature: here the last of the
    others, not merely the first other player."""
    table = Table(tmp_path, players=4, start_player="alice")
    order = table.signed("alice", table.legal("alice"), "alice.yaml", signer="dave")
    result = run("submit", table.gamedir, order)
    assert (result.exit_code, result.output) == (
        3,
        f"{order}: refused: bad signature: signed with dave's key, not alice's\n",
    )


def test_a_signature_file_given_after_its_order_pairs_with_it(table: Table) -> None:
    """A signature given on the command line signs the order file just before it, whatever
    its name; a second signature after the same order is a usage error."""
    player = starter(table)
    order = table.signed(player, table.legal(player), "mine.yaml")
    signature = Path(f"{order}.sig").rename(table.root / "orders" / "kept.sig")
    result = run("submit", table.gamedir, order, signature)
    assert (result.exit_code, result.output) == (0, f"{order}: accepted ({player}, turn 1)\n")
    other = table.signed(player, table.legal(player), "other.yaml")
    result = run("submit", table.gamedir, other, f"{other}.sig", signature)
    assert (result.exit_code, result.output) == (
        2,
        f"Error: {signature}: a signature with no order file before it\n",
    )


def test_an_order_file_too_large_to_read_is_refused_unread(table: Table) -> None:
    """Over the cap of an order with its signature appended (72 KiB), the file is not read."""
    player = starter(table)
    path = table.write("huge.yaml", table.order_text(player, table.legal(player)) + "#" * 80000)
    size = path.stat().st_size
    result = run("submit", table.gamedir, path)
    assert (result.exit_code, result.output) == (
        3,
        f"{path}: refused: the order file is {size} bytes; at most 72 KiB are accepted\n",
    )


def test_missing_signature(table: Table) -> None:
    player = starter(table)
    order = table.write("plain.yaml", table.order_text(player, table.legal(player)))
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output == (
        f"{order}: refused: no signature: sign the file (adjudicator sign FILE --key KEY, or "
        "ssh-keygen -Y sign -n adjudicator-orders -f KEY FILE) and send FILE.sig with it "
        "(to sign again with ssh-keygen, delete FILE.sig first)\n"
    )


def test_signed_with_another_players_key(table: Table) -> None:
    player = starter(table)
    other = next(n for n in table.names if n != player)
    order = table.signed(player, table.legal(player), signer=other)
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output == (
        f"{order}: refused: bad signature: signed with {other}'s key, not {player}'s\n"
    )


def test_signed_with_a_stranger_key(table: Table) -> None:
    player = starter(table)
    stranger = make_key(table.root / "other", "mallory")
    path = table.write("x.yaml", table.order_text(player, table.legal(player)))
    ssh_sign(stranger, path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert f"{path}: refused: bad signature: " in result.output
    assert "SHA256:" in result.output


def test_wrong_game_turn_and_a_player_who_owes_nothing(table: Table) -> None:
    player = starter(table)
    body = table.legal(player)
    text = (
        table.order_text(player, body)
        .replace("cairo-2026", "cairo-2027")
        .replace("turn: 1", "turn: 3")
    )
    path = table.write("wrong.yaml", text)
    ssh_sign(table.keys[player], path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output == (
        f"{path}: refused: line 1: this order is for game 'cairo-2027', not 'cairo-2026'\n"
        "  line 3: this order is for turn 3, a later turn; the game is at turn 1\n"
    )
    idle = next(n for n in table.names if n != player)
    path = table.signed(idle, {"bid": {"cushion": 1, "card": 1}}, "idle.yaml")
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output == f"{path}: refused: {idle} owes no order in turn 1\n"


def test_strict_yaml_problems_are_all_reported_with_lines(table: Table) -> None:
    player = starter(table)
    text = f"id: cairo-2026\nplayer: {player}\nturn: 1\nreturn: &a white\ncolour: red\nturn: 2\n"
    path = table.write("bad.yaml", text)
    ssh_sign(table.keys[player], path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{path}: refused: line 4")
    assert "anchor" in lines[0]
    assert lines[1] == "  line 6, column 1: the key 'turn' is given twice (first on line 3)"


def test_schema_problems_name_key_line_and_type(table: Table) -> None:
    player = starter(table)
    text = f"id: cairo-2026\nplayer: {player}\nturn: '1'\nreturn: white\ncolour: red\n"
    path = table.write("types.yaml", text)
    ssh_sign(table.keys[player], path)
    drawn = ", ".join(table.view(player)["drawn"])
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output == (
        f"{path}: refused: line 3: 'turn' must be a whole number such as 12, not the text '1'\n"
        f"  line 4: white was not drawn this round; drawn: {drawn}\n"
        "  line 5: unknown key 'colour'\n"
    )


def test_several_files_judged_each_on_its_own(table: Table) -> None:
    player = starter(table)
    good = table.signed(player, table.legal(player), "good.yaml")
    unsigned = table.write("unsigned.yaml", table.order_text(player, table.legal(player)))
    result = run("submit", table.gamedir, unsigned, good, f"{good}.sig")
    assert result.exit_code == 3
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{unsigned}: refused: no signature")
    assert lines[1] == f"{good}: accepted ({player}, turn 1)"


def test_appended_signature_and_crlf_in_transit(table: Table) -> None:
    player = starter(table)
    order = table.signed(player, table.legal(player), "appended.yaml")
    signed_bytes = order.read_bytes()
    joined = table.root / "orders" / "joined.yaml"
    joined.write_bytes(signed_bytes.replace(b"\n", b"\r\n") + Path(f"{order}.sig").read_bytes())
    result = run("submit", table.gamedir, joined)
    assert result.output == f"{joined}: accepted ({player}, turn 1)\n"
    stored = table.gamedir / "turns" / "0001" / "orders" / f"{player}-1.yaml"
    assert stored.read_bytes() == signed_bytes


def test_oversized_order_refused_unread(table: Table) -> None:
    player = starter(table)
    path = table.write(
        "big.yaml", table.order_text(player, table.legal(player)) + "#" * 70000 + "\n"
    )
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output == (f"{path}: refused: the order file is over 64 KiB\n")


def test_adjudicate_waits_for_missing_orders_then_defaults(table: Table) -> None:
    player = starter(table)
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 4
    assert result.output == (
        "Error: turn 1 cannot be adjudicated: orders missing from "
        f"{player} (adjudicate --default-missing applies the default orders)\n"
    )
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 0
    assert result.output == f"{table.gamedir}: turn 1 adjudicated (default orders for {player})\n"
    status = table.status()
    assert status["turn"] == 2
    assert set(status["owed"].values()) == {"bid"}
    assert "default" in run("report", table.gamedir, "--public").output


def test_nmr_wait_refuses_default_orders(tmp_path: Path) -> None:
    table = Table(tmp_path, nmr="wait")
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 4
    assert "nmr: wait" in result.output


@pytest.mark.seconds
def test_whole_game_to_the_end(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, jewel_choice="random")
    while not table.status()["over"]:
        table.play_turn()
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["over"] is True
    assert record["seed"] == SEED
    assert set(record["decks"]) == set(table.names)
    assert len(record["rounds"]) == 15
    assert record["result"]["winners"]
    player = table.names[0]
    result = run("submit", table.gamedir, table.signed(player, {"bid": {"cushion": 1, "card": 1}}))
    assert result.exit_code == 4
    assert result.output == "Error: game cairo-2026 is over; it takes no more orders\n"
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 4
    final = run("report", table.gamedir, "--player", player).output
    assert SEED in final  # the seed is revealed at the end


def test_record_while_running_holds_only_public_facts(table: Table) -> None:
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["over"] is False
    for hidden in ("seed", "decks", "orders"):
        assert hidden not in record


def test_check_against_the_form(table: Table) -> None:
    player = starter(table)
    form = table.root / "form.yaml"
    result = run("form", table.gamedir, "--player", player)
    assert result.exit_code == 0
    form.write_text(result.output)
    good = table.write("mine.yaml", table.order_text(player, table.legal(player)))
    result = run("check", good, "--form", form)
    assert result.exit_code == 0
    assert result.output == f"{good}: valid ({player}, turn 1)\n"
    bad = table.write("mine2.yaml", table.order_text(player, {"return": "purple"}))
    result = run("check", bad, "--form", form)
    assert result.exit_code == 3
    assert result.output.startswith(f"{bad}: refused: line 4: 'return' must be one of ")


def test_form_for_a_player_who_owes_nothing(table: Table) -> None:
    idle = next(n for n in table.names if n != starter(table))
    result = run("form", table.gamedir, "--player", idle)
    assert result.exit_code == 4
    assert result.output == f"Error: {idle} owes no order in turn 1\n"


def test_bad_setup_is_refused_with_lines(tmp_path: Path) -> None:
    setup = tmp_path / "setup.yaml"
    setup.write_text(
        "game: sultan\nid: x\nplayers:\n  - name: alice\n    email: alice@example.org\n"
        "    key: not-a-key\noptions:\n  placement: shouted\n"
    )
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3
    assert result.output.startswith(f"Error: {setup}: refused\n")
    assert "line 3: Sultan takes 2–5 players, not 1" in result.output
    assert "line 8:" in result.output
    assert not (tmp_path / "g").exists()


def test_new_into_a_non_empty_directory(table: Table) -> None:
    result = run("new", table.gamedir, "--setup", table.setup_path)
    assert result.exit_code == 2
    assert result.output == (
        f"Error: {table.gamedir}: the game directory must not exist or must be empty\n"
    )


def test_unknown_player_and_turn_for_reports(table: Table) -> None:
    result = run("report", table.gamedir, "--player", "zed")
    assert result.exit_code == 2
    assert result.output == (
        "Error: no player 'zed' in game cairo-2026 (players: alice, bob, carol)\n"
    )
    result = run("report", table.gamedir, "--gm", "--turn", "9")
    assert result.exit_code == 2
    assert result.output == "Error: there is no turn 9 (turns 1 to 1)\n"


def test_games_lists_sultan() -> None:
    result = run("games")
    assert result.exit_code == 0
    assert "sultan\t2-5 players\tSultan\n" in result.output


def test_unknown_game_for_schema() -> None:
    result = run("schema", "chess")
    assert result.exit_code == 2
    assert result.output.startswith("Error: no game named 'chess' is installed (installed: ")


def command_names() -> list[str]:
    """Every command of the lazy command table, as ``--help`` lists them."""
    return cli.list_commands(click.Context(cli))


@pytest.mark.parametrize("name", command_names())
def test_every_command_has_help_with_an_example(name: str) -> None:
    result = run(name, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output


def test_every_command_and_option_has_help_text() -> None:
    """Walks the click group, as sqlite-utils' test does: every command's --help has an
    example that runs that command, and every option (the group's too) says what it is for."""
    missing = []
    commands: list[tuple[list[str], click.Command]] = [([], cli)]
    commands += [([name], cli.get_command(click.Context(cli), name)) for name in command_names()]
    for args, command in commands:
        path = " ".join(["adjudicator", *args])
        shown = run(*args, "--help").output
        example = shown.split("Example", 1)[-1]
        runs = re.search(rf"^ .*(^| ){path}( |$)", example, re.MULTILINE)
        if "Example" not in shown or not runs:
            missing.append(f"{path}: no example in --help")
        for param in command.params:
            if isinstance(param, click.Option) and not (param.help or "").strip():
                missing.append(f"{path} {param.opts[0]}: no help")
    assert missing == []


def test_undecodable_bytes_are_refused_with_the_line(table: Table) -> None:
    player = starter(table)
    path = table.write("latin1.yaml", "")
    path.write_bytes(
        f"id: cairo-2026\nplayer: {player}\nturn: 1\nreturn: caf\xe9\n".encode("latin-1")
    )
    ssh_sign(table.keys[player], path)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output.startswith(f"{path}: refused: line 4")
    assert "UTF-8" in result.output


def test_check_needs_a_real_form(table: Table) -> None:
    player = starter(table)
    order = table.write("mine.yaml", table.order_text(player, table.legal(player)))
    result = run("check", order, "--form", order)
    assert result.exit_code == 3
    assert result.output == f"Error: {order}: not an order form (no '# adjudicator-form:' line)\n"


def test_status_for_people(table: Table) -> None:
    player = starter(table)
    result = run("status", table.gamedir)
    assert result.exit_code == 0
    assert result.output == (
        f"cairo-2026 (sultan), turn 1\n  {player}: owes return (waiting)\ndeadline: none\n"
    )
