"""The Court's translations use the words of docs/glossary-court.md.

Every entry of At the Sultan's Court's catalogs (its templates and the codes of
templates/sultans_court/texts) whose English holds a word of the glossary says it, in its
translation, with one of that language's forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary-court.md"
COURT = ROOT / "templates" / "sultans_court"
LANGS = ("de", "nl", "fr")


@dataclass(frozen=True)
class Entry:
    english: tuple[str, ...]
    forms: dict[str, tuple[str, ...]]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _forms(cell: str) -> tuple[str, ...]:
    return tuple(form.strip() for form in cell.split(" / ") if form.strip())


def glossary() -> list[Entry]:
    """The one table of docs/glossary-court.md."""
    lines = [
        line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("|")
    ]
    header = _cells(lines[0])
    assert header == ["en", "de", "nl", "fr", "why"]
    entries = []
    for line in lines[2:]:
        row = dict(zip(header, _cells(line), strict=True))
        entries.append(
            Entry(english=_forms(row["en"]), forms={lang: _forms(row[lang]) for lang in LANGS})
        )
    return entries


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


# What is not English prose in a message: placeholders, YAML in braces, quoted order-file keys.
_NOT_PROSE = [
    re.compile(r"%\(\w+\)[sd]"),
    re.compile(r"\{[^{}]*\}"),
    re.compile(r"(?<![A-Za-z])'[^']*'(?![A-Za-z])"),
]


def prose(text: str) -> str:
    for pattern in _NOT_PROSE:
        while pattern.search(text):
            text = pattern.sub(" ", text)
    return text


def words_in(english: str) -> list[Entry]:
    """The glossary entries an English text uses, longest first; a longer one hides the words
    it contains (``favoured seat`` is not also ``seat``)."""
    text = prose(english)
    used = []
    entries = sorted(glossary(), key=lambda e: -max(len(w) for w in e.english))
    for entry in entries:
        pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(w) + "s?" for w in entry.english) + r")\b",
            re.IGNORECASE,
        )
        if pattern.search(text):
            used.append(entry)
            text = pattern.sub(" ", text)
    return used


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
    with path.open("rb") as handle:
        catalog = read_po(handle)
    checked, wrong = 0, []
    for message in catalog:
        if not message.id:
            continue
        english = " ".join(message.id) if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for entry in words_in(english):
            checked += 1
            forms = [form.casefold() for form in entry.forms[lang]]
            for string in strings:
                if not any(form in prose(string).casefold() for form in forms):
                    wrong.append(f"{message.context or ''} {english!r}: {entry.english[0]!r}")
    assert checked > 100
    assert wrong == [], f"{path.relative_to(ROOT)}: without the glossary's word"
