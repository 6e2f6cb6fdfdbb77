"""Translations rest on docs/glossary.md: each game word per language, from the rulebooks.

(a) Every line of a rulebook that the glossary cites holds the word it is cited for.
(b) Every entry of Sultan's catalogs (templates and the codes of templates/sultan/texts) whose
    English holds a glossary word says it, in its translation, with one of that language's forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.glossary import forms, prose, table, without_the_words
from tests.glossary import words_in as shared_words_in

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary.md"
SULTAN = ROOT / "templates" / "sultan"
LANGS = ("de", "nl", "fr")
SOURCE = re.compile(r"^(?P<file>\d{3}_[0-9a-f]{16}\.txt):(?P<line>\d+)$")


def rulebooks() -> Path:
    """The shared rulebooks folder: beside the repository (or its worktree) or under it.

    The leaflets are not part of the repository; tests that read them skip without them.
    """
    for parent in [ROOT, *ROOT.parents]:
        for candidate in (parent / "shared" / "rulebooks", parent / "rulebooks"):
            if candidate.is_dir():
                return candidate
    pytest.skip("the rulebooks (shared/rulebooks) are not here")


@dataclass(frozen=True)
class Entry:
    english: tuple[str, ...]
    forms: dict[str, tuple[str, ...]]
    sources: dict[str, str]


def glossary() -> list[Entry]:
    """The one table of docs/glossary.md."""
    header = ["en", "de", "de source", "nl", "nl source", "fr", "fr source"]
    return [
        Entry(
            english=forms(row["en"]),
            forms={lang: forms(row[lang]) for lang in LANGS},
            sources={lang: row[f"{lang} source"] for lang in LANGS},
        )
        for row in table(GLOSSARY, header)
    ]


def test_the_glossary_has_the_game_words() -> None:
    words = {word for entry in glossary() for word in entry.english}
    required = {
        "stage", "round", "start player", "cushion", "jewel", "pouch", "money card", "screen",
        "white", "red", "yellow", "green", "blue", "bid", "placement", "collection", "bonus",
        "point", "winner", "turn", "order",
    }  # fmt: skip
    assert required <= words
    for entry in glossary():
        for lang in LANGS:
            assert entry.forms[lang], f"{entry.english}: no {lang} word"
            source = entry.sources[lang]
            assert source == "—" or SOURCE.match(source), f"{entry.english}: {lang} source {source}"


def cited() -> list[tuple[str, str, str]]:
    return [
        (entry.english[0], lang, entry.sources[lang])
        for entry in glossary()
        for lang in LANGS
        if entry.sources[lang] != "—"
    ]


@pytest.mark.parametrize(("word", "lang", "source"), cited())
def test_the_cited_rulebook_line_holds_the_word(word: str, lang: str, source: str) -> None:
    found = SOURCE.match(source)
    assert found is not None
    lines = (rulebooks() / found["file"]).read_text(encoding="utf-8").splitlines()
    line = lines[int(found["line"]) - 1].casefold()
    forms = next(e for e in glossary() if e.english[0] == word).forms[lang]
    assert any(form.casefold() in line for form in forms), f"{word} ({lang}): {source}"


def words_in(english: str) -> list[Entry]:
    return shared_words_in(english, glossary())


def test_prose_and_words_in() -> None:
    assert prose("'bids' must hold {given}, such as {{cushion: 1, card: 9}}").split() == [
        "must",
        "hold",
        ",",
        "such",
        "as",
    ]
    assert [e.english[0] for e in words_in("The cards (in placement order)")] == [
        "placement order",
        "card",
    ]
    assert words_in("%(player)s's order") == words_in("an order")


@pytest.mark.parametrize("lang", LANGS)
def test_sultans_translations_use_the_glossary_words(lang: str) -> None:
    path = SULTAN / "locale" / lang / "LC_MESSAGES" / "messages.po"
    _, wrong = without_the_words(path, glossary(), lang)
    assert wrong == [], f"{path.relative_to(ROOT)}: without the glossary's word"
