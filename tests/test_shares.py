"""The players' share of the deal (docs/randomness.md): the seed a game plays with under
``shares: ask`` is hashed from the game master's committed seed and every player's share."""

from __future__ import annotations

import hashlib

import pytest

from adjudicator.rules import deal

SEED = "3f9a2c7e5b1d4086a9e2f71c0b8d5e34"
SHARES = ["0123456789abcdef0123456789abcdef", "FEDCBA9876543210FEDCBA9876543210ff"]


def test_the_seed_played_is_the_hash_of_the_seed_and_the_shares_in_seat_order() -> None:
    by_hand = hashlib.sha256(
        b"adjudicator-deal/1\n"
        + SEED.encode()
        + b"\n"
        + SHARES[0].encode()
        + b"\n"
        + SHARES[1].encode()
        + b"\n"
    ).hexdigest()
    assert deal.dealt_seed(SEED, SHARES) == by_hand
    assert len(by_hand) == 64 and by_hand == by_hand.lower()
    assert deal.dealt_seed(SEED, SHARES[::-1]) != by_hand, "seat order counts"
    assert deal.dealt_seed(SEED, [SHARES[0], SHARES[1].lower()]) != by_hand, "kept as written"


@pytest.mark.parametrize(
    ("share", "ok"),
    [
        ("0" * 32, True),
        ("aB" * 64, True),
        ("0" * 31, False),
        ("0" * 129, False),
        ("g" * 32, False),
        (" " + "0" * 32, False),
        ("0" * 32 + "\n", False),
    ],
)
def test_a_share_is_32_to_128_hex_digits(share: str, ok: bool) -> None:
    assert deal.is_share(share) is ok
