"""A game's JSON files are the bytes of ``json.dumps(data, indent=2)``, however they are made.

``verify`` recomputes every state and view and compares their digests with the journal's, so a
file written by one release must be written alike by the next: ``dump_json`` lays large
documents out with another library, and must not change one byte of what ``json`` wrote.
"""

from __future__ import annotations

import collections
import datetime as dt
import decimal
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator import demo
from adjudicator.store.gamedir import _LARGE, dump_json

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats()
DATA = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(), inner, max_size=6)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=40,
)


def written_by_json(data: object, sort_keys: bool) -> bytes:
    text = json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    return (text + "\n").encode()


def outcome(write: Callable[[], bytes]) -> bytes | type[BaseException]:
    """What a writer wrote, or the kind of error it raised (keys json cannot sort, say)."""
    try:
        return write()
    except (TypeError, ValueError) as error:
        return type(error)


@pytest.mark.seconds
@settings(max_examples=300, deadline=None)
@given(data=DATA, sort_keys=st.booleans(), large=st.booleans())
def test_every_document_is_written_as_json_writes_it(data, sort_keys, large):
    if large:  # past the size from which the other layout is used
        data = {"data": data, "padding": "x" * _LARGE}
    else:  # small, and laid out so all the same once the layout's library is loaded
        import msgspec.json  # noqa: F401
    assert outcome(lambda: dump_json(data, sort_keys)) == outcome(
        lambda: written_by_json(data, sort_keys)
    )


def test_what_json_cannot_write_fails_as_it_does():
    lone = {"padding": "x" * _LARGE, "half": "\ud800"}  # YAML's "\ud800" makes one
    for document in (lone, {"x": lone}):
        for call in (lambda d=document: dump_json(d), lambda d=document: written_by_json(d, True)):
            try:
                call()
            except UnicodeEncodeError:
                continue
            raise AssertionError("a lone surrogate was written")


class Items(dict):
    """A mapping whose items json asks for, in its own order."""

    def items(self):
        return [(key, self[key]) for key in sorted(dict.keys(self), reverse=True)]


class Backwards(list):
    """A list json walks by its own iterator."""

    def __iter__(self):
        return iter(list.__getitem__(self, slice(None, None, -1)))


class Key(str):
    """A key that sorts in its own order."""

    def __lt__(self, other):
        return str.__gt__(self, other)


def _moved() -> collections.OrderedDict[str, int]:
    ordered = collections.OrderedDict([("a", 1), ("b", 2)])
    ordered.move_to_end("a")
    return ordered


@pytest.mark.parametrize(
    ("data", "sort_keys"),
    [
        ({"view": _moved()}, False),
        (Items(a=1, b=2), False),
        (Items(a=1, b=2), True),
        ({"list": Backwards([1, 2, 3])}, True),
        ({Key("a"): 1, Key("b"): 2}, True),
    ],
    ids=["ordered-dict", "own-items", "own-items-sorted", "own-iterator", "own-key-order"],
)
def test_a_subclass_is_written_in_the_order_json_asks_it_for(data, sort_keys):
    """json asks a dict or list of a subclass for its items and order, and sorts keys by their
    own comparison; what such data holds in its storage may be in another order."""
    import msgspec.json  # noqa: F401 - the layout's library loaded, as in a game

    for document in (data, {"padding": "x" * _LARGE, "data": data}):
        assert outcome(lambda d=document: dump_json(d, sort_keys)) == outcome(
            lambda d=document: written_by_json(d, sort_keys)
        )


@dataclass
class Seat:
    name: str


@pytest.mark.parametrize(
    "value",
    [{1, 2}, b"ab", dt.date(2026, 12, 1), decimal.Decimal("1.5"), uuid.UUID(int=1), Seat("x")],
    ids=["set", "bytes", "date", "decimal", "uuid", "dataclass"],
)
def test_what_json_refuses_is_refused_though_msgspec_could_write_it(value):
    """msgspec writes these (a set as a list, bytes in base64, a date as text...); json does
    not, and so neither does a game's file."""
    import msgspec.json  # noqa: F401 - the layout's library loaded, as in a game

    for document in ({"value": value}, {"padding": "x" * _LARGE, "value": [value]}):
        for sort_keys in (True, False):
            assert outcome(lambda d=document, s=sort_keys: dump_json(d, s)) is TypeError
            assert outcome(lambda d=document, s=sort_keys: written_by_json(d, s)) is TypeError


@pytest.mark.seconds
def test_a_whole_games_files_are_those_json_writes(tmp_path: Path):
    demo.run("sultan", 2, 3, tmp_path, lambda _line: None, site=False)
    files = sorted((tmp_path / "game" / "turns").glob("*/**/*.json"))
    large = [path for path in files if path.stat().st_size >= _LARGE]
    assert len(large) > 20, "the game's views are large enough to take the other layout"
    for path in files:
        data = json.loads(path.read_bytes())
        sort_keys = "views" not in path.parts  # a view keeps its mappings' order
        assert path.read_bytes() == written_by_json(data, sort_keys), path
