"""Tests for the strict YAML loader of order files."""

from __future__ import annotations

import datetime as dt
import math
import time
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.present.verdict_lines import placed
from adjudicator.present.words import say
from adjudicator.rules import strictyaml
from adjudicator.rules.strictyaml import Loaded, StrictYamlError, YamlProblem, load

ORDER = b"""\
id: cairo-2026
player: alice
turn: 4
bid: {cushion: 2, card: 12}
"""


def problems(raw: bytes, **kwargs: Any) -> list[YamlProblem]:
    with pytest.raises(StrictYamlError) as info:
        load(raw, **kwargs)
    assert info.value.problems, "a StrictYamlError must carry at least one problem"
    return info.value.problems


def only(raw: bytes, **kwargs: Any) -> YamlProblem:
    found = problems(raw, **kwargs)
    assert len(found) == 1, found
    return found[0]


def words(problem: YamlProblem) -> str:
    return say(problem.msg)


def codes_and_lines(raw: bytes) -> list[tuple[str, int | None]]:
    return [(p.kind, p.line) for p in problems(raw)]


# --------------------------------------------------------------------------------------------
# Valid files


def test_order_file_loads_with_lines() -> None:
    loaded = load(ORDER)
    assert loaded.data == {
        "id": "cairo-2026",
        "player": "alice",
        "turn": 4,
        "bid": {"cushion": 2, "card": 12},
    }
    assert loaded.lines == {
        (): 1,
        ("id",): 1,
        ("player",): 2,
        ("turn",): 3,
        ("bid",): 4,
        ("bid", "cushion"): 4,
        ("bid", "card"): 4,
    }


def test_lines_of_block_structures() -> None:
    raw = (
        b"# orders\nid: x\nmoves:\n  - from: a\n    to: b\n  -\n    from: c\n  - plain\n"
        b"bid:\n  card: 3\n"
    )
    loaded = load(raw)
    assert loaded.data == {
        "id": "x",
        "moves": [{"from": "a", "to": "b"}, {"from": "c"}, "plain"],
        "bid": {"card": 3},
    }
    assert loaded.lines[()] == 2
    assert loaded.lines[("moves",)] == 3
    assert loaded.lines[("moves", 0)] == 4
    assert loaded.lines[("moves", 0, "to")] == 5
    assert loaded.lines[("moves", 1)] == 7
    assert loaded.lines[("moves", 1, "from")] == 7
    assert loaded.lines[("moves", 2)] == 8
    assert loaded.lines[("bid", "card")] == 10


def test_line_of_falls_back_to_nearest_ancestor() -> None:
    loaded = load(ORDER)
    assert loaded.line_of(("bid", "missing")) == 4
    assert loaded.line_of(("bid", "card", 0, "deeper")) == 4
    assert loaded.line_of(("nowhere",)) == 1
    assert loaded.line_of(()) == 1
    assert Loaded(data=None, lines={}).line_of(("a",)) is None


def test_document_markers_allowed() -> None:
    loaded = load(b"---\nid: x\nturn: 1\n...\n")
    assert loaded.data == {"id": "x", "turn": 1}
    assert loaded.lines[()] == 2
    assert loaded.lines[("turn",)] == 3


