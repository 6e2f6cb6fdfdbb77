"""Knowing that nothing is due in a game without opening it: ``tick`` over many idle games.

After ``tick`` has done everything a game asked for (nothing due by the clock, nothing left to
send), it notes in the user's cache folder, never in the game directory, until when the game
sleeps: the first instant at which the clock could ask for something (a reminder, the deadline),
or never, and the game's language (what ``tick`` tells the game master in, when this game is
the first). The note is keyed on the journal as it was read (its size, time and inode, and the
adjudicator's version): any step that changes the game appends a journal line, which wakes it.
It is keyed on ``game.json`` the same way: the file a game master is likeliest to edit by hand
(to mend an address), which tick then opens at once and says is changed. The next ``tick``
skips a sleeping game after a ``stat`` of those two files and one small read, and opens no
state: a state file damaged by hand is found when the game is next opened (its next instant,
a message, any command). A missing, damaged or stale note only means the game is opened as
before.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.rules.lang import game_lang
from adjudicator.store import usercache
from adjudicator.store.gamedir import LOG, MARKER

NOTE_VERSION = 3
KEPT_NOTES = 2000
"""How many games' idle notes the cache folder keeps (those used longest ago go first): more
than the games ``tick`` runs over on one machine, since a game without one is opened by the
next ``tick``, as it was before notes. A note is some 200 bytes; making room reads the folder
(10–18 ms for 2,000 notes here)."""


def _note(root: Path) -> Path:
    return usercache.folder("idle") / f"{usercache.game_key(root)}.json"


def _key_now(root: Path) -> list[Any] | None:
    """What the note is keyed on: the journal and ``game.json`` as they are now."""
    try:
        seen = os.stat(root / LOG)
        meta = os.stat(root / "game.json")
    except OSError:
        return None
    return [
        NOTE_VERSION,
        __version__,
        *(seen.st_size, seen.st_mtime_ns, seen.st_ino),
        *(meta.st_size, meta.st_mtime_ns, meta.st_ino),
    ]


def _sleeping_in(root: Path, now: datetime) -> str | None:
    """The language of the game at ``root`` when it is known to have nothing due at ``now``
    (as its note keeps it), else None."""
    if (root / MARKER).exists():
        return None  # a step cut short: the next command finishes or discards it
    try:
        note = json.loads(usercache.read(_note(root)) or b"null")
        until, lang = note["until"], note["lang"]
        if note["journal"] != _key_now(root) or note["journal"] is None:
            return None
        if not isinstance(lang, str) or not (until is None or now < datetime.fromisoformat(until)):
            return None
        return lang
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # a note made by hand
        return None


def sleeping(roots: list[Path], now: datetime) -> dict[Path, str]:
    """The games among ``roots`` known to have nothing due at ``now``, each with its language:
    ``tick`` opens the others."""
    found = {root: _sleeping_in(root, now) for root in roots}
    return {root: lang for root, lang in found.items() if lang is not None}


def _clock_instants(meta: dict[str, Any], times: Any) -> list[datetime]:
    """The deadline and the reminders before it (none without a deadline)."""
    from adjudicator.rules import schedule

    if times.deadline is None:
        return []
    reminders = meta.get("reminders") or []
    return [times.deadline, *(schedule.reminder_at(times.deadline, r) for r in reminders)]


def _next_day(
    meta: dict[str, Any], status: dict[str, Any], times: Any, now: datetime
) -> list[datetime]:
    """Under ``absence: default``, while an absence is ahead: the next midnight in the game's
    time zone. Who is away is read from today there (E21), so the day an absence begins can
    complete the turn with no journal line to wake the game."""
    from adjudicator.engine import absences
    from adjudicator.rules import schedule

    if absences.mode(meta) != "default" or not status["away"]:
        return []
    zone = schedule.game_zone(meta)
    try:
        tomorrow = now.astimezone(zone).date() + timedelta(days=1)
    except OverflowError:
        return []  # the calendar's last day: there is no next one
    return [datetime.combine(tomorrow, datetime.min.time(), tzinfo=zone)]


def remember(root: Path) -> None:
    """After ``tick`` did all it could for the game: when nothing is due and nothing waits to
    go out, note until when it sleeps (otherwise forget any note)."""
    from adjudicator.mail.due import Due, due_now
    from adjudicator.store import clock

    journal = _key_now(root)  # before reading: a later change only wakes the game early
    note = _note(root)
    due, status, times, meta = due_now(root)
    queue = root / "mail" / "queue"
    waiting_mail = queue.is_dir() and any(queue.glob("*.eml"))
    if journal is None or due != Due() or waiting_mail:
        note.unlink(missing_ok=True)
        return
    until: datetime | None = None
    if status.get("phase") == "signup" and status["seats"]["until"]:  # the sign-up's end
        until = datetime.fromisoformat(status["seats"]["until"])
    elif status["waiting_for"] and not times.standing():
        now = clock.now()
        coming = [*_clock_instants(meta, times), *_next_day(meta, status, times, now)]
        until = min((t for t in coming if t > now), default=None)
    kept = {"journal": journal, "until": None if until is None else until.isoformat()}
    text = json.dumps({**kept, "lang": game_lang(meta)})  # what tick tells in, unopened
    # or no note: the game is opened next time, as before
    usercache.write(note, text.encode(), keep=KEPT_NOTES)
