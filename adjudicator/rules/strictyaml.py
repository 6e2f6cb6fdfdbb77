"""A strict YAML loader for players' hand-written order files.

The loader refuses anything surprising (anchors, aliases, tags, merge keys, duplicate keys,
several documents, deep nesting, odd encodings and control characters) and reports every problem
it can find at once, each with a 1-based line (and column where known) and a message (a code
and its parameters, worded in texts/yaml.yaml).

It never composes PyYAML's node tree and never runs PyYAML's constructors: it walks the event
stream of a parser (a non-recursive state machine) and builds the Python values itself, so
nesting is bounded before anything recursive could run and values are never coerced beyond the
few rules in :func:`_resolve_plain`. The parser is libyaml's, where PyYAML has it, for a text it
reads without a problem and the two parsers read alike (:func:`_scan_fast`); PyYAML's own, pure
Python, for every other text, so each problem is found and placed by one parser.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import yaml
from yaml.error import Mark, MarkedYAMLError
from yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceStartEvent,
)

from adjudicator.rules.contract import Msg, Reason, msg
from adjudicator.rules.plain import clone

__all__ = [
    "Loaded",
    "Path",
    "StrictYamlError",
    "YamlProblem",
    "load",
]

Path = tuple[str | int, ...]

DEFAULT_MAX_BYTES: Final = 65536
DEFAULT_MAX_DEPTH: Final = 10


@dataclass(frozen=True)
class YamlProblem:
    """One reason a file was refused; ``line`` and ``column`` are 1-based.

    ``kind`` is the sort of problem (``syntax``, ``encoding``, ``duplicate-key``...), ``code``
    and ``params`` the message that tells it (its words in ``texts/yaml.yaml``).
    """

    line: int | None
    column: int | None
    kind: str
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def msg(self) -> Msg:
        return Msg(self.code, self.params)

    @property
    def reason(self) -> Reason:
        """The problem as a placed message."""
        return Reason(self.msg, self.line or 0, self.column)


class StrictYamlError(Exception):
    """The file was refused; ``problems`` lists every problem found, in file order."""

    def __init__(self, problems: list[YamlProblem]) -> None:
        self.problems: list[YamlProblem] = list(problems)
        super().__init__("\n".join(f"{p.line or 0}:{p.code}" for p in self.problems))


@dataclass(frozen=True)
class Loaded:
    """A loaded order file: the value tree and the line of every node in it.

    ``lines`` maps each path from the root to a 1-based line: for a mapping entry the line of its
    key, for a list item the line where the item starts, and for ``()`` the line where the
    document's content starts. A path element is the key itself, which is usually a ``str`` but
    keeps whatever type the key was loaded as (an ``int``, ``None``, a ``bool``...).
    """

    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def line_of(self, path: Path) -> int | None:
        """The line of `path`, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


# --------------------------------------------------------------------------------------------
# Positions

# The line breaks PyYAML counts (U+0085 is missing: it is a refused control character and is
# blanked out before PyYAML sees the text, so it never breaks a line for PyYAML either).
_LINE_BREAK = re.compile("\r\n|[\r\n\u2028\u2029]")


