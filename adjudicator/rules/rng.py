"""Seeded randomness that does not depend on the Python version.

Every random draw comes from a named stream: the game's seed and a label such as ``deal`` or
``stage 2 round 3 draw``. A stream's bytes are SHA-256 in counter mode::

    block(i) = SHA-256("adjudicator-rng/1\\n" + str(seed) + "\\n" + label + "\\n"
                       + i as 8 bytes big-endian)

read 8 bytes at a time as unsigned big-endian integers. ``below(n)`` rejects values at or above
the largest multiple of ``n`` under 2**64 and returns the remainder of the first one kept;
``shuffle`` is Fisher-Yates from the last position down, ``j = below(i + 1)``.
docs/randomness.md says the same, so anyone can re-derive every draw of a finished game.

A game's seed is a string of 32 or more hex digits (the setup's, as written, or
``secrets.token_hex(16)``), so ``str(seed)`` is that string; games made before seeds were hex
strings have a whole number, whose ``str`` is its decimal digits.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_DOMAIN = b"adjudicator-rng/1\n"
_sha256 = hashlib.sha256
_FOUR = struct.Struct(">4Q")  # a block read as four unsigned big-endian 8-byte integers
_COUNTS = [i.to_bytes(8, "big") for i in range(64)]  # the first blocks' counters, as bytes
_LIMITS = {n: (1 << 64) - ((1 << 64) % n) for n in range(1, 257)}  # below(n)'s, worked out once


class Stream:
    """One labelled stream of random numbers."""

    def __init__(self, seed: int | str, label: str) -> None:
        self._key = _DOMAIN + (str(seed) + "\n" + label + "\n").encode()
        self._counter = 0
        self._values: list[int] = []  # the latest block's values not read yet, the next one last

    def _u64(self) -> int:
        values = self._values
        return values.pop() if values else self._block()

    def _block(self) -> int:
        """Hash the next block: its first value, the other three kept for the next reads (a block
        of 32 bytes holds exactly four 8-byte values, so none is split between two blocks)."""
        counter = self._counter
        count = _COUNTS[counter] if counter < 64 else counter.to_bytes(8, "big")
        block = _sha256(self._key + count).digest()
        self._counter += 1
        four: tuple[int, ...] = _FOUR.unpack(block)
        self._values += (four[3], four[2], four[1])
        return four[0]

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        limit = _LIMITS.get(n)
        if limit is None:
            if n <= 0:
                raise ValueError("below() needs a positive bound")
            limit = (1 << 64) - ((1 << 64) % n)
        values = self._values
        while True:
            value = values.pop() if values else self._block()  # self._u64(), without the call
            if value < limit:
                return value % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items``."""
        result = list(items)
        below = self.below
        for i in range(len(result) - 1, 0, -1):
            j = below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` items drawn without replacement, in the order drawn."""
        pool = list(items)
        drawn = []
        for _ in range(k):
            drawn.append(pool.pop(self.below(len(pool))))
        return drawn


class Rng:
    """The game's seeded generator: hands out independent labelled streams."""

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def stream(self, label: str) -> Stream:
        return Stream(self.seed, label)