def test_scalar_types_are_not_coerced() -> None:
    raw = b"""\
quoted: "12"
single: '12'
int: 12
negative: -3
plus: +4
leading_zero: 012
float: 12.0
exp: 1e3
inf: .inf
neg_inf: -.INF
nan: .NaN
hex: 0x1A
octal: 0o17
old_octal_underscore: 1_000
sexagesimal: 1:30
yes_word: yes
cap_no: No
upper_off: OFF
y: y
true_word: True
quoted_yes: "yes"
null_word: null
tilde: ~
empty:
date: 2026-01-01
stamp: 2026-01-02 10:30:00
stamp_tz: 2026-01-02T10:30:00.25+02:00
block: |
  12
text: hello world
"""
    data = load(raw).data
    expected = {
        "quoted": "12",
        "single": "12",
        "int": 12,
        "negative": -3,
        "plus": 4,
        "leading_zero": 12,
        "float": 12.0,
        "exp": 1000.0,
        "inf": math.inf,
        "neg_inf": -math.inf,
        "hex": "0x1A",
        "octal": "0o17",
        "old_octal_underscore": "1_000",
        "sexagesimal": "1:30",
        "yes_word": True,
        "cap_no": False,
        "upper_off": False,
        True: True,  # the key `y` is itself the YAML 1.1 word for true
        "true_word": True,
        "quoted_yes": "yes",
        "null_word": None,
        "tilde": None,
        "empty": None,
        "date": dt.date(2026, 1, 1),
        "stamp": dt.datetime(2026, 1, 2, 10, 30),
        "stamp_tz": dt.datetime(
            2026, 1, 2, 10, 30, 0, 250000, tzinfo=dt.timezone(dt.timedelta(hours=2))
        ),
        "block": "12\n",
        "text": "hello world",
    }
    nan = data.pop("nan")
    assert isinstance(nan, float) and math.isnan(nan)
    assert data == expected
    for key, value in expected.items():
        assert type(data[key]) is type(value), key
    assert type(data["int"]) is int
    assert type(data["float"]) is float
    assert type(data["yes_word"]) is bool
    assert type(data["date"]) is dt.date


def test_keys_keep_their_type() -> None:
    loaded = load(b"1: one\n'2': two\nnull: nothing\n")
    assert loaded.data == {1: "one", "2": "two", None: "nothing"}
    assert loaded.lines[(1,)] == 1
    assert loaded.lines[("2",)] == 2


def test_crlf_gives_same_data_and_lines_as_lf() -> None:
    lf = b"id: x\nmoves:\n  - a\n  - b: 1\n    c: 2\nnote: |\n  two\n  lines\nend: 1\n"
    crlf = lf.replace(b"\n", b"\r\n")
    a, b = load(lf), load(crlf)
    assert a.data == b.data
    assert a.lines == b.lines
    assert b.lines[("end",)] == 9


def test_utf8_bom_accepted() -> None:
    loaded = load(b"\xef\xbb\xbf" + ORDER)
    assert loaded == load(ORDER)
    assert only(b"\xef\xbb\xbfa: \x01\n").column == 4


def test_non_ascii_text_and_tabs_inside_quoted_values() -> None:
    assert load("name: 'Zoë\tthe great'  # note\n".encode()).data == {"name": "Zoë\tthe great"}
    # PyYAML does not allow a tab inside a plain (unquoted) value
    p = only(b"name: Zoe\tthe great\n")
    assert (p.kind, p.line, p.column) == ("syntax", 1, 10)
    assert "tab" in words(p)


# --------------------------------------------------------------------------------------------
# Encoding and characters


def test_invalid_utf8_reports_line_and_byte() -> None:
    p = only(b"id: x\nplayer: alice\nnote: caf\xe9 x\n")
    assert (p.kind, p.line, p.column) == ("encoding", 3, None)
    assert placed(p.reason) == (
        "line 3: the file is not valid UTF-8 text (byte 0xe9 at column 10); save it as UTF-8"
    )
    p = only(b"id: x\nplayer: alice\na: caf\xe9\n")
    assert words(p) == (
        "the file is not valid UTF-8 text (byte 0xe9 at column 7); save it as UTF-8"
    )


@pytest.mark.parametrize(
    ("bom", "name"),
    [
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
    ],
)
def test_other_encodings_refused(bom: bytes, name: str) -> None:
    p = only(bom + "a: 1\n".encode("utf-16-le" if name == "UTF-16" else "utf-32-le"))
    assert p.kind == "encoding"
    assert name in words(p)


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9f"])
def test_control_characters_refused(char: str) -> None:
    p = only(f"id: x\nnote: ab{char}cd\n".encode())
    assert (p.kind, p.line, p.column) == ("control-character", 2, 9)
    assert f"U+{ord(char):04X}" in words(p)


def test_every_control_character_reported() -> None:
    found = problems(b"a: \x01\nb: ok\nc: x\x02y\x03\n")
    assert [(p.kind, p.line, p.column) for p in found] == [
        ("control-character", 1, 4),
        ("control-character", 3, 5),
        ("control-character", 3, 7),
    ]


# --------------------------------------------------------------------------------------------
# Documents


