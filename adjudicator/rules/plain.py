"""A copy of plain data (what states, views, orders and events are made of), for the games and
the contract test.

``copy.deepcopy`` keeps a memo of every object it copies, so that shared and circular parts stay
shared; copying a game's state and views that way was most of the time of a bot game
(benchmarks/engine.py). ``clone`` copies plain data through ``marshal`` (written and read in C;
dicts, lists, tuples, strings, numbers, booleans and None come back as equal values of the same
types, keys in the same order); data that holds anything else is copied level by level, dicts and
lists afresh, strings, numbers, booleans and None kept, the rest left to ``copy.deepcopy``.
"""

from __future__ import annotations

import copy
import marshal
from typing import Any, TypeVar

T = TypeVar("T")

_ATOMIC = frozenset({str, int, float, bool, type(None)})


def clone(value: T) -> T:
    """A deep copy of ``value``, made for plain data."""
    data: Any = value
    try:
        copied: T = marshal.loads(marshal.dumps(data))
    except ValueError:  # not plain data all through (a Msg, a subclass of str, ...)
        result: T = _clone(value)
        return result
    return copied


def _clone(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _clone(item) for key, item in value.items()}
    if kind is list:
        return [_clone(item) for item in value]
    if kind in _ATOMIC:
        return value
    return copy.deepcopy(value)
