"""What a game's plain checks against its schemas share (``order_fits`` in the game contract):
an order file's envelope, typed exactly as the strict schemas type it."""

from __future__ import annotations

from collections.abc import Set
from typing import Any


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
