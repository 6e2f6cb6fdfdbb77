"""Reading the glossaries (docs/glossary.md, docs/glossary-court.md) and checking a catalog
against one: what tests/test_glossary.py and tests/test_glossary_court.py share."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from babel.messages.pofile import read_po


class Words(Protocol):
    """A glossary entry: its English words and each language's forms."""

    @property
    def english(self) -> tuple[str, ...]: ...

    @property
    def forms(self) -> Mapping[str, tuple[str, ...]]: ...


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def forms(cell: str) -> tuple[str, ...]:
    return tuple(form.strip() for form in cell.split(" / ") if form.strip())


def table(path: Path, header: Sequence[str]) -> list[dict[str, str]]:
    """The rows of the one Markdown table of ``path``, whose header must be ``header``."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    assert cells(lines[0]) == list(header)
    return [dict(zip(header, cells(line), strict=True)) for line in lines[2:]]


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


W = TypeVar("W", bound=Words)


def words_in(english: str, entries: Iterable[W]) -> list[W]:
    """The entries an English text uses, longest first; a longer one hides the words it
    contains (``placement order`` is not also ``order``)."""
    text = prose(english)
    used = []
    for entry in sorted(entries, key=lambda e: -max(len(w) for w in e.english)):
        pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(w) + "s?" for w in entry.english) + r")\b",
            re.IGNORECASE,
        )
        if pattern.search(text):
            used.append(entry)
            text = pattern.sub(" ", text)
    return used


def without_the_words(po: Path, entries: Sequence[Words], lang: str) -> tuple[int, list[str]]:
    """How many glossary words the catalog ``po`` uses, and each entry whose translation lacks
    one of that language's forms."""
    with po.open("rb") as handle:
        catalog = read_po(handle)
    checked, wrong = 0, []
    for message in catalog:
        if not message.id:
            continue
        english = " ".join(message.id) if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for entry in words_in(english, entries):
            checked += 1
            said = [form.casefold() for form in entry.forms[lang]]
            for string in strings:
                if not any(form in prose(string).casefold() for form in said):
                    wrong.append(f"{message.context or ''} {english!r}: {entry.english[0]!r}")
    return checked, wrong