def test_empty_file_refused() -> None:
    for raw in (b"", b"\n\n", b"# just a comment\n  # another\n", b"---\n", b"---\n...\n"):
        p = only(raw)
        assert (p.kind, p.line, words(p)) == ("empty", None, "the file is empty")


def test_second_document_refused() -> None:
    p = only(b"id: x\n---\nid: y\n")
    assert (p.kind, p.line) == ("multiple-documents", 2)
    p = only(b"---\nid: x\n...\n---\nid: y\n")
    assert (p.kind, p.line) == ("multiple-documents", 4)


def test_content_after_document_end_refused() -> None:
    p = only(b"id: x\n...\nid: y\n")
    assert (p.kind, p.line) == ("multiple-documents", 3)


# --------------------------------------------------------------------------------------------
# Anchors, aliases, tags, merge keys, complex keys


def test_anchor_refused_even_unused() -> None:
    p = only(b"id: x\nturn: &t 4\n")
    assert (p.kind, p.line, p.column) == ("anchor", 2, 7)
    assert words(p) == "anchors ('&t') are not allowed; remove it"


def test_anchor_on_collection_refused() -> None:
    assert codes_and_lines(b"id: x\nbid: &b\n  card: 1\n") == [("anchor", 2)]


def test_alias_refused() -> None:
    assert codes_and_lines(b"a: &x 1\nb: *x\n") == [("anchor", 1), ("alias", 2)]
    assert codes_and_lines(b"a: 1\nb: *nowhere\n") == [("alias", 2)]


def test_self_referencing_alias_does_not_hang() -> None:
    assert codes_and_lines(b"a: &x [*x, *x]\n") == [("anchor", 1), ("alias", 1), ("alias", 1)]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"id: x\nturn: !!str 4\n", "!!str"),
        (b"id: x\nturn: !foo 4\n", "!foo"),
        (b"id: x\nturn: ! 4\n", "!"),
        (b"id: x\nbid: !!map\n  card: 1\n", "!!map"),
    ],
)
def test_tag_refused(raw: bytes, shown: str) -> None:
    p = only(raw)
    assert (p.kind, p.line) == ("tag", 2)
    assert f"'{shown}'" in words(p)


def test_merge_key_refused() -> None:
    assert codes_and_lines(b"base: {a: 1}\nmine:\n  <<: {a: 1}\n  b: 2\n") == [("merge-key", 3)]
    # a quoted "<<" is an ordinary text key
    assert load(b"'<<': 1\n").data == {"<<": 1}


def test_complex_keys_refused() -> None:
    assert codes_and_lines(b"id: x\n[a, b]: 1\n") == [("complex-key", 2)]
    assert codes_and_lines(b"id: x\n{a: 1}: 1\n") == [("complex-key", 2)]
    assert codes_and_lines(b"id: x\n? a\n: 1\n") == [("complex-key", 2)]
    assert codes_and_lines(b"id: x\n? [a]\n: 1\n") == [("complex-key", 2), ("complex-key", 2)]


# --------------------------------------------------------------------------------------------
# Duplicate keys


def test_duplicate_key_refused_with_both_lines() -> None:
    p = only(b"id: x\nplayer: alice\nturn: 1\nplayer: bob\n")
    assert (p.kind, p.line, p.column) == ("duplicate-key", 4, 1)
    assert words(p) == "the key 'player' is given twice (first on line 2)"


def test_duplicate_key_in_nested_and_flow_mappings() -> None:
    assert codes_and_lines(b"bid:\n  card: 1\n  cushion: 2\n  card: 3\n") == [("duplicate-key", 4)]
    assert codes_and_lines(b"bid: {card: 1, card: 2}\n") == [("duplicate-key", 1)]
    # the same key in different mappings is fine
    assert load(b"a: {k: 1}\nb: {k: 2}\n").data == {"a": {"k": 1}, "b": {"k": 2}}


def test_keys_with_equal_values_are_duplicates() -> None:
    p = only(b"1: a\n+1: b\n")
    assert (p.kind, p.line) == ("duplicate-key", 2)
    assert "'1' on line 1" in words(p)


# --------------------------------------------------------------------------------------------
# Size and depth