class _Lines:
    """Turns a character index of a text into a 1-based (line, column), as PyYAML counts them."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def position(self, index: int) -> tuple[int, int]:
        row = bisect.bisect_right(self._starts, index) - 1
        return row + 1, index - self._starts[row] + 1


class _Position(Protocol):
    """A PyYAML mark (pure-Python or libyaml): 0-based line and column."""

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...


def _mark_position(mark: _Position | None) -> tuple[int | None, int | None]:
    if mark is None:
        return None, None
    return mark.line + 1, mark.column + 1


# --------------------------------------------------------------------------------------------
# Bytes to text

_OTHER_BOMS: Final = (
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"),
    (b"\xff\xfe", "UTF-16"),
)
_UTF8_BOM: Final = b"\xef\xbb\xbf"

# C0 controls other than tab, LF and CR; DEL; C1 controls.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Code points that are not text at all (PyYAML refuses them too).
_NONCHARACTER = re.compile("[\ufffe\uffff]")
# Lone surrogates: no UTF-8 text holds one, but a double-quoted escape ("\\uD800") makes one.
_SURROGATE = re.compile("[\ud800-\udfff]")

_CONTROL_NAMES: Final = {
    0x00: "control-nul",
    0x07: "control-bell",
    0x08: "control-backspace",
    0x0B: "control-vertical-tab",
    0x0C: "control-form-feed",
    0x1B: "control-escape",
    0x7F: "control-delete",
    0x85: "control-next-line",
}


def _decode(raw: bytes) -> str | YamlProblem:
    """The text of `raw`, or the encoding problem that stops it being read at all."""
    for bom, name in _OTHER_BOMS:
        if raw.startswith(bom):
            return YamlProblem(1, None, "encoding", "yaml-other-bom", {"encoding": name})
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        before = raw[: err.start].decode("utf-8")
        line, column = _Lines(before + "x").position(len(before))
        return YamlProblem(
            line, None, "encoding", "yaml-not-utf8", {"byte": raw[err.start], "column": column}
        )


def _character_problems(text: str) -> tuple[str, list[YamlProblem]]:
    """Problems for refused characters, and the text with each of them blanked to a space."""
    problems: list[YamlProblem] = []
    if not (_CONTROL.search(text) or _NONCHARACTER.search(text)):
        return text, problems
    lines = _Lines(_CONTROL.sub(" ", text))
    for match in _CONTROL.finditer(text):
        code = ord(match.group())
        name = msg(_CONTROL_NAMES.get(code, "control-other"))
        line, column = lines.position(match.start())
        problems.append(
            YamlProblem(
                line,
                column,
                "control-character",
                "yaml-control-character",
                {"codepoint": code, "name": name},
            )
        )
    for match in _NONCHARACTER.finditer(text):
        line, column = lines.position(match.start())
        problems.append(
            YamlProblem(
                line,
                column,
                "bad-character",
                "yaml-noncharacter",
                {"codepoint": ord(match.group())},
            )
        )
    blanked = _NONCHARACTER.sub(" ", _CONTROL.sub(" ", text))
    return blanked, problems


# --------------------------------------------------------------------------------------------
# Scalars

_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})


def _casings(*words: str) -> frozenset[str]:
    return frozenset(f(w) for w in words for f in (str.lower, str.capitalize, str.upper))


_TRUE: Final = _casings("true", "yes", "on", "y")
_FALSE: Final = _casings("false", "no", "off", "n")

_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"([-+]?)\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DATETIME = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?"
)


class _ScalarError(ValueError):
    """A plain scalar looks like a number or date but cannot be one."""

    def __init__(self, kind: str, code: str, **params: Any) -> None:
        super().__init__(code)
        self.kind = kind
        self.code = code
        self.params = params


def _resolve_plain(text: str) -> Any:
    """The value of an untagged plain (unquoted) scalar: the only place types are decided."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts
            raise _ScalarError("invalid-number", "yaml-long-number", text=_short(text)) from None
    if _FLOAT.fullmatch(text):
        return float(text)
    inf = _INF.fullmatch(text)
    if inf:
        return -math.inf if inf.group(1) == "-" else math.inf
    if _NAN.fullmatch(text):
        return math.nan  # one shared object, so two `.nan` keys count as duplicates
    date = _DATE.fullmatch(text)
    if date:
        try:
            return dt.date(*(int(g) for g in date.groups()))
        except ValueError as err:
            raise _ScalarError(
                "invalid-date", "yaml-bad-date", text=_short(text), error=str(err)
            ) from None
    stamp = _DATETIME.fullmatch(text)
    if stamp:
        return _datetime(text, stamp)
    return text


def _datetime(text: str, m: re.Match[str]) -> dt.datetime:
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    fraction = m.group(7) or ""
    micro = int((fraction + "000000")[:6])
    tz: dt.tzinfo | None = None
    if m.group(8) == "Z":
        tz = dt.UTC
    elif m.group(8):
        offset = dt.timedelta(hours=int(m.group(10)), minutes=int(m.group(11) or 0))
        try:
            tz = dt.timezone(-offset if m.group(9) == "-" else offset)
        except ValueError as err:
            raise _ScalarError(
                "invalid-date", "yaml-bad-offset", text=_short(text), error=str(err)
            ) from None
    try:
        return dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError as err:
        raise _ScalarError(
            "invalid-date", "yaml-bad-datetime", text=_short(text), error=str(err)
        ) from None


