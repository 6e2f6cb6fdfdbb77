"""Orders sealed from the game master too: ``sealing: commit-reveal`` (docs/commit-reveal.md).

Each turn has two phases. In the first, every player who owes an order sends a signed
**commitment**, a YAML file ``{id, player, turn, commit}`` whose ``commit`` is::

    SHA-256("adjudicator-order-commitment/1\\n" + the reveal's bytes as signed)

The **reveal** is the order file itself with one more key, ``salt:`` (32 or more hex digits, so
that nobody can try every order against the commitment); ``adjudicator commit`` adds the salt,
signs the order and writes the signed commitment. Once every owed commitment is in (or the
phase's deadline has passed), the reveal opens: each player who committed sends the order, which
must match their commitment. The game master sees no order before every commitment is fixed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Literal

from adjudicator.rules.contract import Problem

DOMAIN = b"adjudicator-order-commitment/1\n"
SALT_KEY = "salt"
SALT_BYTES = 32
SALT = re.compile(r"[0-9a-fA-F]{32,128}")
COMMIT = re.compile(r"[0-9a-f]{64}")
COMMIT_EXTENSION = ".commit"

Phase = Literal["orders", "commit", "reveal"]
"""What a turn asks for now: orders (no sealing), commitments, or the reveals."""


def commitment_of(reveal: bytes) -> str:
    """The ``commit`` value of the reveal whose bytes as signed are ``reveal``."""
    return hashlib.sha256(DOMAIN + reveal).hexdigest()


def is_commitment(data: Any) -> bool:
    """Whether a parsed file is a commitment (it has ``commit``), not an order."""
    return isinstance(data, dict) and "commit" in data


def salted(order: bytes) -> bytes:
    """``order`` with a fresh ``salt:`` line in place of any it had (a new commitment each time
    the order changes): what ``adjudicator commit`` signs as the reveal. The line goes at the
    end, so comments and layout stay; an order written as one flow mapping (``{id: ...}``) is
    written again in block style."""
    import secrets

    from adjudicator.rules.strictyaml import StrictYamlError, load

    salt = secrets.token_hex(SALT_BYTES)
    text = order.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    # split at the line ends only (str.splitlines would also break at U+2028 and the like,
    # changing what the player wrote)
    lines = [line for line in text.split(newline) if not re.match(rf"{SALT_KEY}\s*:", line)]
    while lines and lines[-1].strip() in ("", "..."):
        lines.pop()  # the salt goes inside the document
    appended = (newline.join([*lines, f"{SALT_KEY}: {salt}"]) + newline).encode("utf-8")
    try:
        before = load(order).data
    except StrictYamlError:
        return appended  # not an order yet: the submission will say why
    try:
        after = load(appended).data
    except StrictYamlError:
        after = None
    if isinstance(after, dict) and after.get(SALT_KEY) == salt:
        return appended
    import yaml

    data = {k: v for k, v in before.items() if k != SALT_KEY} if isinstance(before, dict) else {}
    return yaml.safe_dump({**data, SALT_KEY: salt}, sort_keys=False).encode("utf-8")


def commitment_file(data: dict[str, Any], reveal: bytes) -> bytes:
    """The commitment YAML for the order ``data`` (its envelope) whose reveal is ``reveal``."""
    return (
        f"id: {data['id']}\nplayer: {data['player']}\nturn: {data['turn']}\n"
        f"commit: {commitment_of(reveal)}\n"
    ).encode()


def commit_problems(data: dict[str, Any]) -> list[Problem]:
    """A commitment's ``commit`` must be 64 lower-case hex digits (a SHA-256)."""
    commit = data.get("commit")
    if isinstance(commit, str) and not COMMIT.fullmatch(commit):
        return [Problem("bad-commit", ("commit",))]
    return []


def salt_problems(data: dict[str, Any]) -> list[Problem]:
    """A reveal's ``salt`` must be there and be 32 to 128 hex digits."""
    salt = data.get(SALT_KEY)
    if salt is None:
        return [Problem("reveal-no-salt", ())]
    if not isinstance(salt, str) or not SALT.fullmatch(salt):
        return [Problem("reveal-bad-salt", (SALT_KEY,))]
    return []
