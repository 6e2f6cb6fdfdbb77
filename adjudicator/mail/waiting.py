"""How long mail has waited in a game's queue: light to import (``status`` reads it), so no
mail library but the standard one's header parser, and that only when mail waits."""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

QUEUE = Path("mail") / "queue"
FAILED = Path("mail") / "failed"


def waiting(gamedir: Path) -> dict[str, Any] | None:
    """The mail queued in a game and not yet handed on: how many, and when the oldest was queued
    (its ``Date``); None when nothing waits."""
    pending = eml_files(gamedir / QUEUE)
    if not pending:
        return None
    first = pending[0]  # names sort in the order messages were put
    with first.open("rb") as handle:
        head = handle.read(64 * 1024)
    oldest = queued_at(head, first)
    return {"count": len(pending), "oldest": oldest.astimezone(UTC).isoformat(timespec="seconds")}


def refused(gamedir: Path) -> int:
    """How many messages the server refused for good wait in ``mail/failed/`` for the game
    master (``send --retry`` queues them again)."""
    return len(eml_files(gamedir / FAILED))


def queued_at(data: bytes, path: Path) -> datetime:
    """When the message was queued: its ``Date`` (written when it was queued; one without an
    offset is taken as UTC), else, when it has no Date that can be read, its file's time."""
    from email import policy
    from email.parser import BytesParser
    from email.utils import parsedate_to_datetime

    headers = BytesParser(policy=policy.compat32).parsebytes(data, headersonly=True)
    with suppress(TypeError, ValueError, IndexError, OverflowError):
        moment = parsedate_to_datetime(str(headers["Date"]))
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def eml_files(folder: Path) -> list[Path]:
    """The messages (``*.eml``, no hidden or temporary files) in ``folder``, by name."""
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.iterdir()
        if path.name.endswith(".eml") and not path.name.startswith(".") and path.is_file()
    )
