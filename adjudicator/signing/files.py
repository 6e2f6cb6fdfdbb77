"""A player's file signed (``sign``) or sealed with a commitment (``commit``), on the player's
own machine: read with the order files' cap, written atomically beside it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from adjudicator.rules import sealing
from adjudicator.rules.contract import Msg
from adjudicator.rules.limits import MAX_ORDER_BYTES
from adjudicator.rules.strictyaml import StrictYamlError, load
from adjudicator.signing import sshsig
from adjudicator.store.gamedir import atomic_write
from adjudicator.store.readfile import FileRefused, read_regular

Why = Literal["unreadable", "not-yaml", "no-envelope", "not-plain"]

ENVELOPE = {"id": str, "player": str, "turn": int}
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""How a setup file writes ids and player names."""


class NotSignable(Exception):
    """A file that cannot be signed or sealed as it is: ``why`` says what is wrong, ``reason``
    the reader's problem or the YAML's (for ``unreadable`` and ``not-yaml``)."""

    def __init__(self, why: Why, reason: Msg | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.reason = reason


def signature_path(path: Path) -> Path:
    return path.with_name(path.name + ".sig")


def read_signable(path: Path) -> bytes:
    """The file's bytes (at most an order file's cap)."""
    try:
        return read_regular(path, MAX_ORDER_BYTES)
    except FileRefused as error:
        raise NotSignable("unreadable", error.why) from None


def sign_file(path: Path, data: bytes, private: Any) -> Path:
    """Write ``path``'s signature beside it (``ORDERS.sig``, as ``ssh-keygen -Y sign`` names it)."""
    target = signature_path(path)
    atomic_write(target, sshsig.sign(data, private))
    return target


def sealable(path: Path) -> tuple[bytes, dict[str, Any]]:
    """The order file's bytes and its envelope (``id``, ``player``, ``turn`` as a form gives
    them), checked before the key is asked for."""
    data = read_signable(path)
    try:
        envelope = load(data, max_bytes=MAX_ORDER_BYTES).data
    except StrictYamlError as error:
        raise NotSignable("not-yaml", error.problems[0].reason.msg) from None
    if not isinstance(envelope, dict) or any(
        type(envelope.get(key)) is not kind for key, kind in ENVELOPE.items()
    ):
        raise NotSignable("no-envelope")
    if not (PLAIN.fullmatch(envelope["id"]) and PLAIN.fullmatch(envelope["player"])):
        raise NotSignable("not-plain")
    return data, envelope


def commit_file(path: Path, data: bytes, envelope: dict[str, Any], private: Any) -> Path:
    """Seal the order at ``path`` (``sealing: commit-reveal``): a fresh salt added to it, signed
    (the reveal, ``ORDERS`` and ``ORDERS.sig``), and the signed commitment to it written as
    ``ORDERS.commit``, whose path is returned."""
    reveal = sealing.salted(data)
    atomic_write(path, reveal)
    atomic_write(signature_path(path), sshsig.sign(reveal, private))
    promise = sealing.commitment_file(envelope, reveal)
    target = path.with_name(path.name + sealing.COMMIT_EXTENSION)
    atomic_write(target, promise + sshsig.sign(promise, private))
    return target
