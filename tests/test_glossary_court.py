"""The Court's translations use the words of docs/glossary-court.md.

Every entry of At the Sultan's Court's catalogs (its templates and the codes of
templates/sultans_court/texts) whose English holds a word of the glossary says it, in its
translation, with one of that language's forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.glossary import forms, prose, table, without_the_words
from tests.glossary import words_in as shared_words_in

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary-court.md"
COURT = ROOT / "templates" / "sultans_court"
LANGS = ("de", "nl", "fr")


@dataclass(frozen=True)
class Entry:
    english: tuple[str, ...]
    forms: dict[str, tuple[str, ...]]


def glossary() -> list[Entry]:
    """The one table of docs/glossary-court.md."""
    rows = table(GLOSSARY, ["en", "de", "nl", "fr", "why"])
    return [
        Entry(english=forms(row["en"]), forms={lang: forms(row[lang]) for lang in LANGS})
        for row in rows
    ]


def test_the_glossary_has_the_courts_words() -> None:
    words = {word for entry in glossary() for word in entry.english}
    required = {
        "vizir", "seat", "vote marker", "court", "city", "dungeon", "Island of Banishing",
        "accuse", "accusation", "banish", "pardon", "reserve", "Horses", "Cannons", "Gold",
        "Troops", "Supplies", "Ships", "round", "start player", "player", "turn", "order",
    }  # fmt: skip
    assert required <= words
    for entry in glossary():
        for lang in LANGS:
            assert entry.forms[lang], f"{entry.english}: no {lang} word"


def words_in(english: str) -> list[Entry]:
    return shared_words_in(english, glossary())


def test_prose_and_words_in() -> None:
    assert prose("'travel' must map your vizirs, such as {{fat: Kaffa, small: stay}}").split() == [
        "must",
        "map",
        "your",
        "vizirs,",
        "such",
        "as",
    ]
    assert [e.english[0] for e in words_in("the favoured seat is seat %(seat)s")] == [
        "favoured seat",
        "seat",
    ]
    assert [e.english[0] for e in words_in("Turn order: %(players)s.")] == ["turn order"]
    assert words_in("%(vizir)s is banished") == words_in("banished")
    assert words_in("max_rounds") == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_courts_translations_use_the_glossary_words(lang: str) -> None:
    path = COURT / "locale" / lang / "LC_MESSAGES" / "messages.po"
    checked, wrong = without_the_words(path, glossary(), lang)
    assert checked > 100
    assert wrong == [], f"{path.relative_to(ROOT)}: without the glossary's word"
