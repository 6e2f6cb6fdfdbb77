"""What the plain checks against the schemas share (``order_fits`` and ``player_fits`` in the
game contract, a game's options, the setup file): each says True only where the strict schema
would take the value as it is, typed exactly as it types it (``type(value) is int``, so that
``True`` is no number)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from typing import Any

Fits = Callable[[Any], bool]


def envelope_fits(order: Any, keys: Set[str]) -> bool:
    """``order`` is a mapping of no key but ``keys``, whose ``id`` and ``player`` are text and
    whose ``turn`` is a whole number from 1 (not True, not 1.0)."""
    if type(order) is not dict or not order.keys() <= keys:
        return False
    turn = order.get("turn")
    return (
        type(order.get("id")) is str
        and type(order.get("player")) is str
        and type(turn) is int
        and turn >= 1
    )


def text_or_none(value: Any) -> bool:
    return value is None or type(value) is str


def one_of(*words: str) -> Fits:
    """A check that takes one of ``words`` (a ``Literal`` of them)."""
    return lambda value: type(value) is str and value in words


def exactly(kind: type) -> Fits:
    return lambda value: type(value) is kind


def fitting_options(
    given: Mapping[str, Any], defaults: Mapping[str, Any], fits: Mapping[str, Fits]
) -> dict[str, Any] | None:
    """The effective options, ``defaults`` with those ``given``, when each given has a check
    in ``fits`` that takes it; None when one has none or is not taken (then the schema says
    what is wrong)."""
    if all(key in fits and fits[key](value) for key, value in given.items()):
        return {**defaults, **given}
    return None
