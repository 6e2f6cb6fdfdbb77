"""Each reader in their own language: the game's (game master, spectators, submit's lines) and
each player's (reports, forms, check, receipts); order files take the colours in any of them."""

from __future__ import annotations

import email
import email.policy
import json
import re
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml

from adjudicator.engine import open_game, queries
from adjudicator.games.sultan.orders import COLOUR_NAMES
from adjudicator.present.reports import render_final, render_view
from adjudicator.present.words import say
from adjudicator.rules.contract import msg
from adjudicator.rules.lang import LANGUAGES
from tests.helpers import DEMO_NO_SITE, Table, run

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"


def report_in(table: Table, reader: str, lang: str) -> str:
    """``reader``'s report of the current turn as rendered in ``lang`` from the stored view,
    with the chain head as it stands (as the report command shows it)."""
    handle = open_game.OpenGame(table.gamedir)
    doc = queries.stored_view(handle, reader)
    return render_view(handle.game, handle.meta, doc, lang, handle.dir.head())


def spoken(tmp_path: Path) -> Table:
    """A Sultan game in German, whose first player reads Dutch."""
    table = Table(tmp_path, players=3, schedule={"lang": "de"})
    table.setup["players"][0]["lang"] = "nl"
    table.setup_path.write_text(yaml.safe_dump(table.setup, sort_keys=False))
    table.gamedir = tmp_path / "spoken"
    result = run("new", table.gamedir, "--setup", table.setup_path)
    assert result.exit_code == 0, result.output
    return table


def test_every_reader_reads_their_language(tmp_path: Path) -> None:
    table = spoken(tmp_path)
    alice, bob = table.names[:2]
    for reader, lang in ((alice, "nl"), (bob, "de"), ("gm", "de"), ("public", "de")):
        flag = ["--player", reader] if reader not in ("gm", "public") else [f"--{reader}"]
        shown = run("report", table.gamedir, *flag).output
        assert shown == report_in(table, reader, lang)
        assert shown != report_in(table, reader, "en")


def test_replace_changes_a_players_language(tmp_path: Path) -> None:
    table = spoken(tmp_path)
    alice = table.names[0]
    result = run("replace", table.gamedir, "--player", alice, "--lang", "fr")
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith(", language fr")
    assert run("report", table.gamedir, "--player", alice).output == report_in(table, alice, "fr")
    log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    assert (log[-1]["type"], log[-1]["lang"], log[-1]["was_lang"]) == ("replaced", "fr", "nl")
    assert run("send", table.gamedir).exit_code == 0
    notice = say(msg("mail-announce-replaced-lang", player=alice), lang="fr")
    told = [
        message
        for path in sorted((table.gamedir / "outbox").glob("*.eml"))
        if notice in " ".join((message := _body(path)).split())
    ]
    assert len(told) == 1, "the seat is told, in its new language"


def _body(path: Path) -> str:
    parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    part = parsed.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def test_a_language_no_catalog_has_is_refused(tmp_path: Path) -> None:
    setup = tmp_path / "setup.yaml"
    table = Table(tmp_path, players=2)
    setup.write_text(yaml.safe_dump({**table.setup, "lang": "es"}, sort_keys=False))
    result = run("new", tmp_path / "other", "--setup", setup)
    assert result.exit_code == 3
    assert "'lang' must be one of 'en', 'de', 'nl' or 'fr', not the text 'es'" in result.output
    assert not (tmp_path / "other").exists()
    result = run("replace", table.gamedir, "--player", table.names[0], "--lang", "es")
    assert result.exit_code == 2


def _not_drawn(table: Table, player: str) -> str:
    """A colour that was not drawn: an order returning it is refused with Sultan's words."""
    drawn = table.view(player)["drawn"]
    return next(c for c in ("white", "red", "yellow", "green", "blue") if c not in drawn)


def _reasons(output: str) -> str:
    return output.split(": refused: ", 1)[1]


def test_submit_words_its_refusals_in_the_games_language(tmp_path: Path) -> None:
    table = spoken(tmp_path)
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, {"return": _not_drawn(table, player)})
    german = run("submit", table.gamedir, path).output
    table_en = Table(tmp_path / "en", players=3)
    path = table_en.signed(player, {"return": _not_drawn(table_en, player)})
    english = run("submit", table_en.gamedir, path).output
    assert german.startswith(f"{table.root}/orders/{player}.yaml: refused: line 4: ")
    assert english.startswith(f"{table_en.root}/orders/{player}.yaml: refused: line 4: ")
    assert _reasons(german) != _reasons(english)