def test_too_large_refused_without_parsing() -> None:
    raw = b"a: " + b"x" * 65534
    assert len(raw) == 65537
    p = only(raw)
    assert (p.kind, p.line) == ("too-large", None)
    assert "65536" in words(p)
    # not even the encoding is looked at
    assert only(b"\xff" * 65537).kind == "too-large"
    # the exact limit is fine
    assert load(b"a: " + b"x" * 65533).data == {"a": "x" * 65533}
    assert only(b"a: 1\n", max_bytes=4).kind == "too-large"


def test_depth_limit() -> None:
    ten = b"[" * 10 + b"]" * 10
    assert load(ten).data == [[[[[[[[[[]]]]]]]]]]
    p = only(b"[" * 11 + b"]" * 11)
    assert (p.kind, p.line, p.column) == ("too-deep", 1, 11)
    block = b"".join(b"  " * i + b"k%d:\n" % i for i in range(12)) + b"  " * 12 + b"x\n"
    p = only(block)
    assert (p.kind, p.line) == ("too-deep", 11)
    assert load(b"a:\n  b:\n    - 1\n", max_depth=3).data == {"a": {"b": [1]}}
    assert only(b"a:\n  b:\n    - 1\n", max_depth=2).line == 3


def test_problems_before_depth_limit_are_kept() -> None:
    raw = b"a: &x 1\nb: " + b"[" * 20 + b"]" * 20 + b"\n"
    assert codes_and_lines(raw) == [("anchor", 1), ("too-deep", 2)]


def test_very_deep_nesting_refused_quickly() -> None:
    for raw in (b"[" * 100_000, b"{a: " * 50_000, b"- " * 50_000, b"[" * 100_000 + b"]" * 100_000):
        start = time.process_time()  # its own time: a loaded machine does not add to it
        p = only(raw, max_bytes=len(raw))
        assert (p.kind, p.line) == ("too-deep", 1)
        assert time.process_time() - start < 5
    assert only(b"[" * 100_000).kind == "too-large"


# --------------------------------------------------------------------------------------------
# Syntax errors


def test_syntax_error_position_and_friendly_message() -> None:
    p = only(b"id: x\nplayer: alice\nturn: 4\nbid: card:3: 1\n")
    assert (p.kind, p.line, p.column) == ("syntax", 4, 12)
    assert words(p) == (
        "mapping values are not allowed here"
        " (is a ':' missing a space after it, or a value missing quotes?)"
    )
    assert placed(p.reason).startswith("line 4, column 12: mapping values")


@pytest.mark.parametrize(
    ("raw", "line", "column", "part"),
    [
        (b"id: x\n\tturn: 1\n", 2, 1, "tab"),
        (b"id: x\nnote: 'open\n", 2, 7, "never closed"),
        (b"id: x\nmoves: [a, b\n", 2, 8, "'['"),
        (b"id: x\nbid: {card: 1\n", 2, 6, "'{'"),
        (b"id: x\nplayer\nturn: 1\n", 2, 1, "':'"),
        (b"id: x\nnote: @home\n", 2, 7, "'@'"),
        (b"- a\nb: 1\n", 2, 1, "indented"),
        (b"a:\n  - b\n  c: 1\n", 3, 3, "indented"),
        (b"id: x\nmoves: [a, [b, c]\nturn: 1\n", 3, 1, "the '[' on line 2 missing its ']'"),
        (b"moves: [a, b: c: d]\n", 1, 16, "but found ':'"),
        (b"moves: [a, b] c\n", 1, 15, "not expected"),
        (b"moves: [a, b]]\n", 1, 14, "not expected"),
        (b"a: 'it''s\n", 1, 4, "never closed"),
        (b'note: "\\q"\n', 1, 9, "escape"),
    ],
)
def test_syntax_errors(raw: bytes, line: int, column: int, part: str) -> None:
    p = only(raw)
    assert (p.kind, p.line, p.column) == ("syntax", line, column)
    assert part in words(p)


def test_syntax_error_after_other_problems_reports_all() -> None:
    raw = b"a: &x 1\nb: !!str 2\nc: [1,\nd: 3\n"
    assert codes_and_lines(raw) == [("anchor", 1), ("tag", 2), ("syntax", 3)]


def test_syntax_error_caused_by_control_character_not_repeated() -> None:
    found = problems(b"id: x\n\x00\x01: - y\n")
    assert {p.kind for p in found} == {"control-character"}


