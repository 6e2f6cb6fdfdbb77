"""Each game's rules summary, shipped beside its templates (``templates/<game>/rules/<lang>.md``)
and read by :mod:`adjudicator.present.rules_summary`."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from adjudicator.present.rules_summary import summary, summary_html, summary_of, summary_text
from adjudicator.rules.errors import UsageProblem
from adjudicator.rules.lang import LANGUAGES
from adjudicator.store.registry import load_game


def game_with(folder: Path) -> Any:
    """A game whose templates folder is ``folder`` (all a summary reads of a game)."""
    return SimpleNamespace(name="made-up", templates=lambda: folder)


def test_a_language_without_its_own_file_gets_the_english_one(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "en.md").write_text("# The rules\n", encoding="utf-8")
    (tmp_path / "rules" / "de.md").write_text("# Die Regeln\n", encoding="utf-8")
    game = game_with(tmp_path)
    assert summary_of(game, "de") == "# Die Regeln\n"
    assert summary_of(game, "en") == "# The rules\n"
    assert summary_of(game, "nl") == "# The rules\n"
    assert summary_of(game, "../rules/de") == "# The rules\n", "only a language names a file"


def test_a_game_that_ships_no_summary_has_none(tmp_path: Path) -> None:
    assert summary_of(game_with(tmp_path), "en") is None
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "de.md").write_text("# Die Regeln\n", encoding="utf-8")
    assert summary_of(game_with(tmp_path), "fr") is None, "no English file: nothing to fall to"


def test_a_game_that_is_not_installed_is_named_as_such() -> None:
    with pytest.raises(UsageProblem, match="no game named 'no-such-game'"):
        summary("no-such-game", "en")


# -- the summaries the adjudicator's own games ship ----------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
GAMES = ("sultan", "sultans_court")
ORDER_KEYS = {
    "sultan": ("return", "bid", "bids"),
    "sultans_court": ("travel", "accuse", "kaffa", "demand", "pardon", "trades"),
}
"""The keys of each game's order files (docs/order-files.md)."""
ORDER_WORDS = {
    "sultan": ("jewel", "bid", "cushion", "card", "colour", "placement order", "pouch"),
    "sultans_court": (
        "vizir",
        "travel",
        "seat",
        "city / cities",
        "accuse / accusation",
        "demand",
        "pardon / pardoned",
        "trade",
        "power card",
        "instruction",
    ),
}
"""The glossary's entries (their ``en`` cell) for what the order keys hold: each language's
summary says them in that language's words."""