def test_check_answers_in_the_language_of_the_form(tmp_path: Path) -> None:
    table = spoken(tmp_path)
    player = next(iter(table.status()["owed"]))
    form = table.root / "form.yaml"
    form.write_text(run("form", table.gamedir, "--player", player).output)
    body = {"return": _not_drawn(table, player)}
    order = table.write("check.yaml", table.order_text(player, body))
    words = run("check", order, "--form", form).output
    english = run("check", order, "--form", _english_form(table, player)).output
    assert words.startswith(f"{order}: refused: line 4: ")
    assert english.startswith(f"{order}: refused: line 4: ")
    assert _reasons(words) != _reasons(english)


def _english_form(table: Table, player: str) -> Path:
    """The same form as English speakers get it (the carried data without a language)."""
    handle = open_game.OpenGame(table.gamedir)
    from adjudicator.present.reports import form_of_view

    text = form_of_view(handle.game, handle.meta, queries.stored_view(handle, player))
    assert text is not None
    path = table.root / "form-en.yaml"
    path.write_text(text)
    return path


NAMES = {
    "de": {"white": "Weiß", "red": "rot", "yellow": "GELB", "green": "grün", "blue": "blau"},
    "nl": {"white": "wit", "red": "rood", "yellow": "geel", "green": "Groen", "blue": "blauw"},
    "fr": {"white": "blanc", "red": "rouge", "yellow": "jaune", "green": "vert", "blue": "Bleu"},
}


@pytest.mark.parametrize("lang", sorted(NAMES))
def test_an_order_may_name_a_colour_in_any_language(tmp_path: Path, lang: str) -> None:
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    english = table.view(player)["drawn"][0]
    name = NAMES[lang][english]
    path = table.signed(player, {"return": name})
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0, result.output
    assert run("adjudicate", table.gamedir).exit_code == 0
    resolution = json.loads((table.gamedir / "turns/0001/resolution.json").read_text())
    assert resolution["orders"][player] == {"return": english}
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["rounds"] == []  # the round is still being placed: its record comes later
    stored = (table.gamedir / "turns/0001/orders" / f"{player}-1.yaml").read_text()
    assert f"return: {name}" in stored  # kept as signed


def test_the_colour_names_are_the_glossarys() -> None:
    """Each language's colour word in docs/glossary.md names that colour in an order file."""
    rows = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in ("white", "red", "yellow", "green", "blue"):
            rows[cells[0]] = [cells[1], cells[3], cells[5]]
    assert sorted(rows) == sorted({"white", "red", "yellow", "green", "blue"})
    for english, words in rows.items():
        for forms in words:
            first = forms.split(" / ")[0].lower()
            assert COLOUR_NAMES[first] == english, first


@pytest.mark.seconds
def test_demo_plays_in_a_language(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    arguments = ["--players", "3", "--seed", "5", "--dir", folder, "--lang", "nl"]
    result = run(*DEMO_NO_SITE, "sultan", *arguments)
    assert result.exit_code == 0, result.output
    handle = open_game.OpenGame(folder / "game")
    final = queries.stored_view(handle, "public")
    table = render_final(handle.game, handle.meta, final, "nl", checking=False).rstrip("\n")
    assert result.output.startswith(table + "\n")
    assert table != render_final(handle.game, handle.meta, final, "en").rstrip("\n")
    assert handle.meta["lang"] == "nl"
    assert {p["lang"] for p in handle.meta["players"]} == {"nl"}
    assert re.search(r"--lang \[en\|de\|nl\|fr\]", run("demo", "--help").output)
    assert set(LANGUAGES) == {"en", "de", "nl", "fr"}


def test_a_court_order_may_name_a_card_in_any_language() -> None:
    from adjudicator.games.sultans_court import GAME as COURT

    body = {
        "travel": {"fat": "stay", "small": "stay", "big": "stay"},
        "accuse": "none",
        "kaffa": ["Pferde", "navires", "Voorraden"],
        "demand": [{"from": "bob", "card": "goud"}],
        "trades": [{"with": "bob", "give": "Kanonen", "get": "Chevaux"}],
    }
    normal = COURT.normalise(body)
    assert normal["kaffa"] == ["Horses", "Ships", "Supplies"]
    assert normal["demand"] == [{"from": "bob", "card": "Gold"}]
    assert normal["trades"] == [{"with": "bob", "give": "Cannons", "get": "Horses"}]


def test_the_card_names_are_the_court_glossarys() -> None:
    from adjudicator.games.sultans_court.orders import CARD_NAMES

    glossary = GLOSSARY.with_name("glossary-court.md").read_text(encoding="utf-8")
    cards = {"Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships"}
    seen = set()
    for line in glossary.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in cards:
            seen.add(cells[0])
            for word in cells[1:4]:
                assert CARD_NAMES[word.lower()] == cells[0], word
    assert seen == cards
