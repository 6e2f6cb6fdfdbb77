"""Problems in a user's file, as codes with parameters, placed on a line.

Schema errors come from pydantic; this module turns each into a :class:`Problem` that names the
key and says what was expected and what was found (the words come from the presentation layer),
and finds the line through the strict YAML loader's line map.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from adjudicator.rules.contract import Msg, Path, Problem, Reason, msg
from adjudicator.rules.strictyaml import Loaded

if TYPE_CHECKING:  # pydantic loads when a schema is first asked, not when this module is
    from pydantic import BaseModel


def describe_value(value: Any) -> Msg:
    """How a value the user wrote reads back to them."""
    if value is None:
        return msg("value-empty")
    if isinstance(value, bool):
        return msg("value-bool", value=str(value).lower())
    if isinstance(value, int | float):
        return msg("value-number", value=value)
    if isinstance(value, str):
        return msg("value-text", value=value)
    if isinstance(value, datetime.date):
        return msg("value-date", value=value.isoformat())
    if isinstance(value, dict):
        return msg("value-mapping")
    if isinstance(value, list):
        return msg("value-list")
    return msg("value-other", value=repr(value))


def key_name(path: Path) -> str:
    """``bid.card`` / ``bids[1].cushion``: a path as a person reads it."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "the file"


_EXPECTED = {
    "int_type": "expect-whole-number",
    "int_parsing": "expect-whole-number",
    "int_from_float": "expect-whole-number",
    "string_type": "expect-text",
    "bool_type": "expect-bool",
    "dict_type": "expect-mapping",
    "model_type": "expect-mapping",
    "model_attributes_type": "expect-mapping",
    "list_type": "expect-list",
}
"""What a pydantic type error expected, as the code of its words."""


# pydantic names the member of a union (``str | int``) that failed as a last step of the path
_UNION_MEMBERS = {"str", "int", "bool", "float", "none"}


def schema_problems(model: type[BaseModel], data: Any) -> list[Problem]:
    """Every schema problem of ``data`` against ``model``, each worded and placed.

    A value that fits no member of a union gets one problem naming every member expected.
    """
    from pydantic import ValidationError

    try:
        model.model_validate(data, strict=True)
    except ValidationError as error:
        problems: list[Problem] = []
        unions: dict[Path, list[Any]] = {}
        for err in error.errors(include_url=False):
            loc = tuple(err["loc"])
            if loc and loc[-1] in _UNION_MEMBERS and err["type"] in _EXPECTED:
                unions.setdefault(loc[:-1], []).append(err)
            else:
                problems.append(_worded(err, data))
        for loc, errs in unions.items():
            expected = [msg(code) for code in dict.fromkeys(_EXPECTED[e["type"]] for e in errs)]
            found = describe_value(errs[0].get("input"))
            problems.append(
                Problem("wrong-type", loc, key=key_name(loc), expected=expected, found=found)
            )
        return problems
    return []


def option_problems(
    model: type[BaseModel], given: Mapping[str, Any], title: str
) -> tuple[dict[str, Any], list[Problem]]:
    """A game's effective options (defaults filled in, bad values left at their default) and
    every problem with those ``given``, checked against the game's options ``model``."""
    problems = []
    for problem in schema_problems(model, dict(given)):
        if problem.code == "unknown-key":
            known = list(model.model_fields)
            problems.append(
                Problem(
                    "unknown-option", problem.path, option=problem.path[0], title=title, known=known
                )
            )
        else:
            code = "bad-option" if problem.code == "not-allowed" else problem.code
            words = msg("bad-option", problem=problem.msg)
            problems.append(Problem(code, problem.path, words=words))
    bad = {problem.path[0] for problem in problems}
    good = {k: v for k, v in given.items() if k not in bad}
    return model.model_validate(good, strict=True).model_dump(), problems


def _worded(err: Any, data: Any) -> Problem:
    loc: Path = tuple(err["loc"])
    kind: str = err["type"]
    name = key_name(loc)
    value = err.get("input")
    if kind == "extra_forbidden":
        return Problem("unknown-key", loc, key=name)
    if kind == "missing":
        return Problem("missing-key", loc[:-1], key=name)
    if kind in _EXPECTED:
        if not loc:
            return Problem("not-a-mapping")
        expected = [msg(_EXPECTED[kind])]
        return Problem("wrong-type", loc, key=name, expected=expected, found=describe_value(value))
    allowed = _alternatives(err.get("ctx", {}).get("expected", ""))
    if kind == "literal_error" and loc[-1:] == ("[key]",):
        return Problem("no-such-key", loc[:-1], where=key_name(loc[:-2]), key=loc[-2], keys=allowed)
    if kind == "literal_error":
        return Problem("not-allowed", loc, key=name, allowed=allowed, found=describe_value(value))
    if kind in {"greater_than_equal", "greater_than", "less_than_equal", "less_than"}:
        bound = err.get("ctx", {}).get(_BOUNDS[kind])
        return Problem(
            f"out-of-range-{kind.replace('_', '-')}", loc, key=name, bound=bound, value=value
        )
    return Problem("invalid", loc, key=name, detail=err["msg"])


def _alternatives(expected: str) -> Msg:
    """pydantic's ``'a', 'b' or 'c'`` as a list the reader's language joins (``alternatives``)."""
    return msg("alternatives", items=_QUOTED.findall(expected))


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\d+")
"""One value in pydantic's list of the values a literal allows: quoted, or a number."""

_BOUNDS = {
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
}


def located(problem: Problem, loaded: Loaded | None) -> Reason:
    """``problem`` with the line its path has in the file, when it has one."""
    line = loaded.line_of(problem.path) if loaded is not None else None
    return Reason(problem.msg, line or 0)


def located_all(problems: Iterable[Problem], loaded: Loaded | None) -> list[Reason]:
    """Every problem placed, in the order of their lines."""
    return sorted((located(p, loaded) for p in problems), key=lambda r: r.line)
