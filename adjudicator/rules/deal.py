"""The players' share of the deal: the seed a game plays with under ``shares: ask``.

docs/randomness.md gives the formula in words, so that anyone can recompute it::

    dealt seed = SHA-256("adjudicator-deal/1\\n" + seed + "\\n" + share_1 + "\\n" + ...
                         + share_n + "\\n")                    as 64 lowercase hex digits

``seed`` is the game master's committed seed as ``game.json`` holds it, and the shares are the
players' in seat order, each 32 to 128 hex digits kept as written (capitals stay capitals), all
encoded as ASCII. No share alone, nor the game master's seed alone, fixes the deal.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

DOMAIN = b"adjudicator-deal/1\n"
MIN_DIGITS = 32
MAX_DIGITS = 128
SHARE = re.compile(f"[0-9a-fA-F]{{{MIN_DIGITS},{MAX_DIGITS}}}")


def is_share(text: object) -> bool:
    """Whether ``text`` is a share: 32 to 128 hex digits (128 random bits or more)."""
    return isinstance(text, str) and SHARE.fullmatch(text) is not None


def dealt_seed(seed: int | str, shares: Sequence[str]) -> str:
    """The seed the game plays with: the game master's ``seed`` and the ``shares`` in seat
    order, hashed."""
    data = DOMAIN + str(seed).encode("ascii") + b"\n"
    data += b"".join(share.encode("ascii") + b"\n" for share in shares)
    return hashlib.sha256(data).hexdigest()
