"""A copy of plain data (what states, views, orders and events are made of), for the games.

``copy.deepcopy`` keeps a memo of every object it copies, so that shared and circular parts stay
shared; plain JSON data has neither, and copying a game's state and views was most of the time
of a bot game (benchmarks/engine.py). ``clone`` copies dicts and lists afresh, keeps strings,
numbers, booleans and None as they are, and leaves anything else to ``copy.deepcopy``.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

T = TypeVar("T")

_ATOMIC = frozenset({str, int, float, bool, type(None)})


def clone(value: T) -> T:
    """A deep copy of ``value``, made for plain data."""
    kind = type(value)
    if kind is dict:
        return {key: clone(item) for key, item in value.items()}  # type: ignore[attr-defined,return-value]
    if kind is list:
        return [clone(item) for item in value]  # type: ignore[attr-defined,return-value]
    if kind in _ATOMIC:
        return value
    result: Any = copy.deepcopy(value)
    return result  # type: ignore[no-any-return]