# --------------------------------------------------------------------------------------------
# Several problems at once


def test_many_problems_reported_in_file_order() -> None:
    raw = b"""\
id: &id cairo
player: alice
turn: 4
player: bob
bid: !!map {cushion: 2, card: 12}
copy: *id
extra:
  <<: {a: 1}
when: 2026-02-30
note: a\x07b
"""
    found = problems(raw)
    assert [(p.kind, p.line) for p in found] == [
        ("anchor", 1),
        ("duplicate-key", 4),
        ("tag", 5),
        ("alias", 6),
        ("merge-key", 8),
        ("invalid-date", 9),
        ("control-character", 10),
    ]
    assert "first on line 2" in words(found[1])
    error = StrictYamlError(found)
    assert str(error).splitlines()[0] == "1:yaml-anchor"


def test_placed_problem() -> None:
    assert (
        placed(YamlProblem(3, 7, "x", "yaml-empty").reason) == "line 3, column 7: the file is empty"
    )
    assert placed(YamlProblem(3, None, "x", "yaml-empty").reason) == "line 3: the file is empty"
    assert placed(YamlProblem(None, None, "x", "yaml-empty").reason) == "the file is empty"


def test_invalid_numbers_and_dates() -> None:
    assert codes_and_lines(b"a: 1\nwhen: 2026-13-01\n") == [("invalid-date", 2)]
    assert codes_and_lines(b"a: 2026-01-01 25:00:00\n") == [("invalid-date", 1)]
    assert codes_and_lines(b"a: " + b"9" * 5000 + b"\n") == [("invalid-number", 1)]
    assert codes_and_lines(b"2026-02-30: x\n") == [("invalid-date", 1)]


# --------------------------------------------------------------------------------------------
# Properties


def _load_or_refuse(raw: bytes) -> None:
    try:
        result = load(raw)
    except StrictYamlError as err:
        assert err.problems
        for p in err.problems:
            assert p.line is None or p.line >= 1
            assert p.column is None or p.column >= 1
            assert words(p)
        return
    # any other exception (RecursionError, ValueError from PyYAML...) fails the test
    assert isinstance(result, Loaded)
    assert () in result.lines


YAMLISH = st.text(
    alphabet=st.sampled_from([*"ab1 -:?[]{},&*!|>'\"#%@`~.\n\t\r\\<", "é", "\x00", "\x85"]),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_load_or_refuse(raw: bytes) -> None:
    _load_or_refuse(raw)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), YAMLISH))
def test_arbitrary_text_load_or_refuse(text: str) -> None:
    _load_or_refuse(text.encode("utf-8"))


# Plain text that yaml.safe_dump writes unquoted and the loader reads back as the same text:
# starts with a letter, and is none of the words the loader reads as null or bool ("y" and "n"
# are booleans here but PyYAML does not quote them, since PyYAML does not treat them as such).
SAFE_TEXT = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_ -]{0,11}[a-zA-Z0-9]", fullmatch=True).filter(
    lambda s: s.lower() not in {"y", "n"}
) | st.sampled_from(["a", "x", "cairo-2026", "bob"])
SCALARS = st.one_of(st.integers(min_value=-(10**12), max_value=10**12), SAFE_TEXT)


def _nested(max_depth: int) -> st.SearchStrategy[Any]:
    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(SAFE_TEXT, children, max_size=4),
        )

    return st.recursive(SCALARS, extend, max_leaves=20).filter(lambda d: _depth(d) <= max_depth)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*path, index))
    return found


def _check_round_trip(data: Any, dumped: str) -> None:
    loaded = load(dumped.encode("utf-8"))
    assert loaded.data == data
    assert type(loaded.data) is type(data)
    line_count = dumped.count("\n") + 1
    for path in _paths(data):
        assert path in loaded.lines, path
        assert 1 <= loaded.lines[path] <= line_count


