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
from babel.messages.pofile import read_po

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


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _forms(cell: str) -> tuple[str, ...]:
    return tuple(form.strip() for form in cell.split(" / ") if form.strip())


def glossary() -> list[Entry]:
    """The one table of docs/glossary.md."""
    lines = [
        line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("|")
    ]
    header = _cells(lines[0])
    assert header == ["en", "de", "de source", "nl", "nl source", "fr", "fr source"]
    entries = []
    for line in lines[2:]:
        row = dict(zip(header, _cells(line), strict=True))
        entries.append(
            Entry(
                english=_forms(row["en"]),
                forms={lang: _forms(row[lang]) for lang in LANGS},
                sources={lang: row[f"{lang} source"] for lang in LANGS},
            )
        )
    return entries


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
    it contains (``placement order`` is not also ``order``)."""
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
    with path.open("rb") as handle:
        catalog = read_po(handle)
    wrong = []
    for message in catalog:
        if not message.id:
            continue
        english = " ".join(message.id) if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for entry in words_in(english):
            forms = [form.casefold() for form in entry.forms[lang]]
            for string in strings:
                if not any(form in prose(string).casefold() for form in forms):
                    wrong.append(f"{message.context or ''} {english!r}: {entry.english[0]!r}")
    assert wrong == [], f"{path.relative_to(ROOT)}: without the glossary's word"
