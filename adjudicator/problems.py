"""Problems in a user's file, worded for a person and placed on a line.

Schema errors come from pydantic; this module turns each into a sentence that names the key and
says what was expected and what was found, and finds the line through the strict YAML loader's
line map.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from adjudicator.contract import Path, Problem
from adjudicator.strictyaml import Loaded


def describe_value(value: Any) -> str:
    """How a value the user wrote reads back to them."""
    if value is None:
        return "nothing (the value is empty)"
    if isinstance(value, bool):
        return f"the true/false value {str(value).lower()}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{value!r}"


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
    "int_type": "a whole number such as 12",
    "int_parsing": "a whole number such as 12",
    "int_from_float": "a whole number such as 12",
    "string_type": "a name or text",
    "bool_type": "true or false",
    "dict_type": "a mapping of keys",
    "model_type": "a mapping of keys",
    "model_attributes_type": "a mapping of keys",
    "list_type": "a list",
}


# pydantic names the member of a union (``str | int``) that failed as a last step of the path
_UNION_MEMBERS = {"str", "int", "bool", "float", "none"}


def schema_problems(model: type[BaseModel], data: Any) -> list[Problem]:
    """Every schema problem of ``data`` against ``model``, each worded and placed.

    A value that fits no member of a union gets one problem naming every member expected.
    """
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
            expected = " or ".join(dict.fromkeys(_EXPECTED[e["type"]] for e in errs))
            found = describe_value(errs[0].get("input"))
            problems.append(
                Problem("wrong-type", f"{key_name(loc)!r} must be {expected}, not {found}", loc)
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
            known = ", ".join(model.model_fields)
            message = f"unknown option {problem.path[0]!r}; {title}'s options are {known}"
            problems.append(Problem("unknown-option", message, problem.path))
        else:
            code = "bad-option" if problem.code == "not-allowed" else problem.code
            problems.append(Problem(code, f"option {problem.message}", problem.path))
    bad = {problem.path[0] for problem in problems}
    good = {k: v for k, v in given.items() if k not in bad}
    return model.model_validate(good, strict=True).model_dump(), problems


def _worded(err: Any, data: Any) -> Problem:
    loc: Path = tuple(err["loc"])
    kind: str = err["type"]
    name = key_name(loc)
    value = err.get("input")
    if kind == "extra_forbidden":
        return Problem("unknown-key", f"unknown key {name!r}", loc)
    if kind == "missing":
        return Problem("missing-key", f"the key {name!r} is missing", loc[:-1])
    if kind in _EXPECTED:
        if not loc:
            return Problem(
                "wrong-type", "the file must be a mapping of keys, such as 'id: ...'", ()
            )
        expected = _EXPECTED[kind]
        found = describe_value(value)
        return Problem("wrong-type", f"{name!r} must be {expected}, not {found}", loc)
    if kind == "literal_error" and loc[-1:] == ("[key]",):
        allowed = err.get("ctx", {}).get("expected", "")
        where = key_name(loc[:-2])
        return Problem(
            "not-allowed", f"{where!r} has no key {loc[-2]!r}; its keys: {allowed}", loc[:-1]
        )
    if kind == "literal_error":
        allowed = err.get("ctx", {}).get("expected", "")
        found = describe_value(value)
        return Problem("not-allowed", f"{name!r} must be one of {allowed}, not {found}", loc)
    if kind in {"greater_than_equal", "greater_than", "less_than_equal", "less_than"}:
        return Problem("out-of-range", f"{name!r}: {err['msg'].lower()}, not {value}", loc)
    return Problem("invalid", f"{name!r}: {err['msg']}", loc)


def line_of(reason: str) -> int:
    """The line a placed reason (``line N: ...``) names; 0 when it names none."""
    head, sep, _ = reason.partition(": ")
    number = head.removeprefix("line ")
    return int(number) if sep and head.startswith("line ") and number.isdigit() else 0


def located(problem: Problem, loaded: Loaded | None) -> str:
    """``line N: message`` where the problem's path has a line in the file."""
    line = loaded.line_of(problem.path) if loaded is not None else None
    return f"line {line}: {problem.message}" if line else problem.message


def located_all(problems: Iterable[Problem], loaded: Loaded | None) -> list[str]:
    ordered: Sequence[Problem] = sorted(
        problems, key=lambda p: (loaded.line_of(p.path) or 0) if loaded else 0
    )
    return [located(p, loaded) for p in ordered]