def glossary_forms(game: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{en cell: {lang: forms}}`` of the game's glossary (docs/glossary*.md)."""
    from tests.glossary import forms, table

    if game == "sultan":
        header = ["en", "de", "de source", "nl", "nl source", "fr", "fr source"]
        rows = table(ROOT / "docs" / "glossary.md", header)
    else:
        rows = table(ROOT / "docs" / "glossary-court.md", ["en", "de", "nl", "fr", "why"])
    return {row["en"]: {lang: forms(row[lang]) for lang in LANGUAGES} for row in rows}


def shipped(game: str, lang: str) -> str:
    return (ROOT / "templates" / game / "rules" / f"{lang}.md").read_text(encoding="utf-8")


def blocks(html: str) -> list[str]:
    """The block elements of a rendered summary, in order (a line a translation began with
    ``1.`` or ``-`` by mistake makes a list of its own)."""
    return re.findall(r"<(h\d|p|ul|ol|li|table|pre|blockquote)>", html)


def test_a_summary_changed_on_disk_is_rendered_anew(tmp_path: Path) -> None:
    """Rendered summaries are kept within a process by their Markdown, never by game and
    language: a game whose file changes (a newer install) shows the new words."""
    (tmp_path / "rules").mkdir()
    file = tmp_path / "rules" / "en.md"
    game = game_with(tmp_path)
    file.write_text("# The rules\n\nBid **high**.\n", encoding="utf-8")
    first = (summary_html(game, "en"), summary_text(game, "en"))
    assert first == (
        "<h1>The rules</h1>\n<p>Bid <strong>high</strong>.</p>\n",
        "The rules\n=========\n\nBid high.\n",
    )
    file.write_text("# The rules\n\nBid *low*.\n", encoding="utf-8")
    assert summary_html(game, "en") == "<h1>The rules</h1>\n<p>Bid <em>low</em>.</p>\n"
    assert summary_text(game, "en") == "The rules\n=========\n\nBid low.\n"
    file.write_text("# The rules\n\nBid **high**.\n", encoding="utf-8")
    assert (summary_html(game, "en"), summary_text(game, "en")) == first


def test_a_summary_shown_again_is_read_back_without_markdown_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary rendered once, as HTML and as text, is kept in the user's cache and read back
    as it was rendered by the next command (another process: nothing kept in memory), which
    then never loads markdown-it-py; a damaged entry is rendered afresh."""
    import sys

    from adjudicator.present import rules_summary
    from adjudicator.store import usercache

    def afresh() -> None:  # as in another process
        rules_summary._html.cache_clear()
        rules_summary._text.cache_clear()

    game = load_game("sultans_court")
    afresh()  # nothing kept in memory by a test before this one
    shown = [(summary_html(game, lang), summary_text(game, lang)) for lang in ("en", "fr")]
    kept = sorted(usercache.folder("rules").iterdir())
    assert len(kept) == 4
    afresh()
    monkeypatch.setitem(sys.modules, "markdown_it", None)  # loading it now fails
    assert [(summary_html(game, lang), summary_text(game, lang)) for lang in ("en", "fr")] == shown
    for entry in kept:
        entry.write_bytes(entry.read_bytes()[:-1])
    afresh()
    with pytest.raises(ImportError):  # rendered afresh: markdown-it is needed again
        summary_html(game, "en")
    monkeypatch.undo()
    afresh()
    assert [(summary_html(game, lang), summary_text(game, lang)) for lang in ("en", "fr")] == shown


def headings(text: str) -> list[str]:
    """The level of each heading, in order (``#``, ``##``...)."""
    return [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#+ ", line)]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_game_ships_its_summary_in_every_language(game: str, lang: str) -> None:
    text = summary(game, lang)
    assert text is not None and text == shipped(game, lang), "read from the game's templates"
    assert headings(text) == headings(shipped(game, "en")), "the English sections, in order"
    assert len(headings(text)) >= 5
    html, english = summary_html(load_game(game), lang), summary_html(load_game(game), "en")
    assert html is not None and english is not None
    assert blocks(html) == blocks(english), "the same lists and paragraphs, rendered"
    for key in ORDER_KEYS[game]:
        assert f"`{key}" in text, f"the order key {key!r}"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_summary_says_the_order_in_the_glossarys_words(game: str, lang: str) -> None:
    text = shipped(game, lang).casefold()
    table = glossary_forms(game)
    for entry in ORDER_WORDS[game]:
        if lang == "en":
            wanted = tuple(w.strip() for w in entry.split(" / "))
        else:
            wanted = table[entry][lang]
        assert any(form.casefold() in text for form in wanted), f"{entry}: none of {wanted}"


def citations(text: str) -> tuple[list[str], list[str]]:
    """The rulebook pages a summary cites ("p. 2", German "S. 2") and the rulings (S4, C9, P5,
    E1), in order."""
    return re.findall(r"\b[pS]\. (\d+)", text), re.findall(r"\b([SCPE]\d{1,2})\b", text)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_cites_the_pages_and_rulings_the_english_does(game: str, lang: str) -> None:
    """A translation says the same rules: the same pages and rulings, in the same order."""
    pages, rulings = citations(shipped(game, lang))
    assert len(pages) >= 10 and len(rulings) >= 10 and "RULINGS" in shipped(game, lang)
    assert (pages, rulings) == citations(shipped(game, "en"))


def items(text: str) -> dict[str, str]:
    """The summary's list items that begin with an order key or option, by that key."""
    found = re.findall(r"^- `(\w+)`(.*?)(?=^\S|^- |\Z)", text, re.M | re.S)
    return {key: " ".join(rest.split()) for key, rest in found}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_courts_summary_says_round_1_binds_the_orders_written_not_a_missing_one(
    lang: str,
) -> None:
    """The summary said that in round 1 every vizir must travel to a city, as if a missing
    order too; but `first_round_all_travel` binds the orders a player writes, and a missing
    order keeps every vizir where it is (rulings C3, C16)."""
    said = items(shipped("sultans_court", lang))
    assert "C3" in said["travel"] and "C16" in said["travel"], said["travel"]
    assert "first_round_all_travel" in said["travel"]
    assert "C3" in said["first_round_all_travel"]
    rulings = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    [c3] = re.findall(r"^- \*\*C3 .*?(?=^- \*\*)", rulings, re.M | re.S)
    assert "C16" in c3 and "missing" in c3
