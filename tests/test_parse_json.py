"""A game's JSON is read alike whether msgspec reads it or ``json`` does.

``journal.parse`` lets msgspec read first where a process has loaded it (it is two to three
times faster), and ``json`` read what msgspec refuses. So the value read, and the refusal of what
is not standard JSON, must never depend on which process reads a file: each case here is read
both ways and must give the same value (the same types, the same floats, the same strings) or
the same refusal.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec.json
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.store import journal

TRICKY = [
    b'{"a": 1, "a": 2}',  # the last of a key written twice, as json takes it
    b"123456789012345678901234567890",
    b"-9223372036854775809",
    b"18446744073709551616",
    b"1e400",  # a float's range passed: json reads infinity
    b"-1e400",
    b"1.7976931348623157e309",
    b"2.5e-324",
    b"123.456e-789",
    b"-0",
    b"-0.0",
    b"0.1",
    b"1E2",
    b'"\\ud800"',  # a lone surrogate, escaped
    b'"\\udc00x"',
    b'{"\\ud83d\\ude00": 1}',
    b'"\\u0000"',
    b'"a\nb"',  # a control character in a string
    b'"a\tb"',
    b"NaN",
    b"Infinity",
    b"[1, -Infinity]",
    b"[1, 2,]",
    b'{"a": 1}  ',
    b'{"a": 1} x',
    b"\xef\xbb\xbf{}",  # a byte-order mark
    b'"\xc3\xa9"',
    b'"\xed\xa0\x80"',  # a surrogate written as UTF-8
    b'"\xff"',
    '{"a": 1}'.encode("utf-16"),
    b"",
    b" ",
    b"[" * 5000 + b"]" * 5000,  # deeper than either reads
]


def read(text: str | bytes, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    """``journal.parse(text)`` with msgspec loaded (``fast``) or not: ("ok", its repr) or
    ("refused", the error's type)."""
    with monkeypatch.context() as patched:
        if not fast:
            patched.delitem(sys.modules, "msgspec.json")
        try:
            return "ok", repr(journal.parse(text))
        except (ValueError, RecursionError) as error:
            return "refused", type(error).__name__


@pytest.mark.parametrize("text", TRICKY, ids=lambda t: repr(t[:24]))
def test_each_tricky_text_is_read_alike_both_ways(
    text: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "msgspec.json" in sys.modules
    for given_as in (text, text.decode("utf-8", "surrogatepass") if _utf8(text) else None):
        if given_as is None:
            continue
        assert read(given_as, True, monkeypatch) == read(given_as, False, monkeypatch)


def test_msgspec_reads_first_where_it_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The faster reading is the one taken where msgspec is loaded, and none is loaded here."""
    calls: list[Any] = []

    class Counted:
        @staticmethod
        def decode(text: Any) -> Any:
            calls.append(text)
            return msgspec.json.decode(text)

    monkeypatch.setitem(sys.modules, "msgspec.json", Counted)
    assert journal.parse(b'{"turn": 3}') == {"turn": 3}
    assert calls == [b'{"turn": 3}']
    monkeypatch.delitem(sys.modules, "msgspec.json")
    monkeypatch.delitem(sys.modules, "msgspec")
    assert journal.parse(b'{"turn": 3}') == {"turn": 3}
    assert "msgspec" not in sys.modules and "msgspec.json" not in sys.modules


def _utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text()
)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)
NOISE = st.binary(max_size=3) | st.sampled_from([b'"', b"\\", b"\\u", b"e", b"-", b".", b","])


@settings(max_examples=300, deadline=None)
@given(
    DATA,
    st.booleans(),
    st.sampled_from([None, 2]),
    st.lists(st.tuples(st.integers(min_value=0), NOISE, st.booleans()), max_size=3),
)
def test_any_document_and_its_damage_is_read_alike_both_ways(
    data: Any, ascii: bool, indent: int | None, damage: list[tuple[int, bytes, bool]]
) -> None:
    text = json.dumps(data, ensure_ascii=ascii, indent=indent).encode("utf-8", "surrogatepass")
    for place, noise, replace in damage:
        at = place % (len(text) + 1)
        text = text[:at] + noise + text[at + (1 if replace else 0) :]
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert read(text, True, monkeypatch) == read(text, False, monkeypatch)
