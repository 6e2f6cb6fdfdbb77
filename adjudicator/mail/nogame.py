"""What belongs to no single game: a message that names none, and the notice about it.

A folder of games is served by one ``ingest`` or ``tick``; mail that names no game among them is
no game's business, so nothing of it goes into a game's journal or mail folders. It lives in the
user's data folder (``~/.local/share/adjudicator/`` on Linux), laid out as a game's own::

    setaside/<sha256[:16]>.eml          the message, kept
    mail/queue/000001-setaside-gm.eml   the notice to the game master, queued (see queue.Outbox)
    mail/sent/…, outbox/…               as a game's: every ``send`` and ``tick`` delivers them
    mail/processed/<sha256 of its key>  the message was handled: a second copy is a duplicate

The notice is queued before the message is marked handled, so a crash in between can tell the
game master twice, never not at all.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import platformdirs

from adjudicator.store.gamedir import atomic_write

LABEL = "(no game)"
"""How ``send`` names this folder in its lines, where a game's id would stand."""


def root() -> Path:
    """The user's data folder, which holds what belongs to no game."""
    return Path(platformdirs.user_data_dir("adjudicator"))


def setaside_folder() -> Path:
    return root() / "setaside"


def _marker(key: str) -> Path:
    return root() / "mail" / "processed" / hashlib.sha256(key.encode("utf-8")).hexdigest()


def seen(key: str) -> bool:
    """Whether the message ``key`` (its Message-ID) was handled as naming no game before."""
    return _marker(key).exists()


def remember(key: str) -> None:
    """Mark the message ``key`` handled (after its notice is queued)."""
    atomic_write(_marker(key), b"")
