"""Every code a program makes has its words, and every folder of words is translated whole.

Data inside, words at the edge (docs/presentation.md): the programs make codes with parameters,
the texts files give each code its English words, and the catalogs give those words and every
template string in each language.
"""

from __future__ import annotations

import ast
import datetime
import json
import re
import string
import subprocess
import sys
from collections.abc import Iterator
from configparser import RawConfigParser
from importlib.resources.abc import Traversable
from pathlib import Path

import pytest
import yaml
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from adjudicator.present.catalogs import LANGUAGES, common_folder
from adjudicator.present.words import KEPT_ENTRIES, common_texts, read_texts
from adjudicator.store import usercache
from adjudicator.store.registry import game_names, load_game

ROOT = Path(__file__).resolve().parent.parent
MAKERS = {"msg", "Msg", "Problem"}
"""The calls that make a code; codes are literal strings there, never f-strings."""


def word_folders() -> list[tuple[str, Traversable]]:
    """The adjudicator's own words and each registered game's."""
    return [("common", common_folder())] + [
        (name, load_game(name).templates()) for name in game_names()
    ]


def folder_of(name: str) -> Path:
    return ROOT / "templates" / name


def codes_made(folder: Path) -> Iterator[tuple[Path, str]]:
    """Each code made in the Python files below ``folder``: the first argument of a call to
    ``msg``, ``Msg`` or ``Problem`` (docstrings and comments do not count)."""
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            first = node.args[0]
            if name in MAKERS and isinstance(first, ast.Constant):
                yield path, str(first.value)


@pytest.mark.seconds
def test_codes_are_found_where_they_are_made() -> None:
    """The scan below sees the codes it must check (a scan that finds none checks nothing)."""
    found = {code for _, code in codes_made(ROOT / "adjudicator")}
    assert {"wrong-game", "bad-signature", "doctor-missing", "mail-too-large"} <= found


@pytest.mark.seconds
def test_every_code_the_adjudicator_makes_has_its_words() -> None:
    known = set(common_texts())
    missing = [
        f"{path.relative_to(ROOT)}: {code}"
        for path, code in codes_made(ROOT / "adjudicator")
        if code not in known
    ]
    assert missing == []


@pytest.mark.parametrize("game", sorted(game_names()))
def test_every_code_a_game_makes_has_its_words(game: str) -> None:
    module = load_game(game)
    known = set(common_texts()) | set(read_texts(module.templates() / "texts"))
    package = ROOT / "games" / game
    if not package.is_dir():
        pytest.skip(f"{game} is not one of this repository's games")
    missing = [
        f"{path.relative_to(ROOT)}: {code}"
        for path, code in codes_made(package)
        if code not in known
    ]
    assert missing == []


@pytest.mark.parametrize("game", sorted(game_names()))
def test_a_games_codes_do_not_shadow_the_adjudicators(game: str) -> None:
    """Only the codes templates/common/texts/game-words.yaml lets a game word its own way."""
    own = read_texts(load_game(game).templates() / "texts")
    allowed = set(yaml.safe_load((folder_of("common") / "texts" / "game-words.yaml").read_text()))
    assert sorted(set(own) & set(common_texts()) - allowed) == []


