"""The random streams give the same numbers as the stream docs/randomness.md defines, read the
plain way (a block at a time, 8 bytes at a time), after they were made faster for the engine
benchmark: every game's draws, and so every game record, depend on them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from adjudicator.rules.rng import Rng


def reference(seed: int | str, label: str, count: int) -> list[int]:
    """The first ``count`` 8-byte values of a stream, straight from its definition."""
    key = b"adjudicator-rng/1\n" + str(seed).encode() + b"\n" + label.encode() + b"\n"
    data = b"".join(
        hashlib.sha256(key + i.to_bytes(8, "big")).digest() for i in range(count // 4 + 1)
    )
    return [int.from_bytes(data[8 * i : 8 * i + 8], "big") for i in range(count)]


def test_the_values_are_those_of_the_definition() -> None:
    for seed in (0, 7, "0" * 31 + "1", "ab" * 16):
        for label in ("deal alice", "bot bob turn 3", "stage 2 round 5 draw", ""):
            stream = Rng(seed).stream(label)
            assert [stream._u64() for _ in range(23)] == reference(seed, label, 23)
    long = Rng("5eed" * 8).stream("past the 64th block")
    assert [long._u64() for _ in range(300)] == reference("5eed" * 8, "past the 64th block", 300)


def test_below_choice_shuffle_and_sample_follow_the_values() -> None:
    for n in (1, 2, 3, 6, 100, 255, 256, 257, 1000, 2**40 + 3, 2**63 + 1):
        stream = Rng("c0ffee" * 6).stream(f"below {n}")
        values = iter(reference("c0ffee" * 6, f"below {n}", 200))
        for _ in range(40):
            limit = (1 << 64) - ((1 << 64) % n)
            expected = next(v for v in values if v < limit) % n
            assert stream.below(n) == expected
    stream = Rng(5).stream("mixed")
    values = iter(reference(5, "mixed", 100))

    def below(n: int) -> int:
        limit = (1 << 64) - ((1 << 64) % n)
        return next(v for v in values if v < limit) % n

    items = list(range(15))
    assert stream.shuffle(items) == _shuffled(items, below)
    assert stream.choice("abcde") == "abcde"[below(5)]
    pool = list(range(50))
    drawn = [pool.pop(below(len(pool))) for _ in range(4)]
    assert stream.sample(range(50), 4) == drawn


def _shuffled(items: list[int], below: Callable[[int], int]) -> list[int]:
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = below(i + 1)
        result[i], result[j] = result[j], result[i]
    return result
