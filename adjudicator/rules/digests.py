"""What commits a game to its secrets: the seed commitment, the game's file key, keyed digests.

docs/archive.md gives these functions in words, so that anyone can recompute them::

    commitment = SHA-256("adjudicator-seed-commitment/1\\n" + seed + "\\n" + salt + "\\n")
    file key   = SHA-256("adjudicator-file-key/1\\n" + seed + "\\n" + salt + "\\n")
    digest     = HMAC-SHA-256(file key, the file's bytes)     a hidden file
                 SHA-256(the file's bytes)                     a public file

``seed`` and ``salt`` are hex strings (the salt: 64 hex digits drawn at ``new``), encoded as
ASCII. Every player sees the commitment from the first report on; the seed and salt stay secret
until the game is over, when every report reveals them. A digest a player can see (in the journal
of a public archive) of a file they may not see is keyed, so that it cannot be used to test
guesses (Sultan's bids are few enough to try them all against a plain SHA-256). A public file
(each turn's public view) has a plain SHA-256, so that players can check it while the game runs.
A game made before seeds were committed has no salt: all its digests are plain SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path
from typing import Any

SALT_BYTES = 32
COMMITMENT_DOMAIN = b"adjudicator-seed-commitment/1\n"
KEY_DOMAIN = b"adjudicator-file-key/1\n"
PUBLIC_FILE = re.compile(r"turns/[0-9]{4,}(\.superseded-[0-9]+)?/views/public\.json")
"""The files every player may see while the game runs: each turn's public view."""


def new_salt() -> str:
    import secrets  # only a new game draws a salt: the read commands do not load it

    return secrets.token_hex(SALT_BYTES)


def _encoded(domain: bytes, seed: int | str, salt: str) -> bytes:
    return domain + str(seed).encode("ascii") + b"\n" + salt.encode("ascii") + b"\n"


def commitment(seed: int | str, salt: str) -> str:
    """The seed commitment: what ``new`` publishes and the end of the game lets anyone check."""
    return hashlib.sha256(_encoded(COMMITMENT_DOMAIN, seed, salt)).hexdigest()


def file_key(seed: int | str, salt: str) -> bytes:
    """The key of the game's hidden digests (covered by the commitment: same seed and salt)."""
    return hashlib.sha256(_encoded(KEY_DOMAIN, seed, salt)).digest()


def is_public(rel: str) -> bool:
    """Whether the file at ``rel`` (relative to the game) is one every player may see."""
    return PUBLIC_FILE.fullmatch(rel) is not None


class Digester:
    """The digests of one game's files: keyed with the game's file key (None: a game made
    before seeds were committed, all plain SHA-256)."""

    def __init__(self, key: bytes | None) -> None:
        self.key = key

    @classmethod
    def of(cls, meta: dict[str, object]) -> Digester:
        """The digester of the game ``meta`` (``game.json``)."""
        salt = meta.get("salt")
        if not isinstance(salt, str):
            return cls(None)
        seed = meta["seed"]
        assert isinstance(seed, (int, str))
        return cls(file_key(seed, salt))

    def hidden(self, data: bytes) -> str:
        """The digest of bytes not every player may see (an order, a state, a mail)."""
        if self.key is None:
            return hashlib.sha256(data).hexdigest()
        return hmac.new(self.key, data, hashlib.sha256).hexdigest()

    def data(self, rel: str, data: bytes) -> str:
        """The digest of ``data``, the content of the file at ``rel``."""
        if is_public(rel):
            return hashlib.sha256(data).hexdigest()
        return self.hidden(data)

    def file(self, root: Path, rel: str) -> str:
        """The digest of the file at ``rel``, read in blocks (a mail may be megabytes)."""
        if is_public(rel) or self.key is None:
            digest: Any = hashlib.sha256()
        else:
            digest = hmac.new(self.key, digestmod=hashlib.sha256)
        with (root / rel).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
        return str(digest.hexdigest())
