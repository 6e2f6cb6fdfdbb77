"""Every problem of an order file at once, and the notes an accepted order may carry.

A wrong type in one place must not hide a problem in another (issue 11): the game's own checks
run on every part that is well typed, and each problem names its line. A standing instruction
that cannot apply as things stand is accepted with a note (DESIGN, Strictness; RULINGS C6).
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import Table, run
from tests.ssh import ssh_sign


def form_of(table: Table, player: str) -> Path:
    result = run("form", table.gamedir, "--player", player)
    assert result.exit_code == 0, result.output
    path = table.root / f"{player}-form.yaml"
    path.write_text(result.output)
    return path


def sultan_bids_turn(tmp_path: Path) -> Table:
    """Two players, sealed placement, after the start player's jewel choice: both owe bids."""
    table = Table(tmp_path, players=2)
    table.play_turn()
    assert table.status()["owed"] == {"alice": "bids", "bob": "bids"}
    return table


def test_a_wrong_type_does_not_hide_a_card_not_in_hand(tmp_path: Path) -> None:
    table = sultan_bids_turn(tmp_path)
    hand = sorted(table.view("alice")["hand"])
    text = (
        f"id: cairo-2026\nplayer: alice\nturn: {table.status()['turn']}\nbids:\n"
        f'  - cushion: "1"\n    card: 99\n  - cushion: 2\n    card: {hand[0]}\n'
    )
    order = table.write("alice.yaml", text)
    listed = ", ".join(str(c) for c in hand)
    reasons = [
        "line 5: 'bids[1].cushion' must be a whole number such as 12, not the text '1'",
        f"line 6: you have no 99 in your hand; your hand: {listed}",
    ]
    result = run("check", order, "--form", form_of(table, "alice"))
    assert result.exit_code == 3
    assert result.output.splitlines() == [f"{order}: refused: {reasons[0]}", f"  {reasons[1]}"]
    ssh_sign(table.keys["alice"], order)
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output.splitlines() == [f"{order}: refused: {reasons[0]}", f"  {reasons[1]}"]


def test_a_wrong_type_and_a_missing_card_in_another_placement(tmp_path: Path) -> None:
    table = sultan_bids_turn(tmp_path)
    hand = sorted(table.view("alice")["hand"])
    text = (
        f"id: cairo-2026\nplayer: alice\nturn: {table.status()['turn']}\nbids:\n"
        f"  - cushion: 1\n    card: {hand[0]}.0\n  - cushion: 1\n    card: 99\n"
    )
    order = table.write("alice.yaml", text)
    listed = ", ".join(str(c) for c in hand)
    result = run("check", order, "--form", form_of(table, "alice"))
    assert result.exit_code == 3
    assert result.output.splitlines() == [
        f"{order}: refused: line 6: 'bids[1].card' must be a whole number such as 12, "
        f"not the number {hand[0]}.0",
        "  line 7: both your cards lie on cushion 1; they must go on two different cushions",
        f"  line 8: you have no 99 in your hand; your hand: {listed}",
    ]


def court_table(tmp_path: Path) -> Table:
    return Table(tmp_path, players=4, game="sultans_court")


def line_with(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_court_a_wrong_type_does_not_hide_a_bad_card_and_is_said_once(tmp_path: Path) -> None:
    table = court_table(tmp_path)
    body = {**table.legal("alice"), "accuse": 5, "kaffa": ["Gold", "Spices"]}
    text = table.order_text("alice", body)
    order = table.write("alice.yaml", text)
    result = run("check", order, "--form", form_of(table, "alice"))
    assert result.exit_code == 3
    accuse, spices = line_with(text, "accuse:"), line_with(text, "- Spices")
    assert result.output.splitlines() == [
        f"{order}: refused: line {accuse}: 'accuse' must be a name or text, not the number 5",
        f"  line {spices}: 'Spices' is not a card type: Horses, Cannons, Gold, Troops, "
        "Supplies, Ships, Pardon",
    ]