def _short(text: str, limit: int = 40) -> str:
    """`text` for a message (its words quote it), shortened when long."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _show_tag(tag: str) -> str:
    """A resolved tag roughly as it was written."""
    if tag.startswith("tag:yaml.org,2002:"):
        return "!!" + tag[len("tag:yaml.org,2002:") :]
    if tag.startswith("!"):
        return tag
    return f"!<{tag}>"


# How PyYAML names the tokens it did not expect: the codes of their words.
_TOKEN_WORDS: Final = {
    "'<scalar>'": "token-scalar",
    "'<block mapping start>'": "token-mapping",
    "'<block sequence start>'": "token-list",
    "'<block end>'": "token-block-end",
    "'?'": "token-key",
    "'-'": "token-list-item",
    "'<anchor>'": "token-anchor",
    "'<alias>'": "token-alias",
    "'<tag>'": "token-tag",
}


def _found(problem: str) -> Msg:
    """What PyYAML's "expected ..., but found X" problem found, as a message."""
    found = problem.rpartition("but found ")[2]
    if found in _TOKEN_WORDS:
        return msg(_TOKEN_WORDS[found])
    if found:
        return msg("token-other", token=found)
    return msg("token-this")


# --------------------------------------------------------------------------------------------
# Events to values


try:
    from yaml._yaml import CParser as _CParser  # libyaml's parser, in PyYAML's wheels
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None  # type: ignore[assignment,misc]

_PURE_ONLY = re.compile(r"[?%\\\t\ufeff]|[|>][-+0-9]*#")
"""What `_scan_fast` leaves to the pure-Python parser: explicit keys (``?``: libyaml's events do
not tell them), and where the two parsers' rules differ: directives (``%``: libyaml takes a
comment straight after ``%YAML 1.1``, and some ``%TAG`` prefixes PyYAML cannot decode),
escapes, tabs, a byte order mark past the start (libyaml skips it), a block scalar's header
with a comment and no space before it (libyaml takes it)."""


