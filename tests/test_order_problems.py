"""Every problem of an order file at once, and the notes an accepted order may carry.

A wrong type in one place must not hide a problem in another: the game's own checks
run on every part that is well typed, and each problem names its line. A standing instruction
that cannot apply as things stand is accepted with a note (docs/order-files.md; docs/rulings.md C6).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import Table, run
from tests.ssh import ssh_sign
from tests.test_mail_answers import ingest, mail, sent, text


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


NO_CARD = (
    "you hold no Pardon card now: this pardon of small applies only if you collect one this "
    "round (one Pardon card each, RULINGS C11)"
)


def pardon_without_a_card(table: Table) -> tuple[str, str, list[str]]:
    """A player with no Pardon card in hand, their order pardoning small (at court in round 1),
    and the notes it gets."""
    player = next(p for p in table.names if "Pardon" not in table.view(p)["hands"][p])
    body = {**table.legal(player), "pardon": [{"vizir": "small", "city": "Tabriz"}]}
    text = table.order_text(player, body)
    line = line_with(text, "- vizir: small")
    seat = table.view(player)["my_vizirs"]["small"]["seat"]
    notes = [
        f"line {line}: {NO_CARD}",
        f"line {line}: small sits at court on seat {seat}, not in Dungeon 2 or 3: this pardon "
        "cannot apply this round",
    ]
    return player, text, notes


def test_a_pardon_without_a_pardon_card_is_accepted_with_notes(tmp_path: Path) -> None:
    table = court_table(tmp_path)
    player, text, notes = pardon_without_a_card(table)
    order = table.write(f"{player}.yaml", text)
    result = run("check", order, "--form", form_of(table, player))
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"{order}: valid ({player}, turn 1)",
        *(f"  note: {note}" for note in notes),
    ]
    ssh_sign(table.keys[player], order)
    result = run("submit", table.gamedir, order)
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"{order}: accepted ({player}, turn 1)",
        *(f"  note: {note}" for note in notes),
    ]


def test_notes_never_refuse_and_stand_beside_the_problems_of_other_files(tmp_path: Path) -> None:
    table = court_table(tmp_path)
    player, text, notes = pardon_without_a_card(table)
    good = table.write(f"{player}.yaml", text)
    ssh_sign(table.keys[player], good)
    other = next(p for p in table.names if p != player)
    bad = table.write(f"{other}.yaml", table.order_text(other, {"accuse": 5}))
    ssh_sign(table.keys[other], bad)
    result = run("submit", table.gamedir, good, bad)
    assert result.exit_code == 3
    lines = result.output.splitlines()
    assert lines[:3] == [f"{good}: accepted ({player}, turn 1)", *(f"  note: {n}" for n in notes)]
    assert lines[3].startswith(f"{bad}: refused: ")
    assert not any("note:" in line for line in lines[3:])
    assert table.status()["received"] == [player]


def test_a_pardon_with_a_card_for_a_vizir_in_dungeon_2_has_no_note() -> None:
    from adjudicator.games.sultans_court import GAME
    from adjudicator.games.sultans_court.orders import notes, validate
    from adjudicator.present.words import say

    context = {
        "player": "alice",
        "players": ["alice", "bob", "carol", "dave"],
        "round": 4,
        "to_do": "orders",
        "first_round_all_travel": True,
        "vizirs": {
            "fat": {"place": "Tabriz", "seat": None},
            "small": {"place": "dungeon2", "seat": None},
            "big": {"place": "dungeon1", "seat": None},
        },
        "pardons": 1,
    }
    order = {
        "travel": {"fat": "stay"},
        "pardon": [{"vizir": "small", "city": "T"}, {"vizir": "big", "city": "Kaffa"}],
    }
    assert validate(context, order) == []
    assert [(p.code, say(p.msg, GAME), p.path) for p in notes(context, order)] == [
        (
            "too-few-pardon-cards",
            "you hold only 1 Pardon card now: this pardon of big applies only if you collect "
            "another this round (one Pardon card each, RULINGS C11)",
            ("pardon", 1),
        ),
        (
            "in-dungeon-1",
            "big is in Dungeon 1 now: this pardon applies only if this round's banishment "
            "pushes it on to Dungeon 2",
            ("pardon", 1, "vizir"),
        ),
    ]
    # a form made before the context carried the Pardon cards: no word on them
    del context["pardons"]
    assert [p.code for p in notes(context, order)] == ["in-dungeon-1"]


@pytest.mark.seconds
def test_the_receipt_lists_the_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-23T20:00:00+00:00")
    table = court_table(tmp_path)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "Court <gm-bot@example.org>"\ngm = "gm@example.org"\n')
    player, order_text, notes = pardon_without_a_card(table)
    order = table.write(f"{player}.yaml", order_text)
    ssh_sign(table.keys[player], order)
    signature = order.with_name(order.name + ".sig").read_bytes()
    raw = mail((order.read_bytes(), signature), sender=f"{player}@example.org")
    assert ingest(table, config, raw) == [f"<m@mail> cairo-2026 {player} 1 accepted"]
    [receipt] = [m for m in sent(table, config) if "order accepted" in m["Subject"]]
    lines = text(receipt).splitlines()
    assert lines[1].startswith("SHA-256: ")
    assert lines[2:4] == [f"note: {note}" for note in notes]
    assert lines[4:6] == ["", "The order now in effect for you:"]


POWER = ("Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships")


def test_a_trade_of_a_card_not_held_and_a_demand_for_a_card_held_are_accepted_with_notes(
    tmp_path: Path,
) -> None:
    """Both are standing instructions that may come true by their moment (C6): an earlier
    trade of the round may give the card to trade away (C14), a trade before the demand may
    give away the type demanded (C8). check took them without a word: it notes them."""
    table = court_table(tmp_path)
    hands = {p: table.view(p)["hands"][p] for p in table.names}
    player = next(p for p in table.names if set(hands[p]) & set(POWER))
    hand = hands[player]
    held = next(card for card in POWER if card in hand)
    lacking = [card for card in POWER if card not in hand]
    other = next(p for p in table.names if p != player)
    body = {
        **table.legal(player),
        "demand": [{"from": other, "card": held}, {"from": other, "card": lacking[0]}],
        "trades": [
            {"with": other, "give": lacking[0], "get": lacking[1]},
            {"with": other, "give": held, "get": lacking[2]},
        ],
    }
    text = table.order_text(player, body)
    order = table.write(f"{player}.yaml", text)
    result = run("check", order, "--form", form_of(table, player))
    assert result.exit_code == 0, result.output
    demand = line_with(text, "- from:") + 1  # the first demand's card
    trade = next(
        i for i, line in enumerate(text.splitlines(), 1) if line.strip() == f"give: {lacking[0]}"
    )
    assert result.output.splitlines() == [
        f"{order}: valid ({player}, turn 1)",
        f"  note: line {demand}: you hold {held} now: this demand applies only if a trade "
        "before it this round gives away every one you hold (a demand is for a power type "
        "you lack, RULINGS C8)",
        f"  note: line {trade}: you hold no {lacking[0]} now: this trade applies only if a "
        "trade before it this round gives you one (trades come before travel, RULINGS C14)",
    ]


def test_the_notes_on_a_trade_and_a_demand_are_said_in_every_language() -> None:
    from adjudicator.games.sultans_court import GAME
    from adjudicator.games.sultans_court.orders import notes
    from adjudicator.present.words import say

    context = {
        "player": "alice",
        "players": ["alice", "bob", "carol", "dave"],
        "round": 2,
        "to_do": "orders",
        "first_round_all_travel": True,
        "vizirs": {kind: {"place": "Tabriz", "seat": None} for kind in ("fat", "small", "big")},
        "pardons": 0,
        "held": ["Ships"],
    }
    order = {
        "demand": [{"from": "bob", "card": "ships"}],
        "trades": [{"with": "bob", "give": "gold", "get": "Ships"}],
    }
    found = notes(context, order)
    assert [(p.code, p.path) for p in found] == [
        ("demand-card-held", ("demand", 0, "card")),
        ("trade-card-not-held", ("trades", 0, "give")),
    ]
    said = {lang: [say(p.msg, GAME, lang) for p in found] for lang in ("en", "de", "nl", "fr")}
    assert "Schiffe" in said["de"][0] and "Gold" in said["de"][1]
    assert "Schepen" in said["nl"][0] and "Navires" in said["fr"][0]
    assert len({words[1] for words in said.values()}) == 4, "translated"
    # a form made before the context carried the cards held: no word on them
    del context["held"]
    assert notes(context, order) == []
