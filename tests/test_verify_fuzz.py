"""A crafted archive ends in exit 3, never exit 1: thousands of archives of one small game,
each mutated once (a journal line's field, a file, a top-level key, a line dropped, doubled or
moved) and its journal chained again as a forger would, are each refused with a reason or
verified; `verify` never ends in a traceback."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from adjudicator import demo
from tests.helpers import run

RUNS = 1000
"""Mutated archives per kind of archive (full and public)."""

HOSTILE: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    7,
    2**64,
    -(2**64),
    1.5,
    1e308,
    float("inf"),
    float("-inf"),
    float("nan"),
    "",
    "x",
    "\x1b[2K\rverified",
    "../../outside",
    "turns/0001/state.json",
    "0" * 64,
    "\u2028",
    [],
    {},
    [1, "a"],
    {"turn": 1},
    {"type": "created"},
]


def deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def shown(value: Any) -> str:
    """A short label for a value (a deep list has no repr)."""
    if isinstance(value, list) and value and isinstance(value[0], list):
        return "a deep list"
    return repr(value)[:40]


def rechain(lines: list[str], start: int) -> list[str]:
    """Each line from ``start`` on chained again to the one before it."""
    result = list(lines[:start])
    for text in lines[start:]:
        try:
            entry = json.loads(text)
        except ValueError:
            result.append(text)
            continue
        if isinstance(entry, dict) and result:
            entry["prev"] = hashlib.sha256(result[-1].encode() + b"\n").hexdigest()
            text = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        result.append(text)
    return result


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: each key of a mapping and each index of a list."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths_in(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths_in(inner, (*prefix, index))
    return found


def put(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


def mutate(data: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """One change to a copy of the archive, and what it was."""
    forged = copy.deepcopy(data)
    lines: list[str] = forged["journal"]
    kind = rng.choice(["line", "line", "line", "file", "top", "drop", "double", "move", "key"])
    hostile = rng.choice([*HOSTILE, deep(rng.choice([50, 900]))])
    if kind in ("line", "key"):
        number = rng.randrange(len(lines))
        entry = json.loads(lines[number])
        places = [p for p in paths_in(entry) if p != ("prev",)]
        if kind == "key" or not places:
            entry[rng.choice(["turn", "type", "files", "at", "extra"])] = hostile
            said = f"line {number + 1}: a key set to {shown(hostile)}"
        else:
            place = rng.choice(places)
            put(entry, place, hostile)
            said = f"line {number + 1}: {place} set to {shown(hostile)}"
        lines[number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        forged["journal"] = rechain(lines, number + 1 if number else 0)
        if number == 0:
            first = json.loads(forged["journal"][0])
            first["prev"] = "0" * 64
            forged["journal"][0] = json.dumps(first, sort_keys=True, ensure_ascii=False)
            forged["journal"] = rechain(forged["journal"], 1)
        return forged, said
    if kind == "file":
        item = rng.choice(forged["files"])
        field = rng.choice(["path", "text", "base64", "extra"])
        item[field] = hostile
        return forged, f"file {item.get('path')!r:.40}: {field} set to {shown(hostile)}"
    if kind == "top":
        key = rng.choice([*forged, "extra"])
        forged[key] = hostile
        return forged, f"top-level {key} set to {shown(hostile)}"
    number = rng.randrange(1, len(lines))
    if kind == "drop":
        del lines[number]
    elif kind == "double":
        lines.insert(number, lines[number])
    else:
        lines.insert(rng.randrange(1, len(lines)), lines.pop(number))
    forged["journal"] = rechain(lines, 1)
    return forged, f"line {number + 1} {kind}"


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """A whole one-round game of At the Sultan's Court, archived full and public."""
    tmp = tmp_path_factory.mktemp("fuzz")
    options = {"max_rounds": 1}
    gamedir = demo.run(
        "sultans_court", 4, 3, tmp / "d", lambda _l: None, options=options, site=False
    )
    found = {}
    for kind, flags in (("full", []), ("public", ["--public"])):
        out = tmp / f"{kind}.json"
        result = run("archive", gamedir, *flags, "-o", out)
        assert result.exit_code == 0, result.output
        found[kind] = json.loads(out.read_text(encoding="utf-8"))
        assert run("verify", out).exit_code == 0
    return found


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["full", "public"])
def test_no_crafted_archive_ends_in_a_traceback(
    tmp_path: Path, archives: dict[str, dict[str, Any]], kind: str
) -> None:
    rng = random.Random(f"fuzz-{kind}")
    path = tmp_path / "forged.json"
    exits: dict[int, int] = {}
    for _ in range(RUNS):
        forged, said = mutate(archives[kind], rng)
        path.write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")
        try:
            result = run("verify", path)
        except Exception as error:  # the traceback is the finding: say which mutation made it
            raise AssertionError(f"{said}: {type(error).__name__}: {error}") from error
        assert result.exit_code in (0, 3), f"{said}: exit {result.exit_code}: {result.output}"
        if result.exit_code == 3:
            assert result.output.startswith("Error: "), f"{said}: {result.output}"
        exits[result.exit_code] = exits.get(result.exit_code, 0) + 1
    assert exits.get(3, 0) > RUNS // 2, exits  # most changes are caught, not waved through
