"""Text from an incoming message as output lines and outgoing mail may show it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.present.quoting import addr_spec, msg_id, one_line, printable, shown_msg_id


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("orders.yaml", "orders.yaml"),
        ("a\\b", "a\\\\b"),
        ("line\r\nBcc: x@evil", "line\\r\\nBcc: x@evil"),
        ("\x1b[31mred\tx", "\\x1b[31mred\\tx"),
        ("zoë\u202egpj.yaml", "zo\\xeb\\u202egpj.yaml"),
        ("\U0001f600", "\\U0001f600"),
        (b"caf\xc3\xa9 \xff", "caf\\xe9 \\xff"),
        (None, "-"),
        ("x" * 80, "x" * 80),
        ("x" * 81, "x" * 77 + "..."),
        ("\x00" * 30, "\\x00" * 19 + "..."),
    ],
)
def test_printable(text: str | bytes | None, shown: str) -> None:
    assert printable(text) == shown


@given(st.one_of(st.text(), st.binary()), st.integers(min_value=3, max_value=200))
def test_printable_is_printable_ascii_within_the_limit(text: str | bytes, limit: int) -> None:
    shown = printable(text, limit)
    assert len(shown) <= limit
    assert all(0x20 <= ord(char) < 0x7F for char in shown)


@given(st.text())
def test_one_line_is_one_printable_line(text: str) -> None:
    line = one_line(text)
    assert line.isprintable() and len(line) <= 400


def test_one_line_keeps_words_of_any_language() -> None:
    assert one_line("Gebot für Kissen 2\nBcc: x") == "Gebot für Kissen 2\\nBcc: x"


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("<m1@mail>", "<m1@mail>"),
        ("  <a.b+c@example.org>\r\n", "<a.b+c@example.org>"),
        ("<x@[127.0.0.1]>", "<x@[127.0.0.1]>"),
        ("<no-at>", None),
        ("m1@mail", None),
        ("<a b@c>", None),
        ("<a@b> <c@d>", None),
        ("<a..b@c>", None),
        ("<a@b>\r\nBcc: x@evil", None),
        ("<zoë@x>", None),
        ("<" + "a" * 300 + "@x>", "<" + "a" * 300 + "@x>"),  # Exchange's run past 100
        ("<" + "a" * 982 + "@x>", None),  # 986: longer than a line of In-Reply-To holds
        ("", None),
        (None, None),
    ],
)
def test_msg_id(value: str | None, valid: str | None) -> None:
    assert msg_id(value) == valid
    assert shown_msg_id(value) == (valid or "-")


def test_addr_spec() -> None:
    assert addr_spec("Sultan GM <GM-Bot@Example.org>") == "gm-bot@example.org"
    assert addr_spec("gm@example.org") == "gm@example.org"
    assert addr_spec("nobody") is None
    assert addr_spec(None) is None