class _EventLoader(yaml.SafeLoader):
    """The pure-Python parser, also noting where explicit ``?`` keys are (events don't say)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.explicit_keys: list[Mark] = []

    def fetch_key(self) -> None:
        mark = self.get_mark()
        super().fetch_key()
        self.explicit_keys.append(mark)


@dataclass
class _Frame:
    """An open mapping or sequence; ``path`` is None inside a refused complex key."""

    container: dict[Any, Any] | list[Any]
    path: tuple[Any, ...] | None
    start: _Position | None = None
    flow: bool = False
    has_key: bool = False
    key: Any = None
    key_ok: bool = False
    seen: dict[Any, tuple[int | None, str]] = field(default_factory=dict)


class _Stop(Exception):
    """Stop reading events: what follows must not be looked at."""


class _Builder:
    """Builds the value tree and line table from parser events, collecting problems."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.problems: list[YamlProblem] = []
        self.lines: dict[tuple[Any, ...], int] = {}
        self.stack: list[_Frame] = []
        self.documents = 0
        self.root: Any = None
        self.root_empty = False
        self.explicit_end = False

    def problem(self, mark: _Position | None, kind: str, code: str, **params: Any) -> None:
        line, column = _mark_position(mark)
        self.problems.append(YamlProblem(line, column, kind, code, params))

    def feed(self, event: Event) -> None:
        if isinstance(event, DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.problem(event.start_mark, "multiple-documents", "yaml-second-document")
                raise _Stop
        elif isinstance(event, DocumentEndEvent):
            self.explicit_end = bool(event.explicit)
        elif isinstance(event, CollectionEndEvent):
            self.stack.pop()
        elif isinstance(event, NodeEvent):
            self.node(event)

    def node(self, event: NodeEvent) -> None:
        mark = event.start_mark
        line = mark.line + 1 if mark is not None else None
        self.check_node(event)

        parent = self.stack[-1] if self.stack else None
        if parent is not None and isinstance(parent.container, dict) and not parent.has_key:
            self.key(parent, event)
            return

        is_collection = isinstance(event, MappingStartEvent | SequenceStartEvent)
        if is_collection:
            self.check_depth(mark)

        value: Any
        if isinstance(event, MappingStartEvent):
            value = {}
        elif isinstance(event, SequenceStartEvent):
            value = []
        elif isinstance(event, ScalarEvent):
            value = self.scalar(event)
            if isinstance(value, _Invalid):
                value = None
        else:  # an alias, already refused
            value = None

        path: tuple[Any, ...] | None
        if parent is None:
            path = ()
            self.root = value
            self.root_empty = (
                isinstance(event, ScalarEvent)
                and event.value == ""
                and event.style is None
                and event.tag is None
                and event.anchor is None
            )
        elif isinstance(parent.container, list):
            path = None if parent.path is None else (*parent.path, len(parent.container))
            parent.container.append(value)
        else:
            path = None
            if parent.key_ok:
                parent.container[parent.key] = value
                if parent.path is not None:
                    path = (*parent.path, parent.key)
            parent.has_key = False
        # A mapping value's path already has the line of its key.
        if (
            path is not None
            and line is not None
            and (parent is None or isinstance(parent.container, list))
        ):
            self.lines[path] = line

        if isinstance(value, dict | list) and is_collection:
            flow = bool(getattr(event, "flow_style", False))
            self.stack.append(_Frame(value, path, event.start_mark, flow))

    def key(self, parent: _Frame, event: NodeEvent) -> None:
        """`event` starts the key of the next entry of `parent`."""
        mark = event.start_mark
        parent.has_key = True
        parent.key_ok = False
        if isinstance(event, MappingStartEvent | SequenceStartEvent):
            self.problem(mark, "complex-key", "yaml-collection-key")
            self.check_depth(mark)
            empty: dict[Any, Any] | list[Any] = {} if isinstance(event, MappingStartEvent) else []
            flow = bool(getattr(event, "flow_style", False))
            self.stack.append(_Frame(empty, None, event.start_mark, flow))
            return
        if not isinstance(event, ScalarEvent):
            return  # an alias, already refused
        if event.style is None and event.tag is None and event.value == "<<":
            self.problem(mark, "merge-key", "yaml-merge-key")
        key = self.scalar(event)
        if isinstance(key, _Invalid):
            return
        line, column = _mark_position(mark)
        first = parent.seen.get(key)
        if first is not None:
            first_line, first_text = first
            where = msg("on-line", line=first_line) if first_line is not None else msg("earlier")
            if first_text == event.value:
                code, params = "yaml-key-twice", {"key": _short(event.value), "where": where}
            else:
                code = "yaml-key-same-as"
                params = {"key": _short(event.value), "first": _short(first_text), "where": where}
            self.problems.append(YamlProblem(line, column, "duplicate-key", code, params))
            return
        parent.seen[key] = (line, event.value)
        parent.key = key
        parent.key_ok = True
        if parent.path is not None and line is not None:
            self.lines[(*parent.path, key)] = line

    def check_depth(self, mark: _Position | None) -> None:
        """Stop before a collection opened at `mark` would pass the depth limit."""
        if len(self.stack) >= self.max_depth:
            self.problem(mark, "too-deep", "yaml-too-deep", depth=self.max_depth)
            raise _Stop

    def check_node(self, event: NodeEvent) -> None:
        """Refuse anchors, aliases and tags on any node."""
        if isinstance(event, AliasEvent):
            self.problem(event.start_mark, "alias", "yaml-alias", anchor=event.anchor)
            return
        if event.anchor is not None:
            self.problem(event.start_mark, "anchor", "yaml-anchor", anchor=event.anchor)
        tag = getattr(event, "tag", None)
        if tag is not None:
            self.problem(event.start_mark, "tag", "yaml-tag", tag=_show_tag(tag))

    def scalar(self, event: ScalarEvent) -> Any:
        """The value of a scalar event; an `_Invalid` after reporting why it has none."""
        if event.style is not None:  # quoted or block scalar: always text
            surrogate = _SURROGATE.search(event.value)
            if surrogate is not None:  # only an escape makes one: UTF-8 text cannot hold it
                self.problem(
                    event.start_mark,
                    "bad-character",
                    "yaml-surrogate",
                    codepoint=ord(surrogate.group()),
                )
                return _Invalid()
            return event.value
        try:
            return _resolve_plain(event.value)
        except _ScalarError as err:
            self.problem(event.start_mark, err.kind, err.code, **err.params)
            return _Invalid()


class _Invalid:
    """Stands in for a scalar that was refused (never returned to callers)."""


# --------------------------------------------------------------------------------------------
# Syntax errors

_CANNOT_START = re.compile(r"found character (.+) that cannot start any token")


def _syntax_problem(err: MarkedYAMLError, text: str, builder: _Builder) -> YamlProblem:
    """PyYAML's error, with its position and a friendlier reason where one is easy."""
    problem = err.problem or ""
    context = err.context or ""
    mark: _Position | None = err.problem_mark or err.context_mark
    kind = "syntax"
    params: dict[str, Any] = {}
    start = _CANNOT_START.search(problem)
    # Open collections written with a bracket (not the brace-less `[a: b]` single-pair mappings).
    open_flow = [
        frame
        for frame in builder.stack
        if frame.flow
        and isinstance(frame.start, Mark)
        and text[frame.start.index : frame.start.index + 1] in ("[", "{")
    ]
    if "mapping values are not allowed here" in problem:
        code = "yaml-mapping-value"
    elif start and start.group(1) == "'\\t'":
        code = "yaml-tab"
    elif start:
        code, params = "yaml-cannot-start", {"char": start.group(1)}
    elif "unexpected end of stream" in problem and "quoted scalar" in context:
        mark = err.context_mark or mark
        code = "yaml-unclosed-quote"
    elif "could not find expected ':'" in problem:
        mark = err.context_mark or mark
        code = "yaml-no-colon"
    elif "<stream end>" in problem and (open_flow or "flow" in context):
        if open_flow:
            mark = open_flow[-1].start
            opener = "{" if isinstance(open_flow[-1].container, dict) else "["
        else:
            mark = err.context_mark or mark
            opener = "{" if "mapping" in context else "["
        closer = "}" if opener == "{" else "]"
        code, params = "yaml-unclosed", {"opener": opener, "closer": closer}
    elif problem.startswith(("expected ',' or ']'", "expected ',' or '}'")):
        closer = "]" if "']'" in problem else "}"
        opener = "[" if closer == "]" else "{"
        found = _found(problem.replace("but got", "but found"))
        opened, _ = _mark_position(err.context_mark)
        here, _ = _mark_position(err.problem_mark)
        if opened is not None and here is not None and opened < here:
            hint = msg("yaml-hint-unclosed", opener=opener, line=opened, closer=closer)
        else:
            hint = msg("yaml-hint-comma", closer=closer)
        code, params = "yaml-expected-comma", {"closer": closer, "found": found, "hint": hint}
    elif problem.startswith(
        ("expected <block end>", "did not find expected key", "did not find expected '-'")
    ):
        if _starts_line(text, err.problem_mark):
            code = "yaml-indent"
        else:
            code, params = "yaml-unexpected", {"found": _found(problem)}
    elif "found unknown escape character" in problem:
        code, params = "yaml-unknown-escape", {"problem": problem}
    elif "undefined tag handle" in problem:
        kind, code = "tag", "yaml-tag-handle"
    elif problem.startswith("expected '<document start>'") and builder.explicit_end:
        kind, code = "multiple-documents", "yaml-after-end"
    elif problem.startswith("expected '<document start>'"):
        code, params = "yaml-after-content", {"found": _found(problem)}
    elif problem and context:
        code, params = "yaml-parser-context", {"problem": problem, "context": context}
    elif problem:
        code, params = "yaml-parser", {"problem": problem}
    elif context:
        code, params = "yaml-invalid-context", {"context": context}
    else:
        code = "yaml-invalid"
    line, column = _mark_position(mark)
    return YamlProblem(line, column, kind, code, params)


def _starts_line(text: str, mark: Mark | None) -> bool:
    """Whether only spaces come before `mark` on its line."""
    if mark is None:
        return False
    before = text[: mark.index]
    line_start = max(before.rfind(c) for c in "\r\n\u2028\u2029") + 1
    return before[line_start:].strip(" ") == ""


# --------------------------------------------------------------------------------------------
# Loading


class _BadEscape(Exception):
    """PyYAML's scanner met an escape it turns into no character; ``mark`` is after its letter."""

    def __init__(self, mark: Mark) -> None:
        super().__init__()
        self.mark = mark


def _next_event(loader: _EventLoader) -> bool:
    """Whether another event follows (scanning up to it).

    PyYAML's scanner turns ``\\xXX``, ``\\uXXXX`` and ``\\UXXXXXXXX`` into a character with
    ``chr()``, which raises ValueError or OverflowError past U+10FFFF instead of a YAML error;
    that becomes `_BadEscape`.
    """
    try:
        return bool(loader.check_event())
    except (ValueError, OverflowError):
        raise _BadEscape(loader.get_mark()) from None


_ESCAPE_DIGITS: Final = {"x": 2, "u": 4, "U": 8}


def _escape_problem(text: str, mark: Mark) -> YamlProblem:
    """The problem of an escape past the last Unicode character, placed on its backslash."""
    start = mark.index - 2
    letter = text[mark.index - 1 : mark.index]
    digits = text[mark.index : mark.index + _ESCAPE_DIGITS.get(letter, 0)]
    if start < 0 or text[start] != "\\" or not digits:  # pragma: no cover - PyYAML changed
        return YamlProblem(mark.line + 1, mark.column + 1, "bad-escape", "yaml-escape-no-char")
    return YamlProblem(
        mark.line + 1,
        mark.column - 1,
        "bad-escape",
        "yaml-escape-too-high",
        {"escape": f"\\{letter}{digits}", "codepoint": int(digits, 16)},
    )


def _scan_fast(text: str, max_depth: int) -> _Builder | None:
    """The builder of `text` as libyaml's parser reads it (a sixth of the time of the pure-Python
    one for an order), for a text in which `_PURE_ONLY` finds nothing and libyaml finds no
    problem: such a text loads the same either way. None for any other text, which `_scan`
    reads again, so every problem is found and placed as before."""
    if _CParser is None or _PURE_ONLY.search(text):
        return None
    builder = _Builder(max_depth)
    parser = _CParser(text)
    try:
        while (event := parser.get_event()) is not None:
            if isinstance(event, ScalarEvent) and event.style == "":
                event.style = None  # a plain scalar, as the pure-Python parser marks one
            builder.feed(event)
    except (_Stop, yaml.YAMLError, ValueError, OverflowError):
        return None
    return None if builder.problems else builder


def _scan(text: str, max_depth: int) -> tuple[_Builder, list[YamlProblem]]:
    """Run the event parser over `text`; the builder and any syntax and explicit-key problems."""
    builder = _Builder(max_depth)
    extra: list[YamlProblem] = []
    loader = _EventLoader(text)
    try:
        while _next_event(loader):
            builder.feed(loader.get_event())  # type: ignore[no-untyped-call]
    except _Stop:
        pass
    except _BadEscape as err:
        extra.append(_escape_problem(text, err.mark))
    except MarkedYAMLError as err:
        extra.append(_syntax_problem(err, text, builder))
    except yaml.YAMLError as err:  # a ReaderError: cannot happen after blanking, but be safe
        extra.append(
            YamlProblem(None, None, "syntax", "yaml-invalid-context", {"context": str(err)})
        )
    finally:
        loader.dispose()
    for mark in loader.explicit_keys:
        line, column = _mark_position(mark)
        extra.append(YamlProblem(line, column, "complex-key", "yaml-explicit-key"))
    return builder, extra


def load(
    raw: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> Loaded:
    """Load one order file strictly; raise `StrictYamlError` listing every problem found.

    The same bytes loaded again in this process (an order judged when it comes in and again
    when its turn is played) are not read again: the caller gets a copy of what they loaded,
    its own to change."""
    if len(raw) > _KEPT_BYTES:
        return _load(raw, max_bytes, max_depth)
    data, lines, problems = _kept(raw, max_bytes, max_depth)
    if problems:
        raise StrictYamlError(list(problems))
    return Loaded(clone(data), dict(lines))


_KEPT_BYTES = 16 * 1024
"""Files up to this size are kept once loaded (the last 128 of them): orders and notices."""


@functools.lru_cache(maxsize=128)
def _kept(
    raw: bytes, max_bytes: int, max_depth: int
) -> tuple[Any, dict[Path, int], tuple[YamlProblem, ...]]:
    """What ``raw`` loads to, or the problems it is refused for, kept for the same bytes (the
    caller copies what it hands out)."""
    try:
        loaded = _load(raw, max_bytes, max_depth)
    except StrictYamlError as error:
        return None, {}, tuple(error.problems)
    return loaded.data, loaded.lines, ()


def _load(raw: bytes, max_bytes: int, max_depth: int) -> Loaded:
    if len(raw) > max_bytes:
        raise StrictYamlError(
            [
                YamlProblem(
                    None,
                    None,
                    "too-large",
                    "yaml-too-large",
                    {"size": len(raw), "limit": max_bytes},
                )
            ]
        )
    decoded = _decode(raw)
    if isinstance(decoded, YamlProblem):
        raise StrictYamlError([decoded])
    text, problems = _character_problems(decoded)
    fast = None if problems else _scan_fast(text, max_depth)
    builder, extra = (fast, []) if fast is not None else _scan(text, max_depth)
    problems.extend(builder.problems)
    bad_lines = {p.line for p in problems if p.kind in {"control-character", "bad-character"}}
    for p in extra:
        # A syntax error on a line with a refused character is most likely caused by it.
        if not (p.kind == "syntax" and p.line in bad_lines):
            problems.append(p)
    if not problems and (builder.documents == 0 or builder.root_empty):
        problems.append(YamlProblem(None, None, "empty", "yaml-empty"))
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        raise StrictYamlError(problems)
    return Loaded(builder.root, dict(builder.lines))