def test_texts_are_parsed_once_and_a_changed_file_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder's texts are kept as JSON in the user's cache folder (the tests' own): read
    again without YAML, until a file changes; a damaged entry is read afresh."""
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.yaml").write_text('hello: "hello, {name}"\ncount:\n  one: "{n} card"\n')
    (folder / "b.yaml").write_text('bye: "bye"\n')
    first = read_texts(folder)
    assert first == {"hello": "hello, {name}", "count": {"one": "{n} card"}, "bye": "bye"}

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    with monkeypatch.context() as patched:
        patched.setattr(yaml, "load", refused)
        assert read_texts(folder) == first
    (folder / "b.yaml").write_text('bye: "goodbye"\n')
    assert read_texts(folder) == {**first, "bye": "goodbye"}
    (entry,) = [e for e in usercache.folder("texts").iterdir() if b"goodbye" in e.read_bytes()]
    entry.write_bytes(entry.read_bytes().replace(b"goodbye", b"farewell"))  # damaged
    assert read_texts(folder)["bye"] == "goodbye"


def test_texts_are_read_where_the_cache_folder_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder that cannot be made (a file in its place) only means parsing each time."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.yaml").write_text('hello: "hello"\n')
    assert read_texts(folder) == read_texts(folder) == {"hello": "hello"}
    assert blocked.read_text() == ""


def test_texts_json_cannot_hold_are_read_each_time(tmp_path: Path) -> None:
    """A value JSON cannot hold as it is (a date, a key that is not text) is not kept, and
    the texts are read as they are."""
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.yaml").write_text("when: 2026-11-29\n")
    (folder / "b.yaml").write_text('yes: "a key YAML reads as true"\n')
    expected = {"when": datetime.date(2026, 11, 29), True: "a key YAML reads as true"}
    assert read_texts(folder) == read_texts(folder) == expected
    assert not usercache.folder("texts").exists()


@pytest.mark.parametrize(
    "made",
    [b"not json", b"[]", b'"text"', b'{"hello": 1}', b"[" * 100_000],
    ids=["not JSON", "a list", "a string", "a number for a text", "nested too deep"],
)
def test_an_entry_that_is_not_texts_is_read_afresh(tmp_path: Path, made: bytes) -> None:
    """An entry whose digest holds but which is not texts (made by hand, or by another
    program) is not used: the files are parsed again, and the entry made anew."""
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.yaml").write_text('hello: "hello"\n')
    read_texts(folder)
    (entry,) = usercache.folder("texts").iterdir()
    assert usercache.write(entry, made, keep=None)
    assert read_texts(folder) == {"hello": "hello"}
    assert json.loads(usercache.read(entry) or b"") == {"hello": "hello"}


def test_the_texts_cache_keeps_its_newest_entries(tmp_path: Path) -> None:
    for n in range(KEPT_ENTRIES + 3):
        folder = tmp_path / f"texts-{n}"
        folder.mkdir()
        (folder / "a.yaml").write_text(f'n: "{n}"\n')
        usercache._PRUNED.clear()  # each read by a command of its own
        assert read_texts(folder) == {"n": str(n)}
    assert len(list(usercache.folder("texts").iterdir())) == KEPT_ENTRIES


def test_a_zipped_adjudicator_finds_its_texts(tmp_path: Path) -> None:
    """The built-in templates are read from their folder; an install that is no folder (the
    package in a zip) reads them through importlib.resources."""
    import zipfile

    import adjudicator
    import adjudicator.games
    import adjudicator.templates

    zipped = tmp_path / "adjudicator.zip"
    own = Path(next(iter(adjudicator.__path__)))
    with zipfile.ZipFile(zipped, "w") as archive:
        for package, inside in (
            (adjudicator, "adjudicator"),
            (adjudicator.games, "adjudicator/games"),
            (adjudicator.templates, "adjudicator/templates"),
        ):
            folder = Path(next(iter(package.__path__)))
            if package is not adjudicator and folder.is_relative_to(own):
                continue  # installed inside the package: zipped with it
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    archive.write(path, f"{inside}/{path.relative_to(folder).as_posix()}")
    code = (
        f"import sys; sys.path.insert(0, {str(zipped)!r})\n"
        "from adjudicator.present import words\n"
        "from adjudicator.rules.contract import msg\n"
        f"assert words.__file__.startswith({str(zipped)!r}), words.__file__\n"
        "print(words.say(msg('time-left', span='1d'), None, 'en'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (done.returncode, done.stdout) == (0, "1d left\n"), done.stderr


def test_no_words_are_left_from_before_the_presentation_layer() -> None:
    assert "as-written" not in common_texts()


def _mapping() -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    """babel.cfg as ``make catalogs`` reads it: the method map and its options."""
    parser = RawConfigParser()
    parser.read(ROOT / "babel.cfg")
    extractors = dict(parser.items("extractors")) if parser.has_section("extractors") else {}
    methods, options = [], {}
    for section in parser.sections():
        if section == "extractors":
            continue
        method, pattern = (part.strip() for part in section.split(":", 1))
        methods.append((pattern, extractors.get(method, method)))
        options[pattern] = dict(parser.items(section))
    return methods, options


def extracted(folder: Path) -> dict[tuple[str | None, str], str | tuple[str, str]]:
    """Every message of a folder of words: ``(context, msgid)`` -> msgid (or singular and
    plural)."""
    methods, options = _mapping()
    found: dict[tuple[str | None, str], str | tuple[str, str]] = {}
    for _, _, message, _, context in extract_from_dir(str(folder), methods, options):
        key = message[0] if isinstance(message, tuple) else message
        found[(context, key)] = message
    return found


def _fields(text: str) -> set[str]:
    """The parameters a text uses: ``{name}`` (texts files) or ``%(name)s`` (templates)."""
    names = {f for _, f, _, _ in string.Formatter().parse(text) if f}
    names |= set(re.findall(r"%\((\w+)\)s", text))
    return names


FOLDERS = ["common", "sultan", "sultans_court"]
SPOKEN = [lang for lang in LANGUAGES if lang != "en"]


@pytest.mark.parametrize("lang", SPOKEN)
@pytest.mark.parametrize("name", FOLDERS)
def test_every_message_has_a_translation(name: str, lang: str) -> None:
    folder = folder_of(name)
    po_path = folder / "locale" / lang / "LC_MESSAGES" / "messages.po"
    with po_path.open("rb") as handle:
        catalog = read_po(handle)
    untranslated, fuzzy, wrong_fields = [], [], []
    for (context, key), message in extracted(folder).items():
        entry = catalog.get(key, context=context)
        where = f"{context or ''} {key!r}"
        strings = () if entry is None else _strings(entry.string)
        if not strings or not all(strings):
            untranslated.append(where)
            continue
        if entry is not None and entry.fuzzy:
            fuzzy.append(where)
        english = message if isinstance(message, tuple) else (message,)
        allowed = set().union(*(_fields(e) for e in english))
        if any(not _fields(s) <= allowed for s in strings):
            wrong_fields.append(where)
    assert untranslated == [], f"{po_path}: untranslated"
    assert fuzzy == [], f"{po_path}: fuzzy (unreviewed)"
    assert wrong_fields == [], f"{po_path}: uses a parameter the English does not have"


@pytest.mark.parametrize("lang", SPOKEN)
@pytest.mark.parametrize("name", FOLDERS)
def test_the_compiled_catalog_is_the_catalog(name: str, lang: str) -> None:
    """The .mo the program reads holds what the .po says (run `make catalogs` after an edit)."""
    folder = folder_of(name) / "locale" / lang / "LC_MESSAGES"
    with (folder / "messages.po").open("rb") as handle:
        po = _translated(read_po(handle))
    with (folder / "messages.mo").open("rb") as handle:
        mo = _translated(read_mo(handle))
    assert mo == po


def _strings(string: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(string) if isinstance(string, tuple | list) else (string,)


def _translated(catalog: Catalog) -> dict[tuple[str | None, str], tuple[str, ...]]:
    """Each translated entry: ``(context, msgid)`` -> its translations (Babel's ``read_mo``
    gives a context as bytes and plural forms as a list: both are made alike here)."""
    found = {}
    for message in catalog:
        key = message.id if isinstance(message.id, str) else message.id[0]
        context = message.context
        if isinstance(context, bytes):
            context = context.decode("utf-8")
        strings = _strings(message.string)
        if key and any(strings) and not message.fuzzy:
            found[(context, key)] = strings
    return found