@pytest.mark.seconds
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(_nested(10), st.booleans())
def test_dumped_plain_data_round_trips(data: Any, flow: bool) -> None:
    _check_round_trip(data, yaml.safe_dump(data, default_flow_style=flow, sort_keys=False))


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8),
        lambda children: st.dictionaries(
            # PyYAML writes an empty key, or one with a line break, as an explicit "? " key,
            # which is refused
            st.text(
                alphabet=st.characters(
                    exclude_categories=["Cs"], exclude_characters="\n\r\x85\u2028\u2029"
                ),
                min_size=1,
                max_size=5,
            ),
            children,
            max_size=3,
        ),
        max_leaves=10,
    )
)
def test_double_quoted_text_round_trips(data: Any) -> None:
    """Any text survives when quoted, control characters included (as escapes)."""
    _check_round_trip(data, yaml.safe_dump(data, default_style='"', sort_keys=False))


# --------------------------------------------------------------------------------------------
# Escapes in double-quoted values


@pytest.mark.parametrize(
    ("escape", "code"),
    [
        ("\\U00110000", "U+110000"),
        ("\\UFFFFFFFF", "U+FFFFFFFF"),
        ("\\U7FFFFFFF", "U+7FFFFFFF"),
    ],
)
def test_escape_past_unicode_is_a_located_problem(escape: str, code: str) -> None:
    raw = f'id: cairo-2026\nplayer: "ab{escape}"\n'.encode()
    p = only(raw)
    assert (p.line, p.column, p.kind) == (2, 12, "bad-escape")
    assert words(p) == (
        f"the escape '{escape}' in a double-quoted value stands for {code}, past the last"
        " Unicode character (U+10FFFF)"
    )


@pytest.mark.parametrize("escape", ["\\uD800", "\\uDFFF", "\\U0000DC00"])
def test_escaped_surrogate_is_refused(escape: str) -> None:
    """A lone surrogate is no character: UTF-8 cannot hold it, so no reply could quote it."""
    raw = f'id: cairo-2026\n"{escape}": 1\nplayer: "x{escape}"\n'.encode()
    assert [(p.line, p.column, p.kind, words(p)) for p in problems(raw)] == [
        (
            line,
            1 if line == 2 else 9,
            "bad-character",
            f"the double-quoted value holds an escape for U+{escape[-4:].upper()}, a lone"
            " surrogate, which is not a text character; remove it",
        )
        for line in (2, 3)
    ]


ESCAPISH = st.lists(
    st.sampled_from(
        [
            *"ab1 -:\"'\n\\{}[],#",
            *["\\x", "\\u", "\\U", "\\N", "\\_", "\\L", "\\P", "\\\n"],
            *["0", "7", "f", "F", "D8", "00", "10", "11", "FFFF", "DC00", "110000", "FFFFFFFF"],
        ]
    ),
    max_size=30,
).map("".join)


@pytest.mark.seconds
@settings(max_examples=300, deadline=None)
@given(ESCAPISH)
def test_escape_heavy_text_loads_or_refuses(text: str) -> None:
    _load_or_refuse(f'a: "{text}"\n'.encode())
    _load_or_refuse(text.encode("utf-8"))


def test_the_same_bytes_loaded_again_are_the_callers_own() -> None:
    """A file loaded again in one process is not read again, but what each caller gets is its
    own: changing it changes nothing another caller gets; refused bytes are refused again."""
    raw = b"turn: 1\nbids:\n  - [1, 2]\nwhen: 2026-11-29\nplaces: {palace: 3}\n"
    first = load(raw)
    expected = {
        "turn": 1,
        "bids": [[1, 2]],
        "when": dt.date(2026, 11, 29),
        "places": {"palace": 3},
    }
    assert first.data == expected
    lines = dict(first.lines)
    first.data["bids"][0].append(3)
    first.data["places"]["palace"] = 4
    first.data["turn"] = 2
    first.lines.clear()
    second = load(raw)
    assert second.data == expected and second.lines == lines
    assert second.data["bids"] is not first.data["bids"]
    bad = b"turn: 1\nturn: 2\n"
    refusals = []
    for _ in range(2):
        with pytest.raises(StrictYamlError) as error:
            load(bad)
        refusals.append([(p.line, p.kind) for p in error.value.problems])
        error.value.problems.clear()  # the next refusal has its problems all the same
    assert refusals[0] == refusals[1] == [(2, "duplicate-key")]


# --------------------------------------------------------------------------------------------
# libyaml's parser, where both parsers read a text alike


def _outcome(raw: bytes, *, fast: bool) -> tuple[Any, ...]:
    """What loading ``raw`` gives (nothing kept between loads), with libyaml's parser allowed
    or not: the data and lines, or every problem with its place and words."""
    kept = strictyaml._CParser
    if not fast:
        strictyaml._CParser = None
    try:
        loaded = strictyaml._load(raw, strictyaml.DEFAULT_MAX_BYTES, strictyaml.DEFAULT_MAX_DEPTH)
    except StrictYamlError as error:
        return ("refused", [(p.line, p.column, p.kind, words(p)) for p in error.problems])
    finally:
        strictyaml._CParser = kept
    return ("loaded", repr(loaded.data), sorted(loaded.lines.items(), key=repr))


PIECES = st.lists(
    st.sampled_from(
        [
            *"ab1 -:[]{},&*!|>'\"#%@`~.\n\r<",
            *["é", "\x85", "\u2028", "\u2029", "\ufeff", "𝄞", "  ", "- ", ": ", "\n  ", "\n- "],
            *["---", "...", "0x1", "1e3", "2026-11-29", "null", "yes", "~", "|-", ">+"],
            *["{a: 1}", "[1, 2]", "'a''b'", '"x"', "#c", "%YAML 1.1\n", "%TAG ! x\n"],
        ]
    ),
    max_size=40,
).map("".join)


@pytest.mark.skipif(strictyaml._CParser is None, reason="PyYAML here was built without libyaml")
def test_a_plain_order_is_read_by_libyaml_and_an_explicit_key_is_not() -> None:
    text = ORDER.decode()
    builder = strictyaml._scan_fast(text, strictyaml.DEFAULT_MAX_DEPTH)
    assert builder is not None and builder.root["bid"] == {"cushion": 2, "card": 12}
    for left in ("? id\n: x\n", 'player: "a\\tb"\n', "player:\tbob\n", "id: [a, b\n"):
        assert strictyaml._scan_fast(text + left, strictyaml.DEFAULT_MAX_DEPTH) is None


@pytest.mark.parametrize(
    "raw",
    [
        b"%YAML 1.1#c\n---\nplayer: bob\n",  # libyaml takes a comment glued to the version
        b"# c\r%YAML 1.1#c\r---\rx",
        b"\n\n%YAML 1.2#\n--- x\n",
        b"%TAG !a! %00%C0%80\n---\nplayer: bob\n",  # a prefix PyYAML cannot decode
        b"%TAG !a! a%00%ED%A0%80\n--- x\n",
        b"\xe2\x80\xa8\xef\xbb\xbf",  # a byte order mark past the start
        b"'a''b'\n\xef\xbb\xbf",
        b"|#",  # a block scalar's header with a comment and no space before it
        b"a: >-#\n  b\n",
    ],
)
def test_texts_the_parsers_read_differently_load_as_the_pure_parser_loads_them(raw: bytes) -> None:
    """Texts libyaml takes and PyYAML's own parser refuses (or reads otherwise), found by
    fuzzing and by a review: each is read by the pure-Python parser alone."""
    assert _outcome(raw, fast=True) == _outcome(raw, fast=False)


@pytest.mark.skipif(strictyaml._CParser is None, reason="PyYAML here was built without libyaml")
@pytest.mark.seconds
@settings(max_examples=400, deadline=None)
@given(st.one_of(PIECES, YAMLISH, ESCAPISH, st.text(max_size=120)))
def test_libyaml_loads_what_the_pure_parser_loads(text: str) -> None:
    """Any text loads to the same data and lines, or is refused for the same problems in the
    same places, whichever parser reads it."""
    raw = text.encode("utf-8", "surrogatepass")
    assert _outcome(raw, fast=True) == _outcome(raw, fast=False)


@pytest.mark.skipif(strictyaml._CParser is None, reason="PyYAML here was built without libyaml")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(_nested(10), st.booleans(), st.sampled_from([None, 3, 4]))
def test_libyaml_loads_dumped_data_as_the_pure_parser_does(
    data: Any, flow: bool, indent: int | None
) -> None:
    raw = yaml.safe_dump(data, default_flow_style=flow, sort_keys=False, indent=indent).encode()
    assert _outcome(raw, fast=True) == _outcome(raw, fast=False)
