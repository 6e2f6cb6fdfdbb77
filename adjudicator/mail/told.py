"""What the game master was told, so that each problem is told once.

A problem (mail stuck in a game's queue, a server failing, a recipient refused for good, a game
folder that cannot be read) is keyed (``stuck <game folder>``, ``server``, ...) and told with its
facts; it is told again only when those facts change. The memory is ``told.json`` in the user's
data folder beside what belongs to no game (:mod:`adjudicator.mail.nogame`), never in a game
directory. A lost or damaged file only means a problem is told once more.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from filelock import FileLock

from adjudicator.mail import nogame

State = dict[str, dict[str, Any]]
"""Each problem's key: ``since`` (when it began), ``told`` (the facts told, once told) and
``seen`` (during this run)."""


@contextmanager
def memory(name: str = "told") -> Iterator[State]:
    """What was told (or, by ``name``, another memory of the same shape: ``deferred``, the
    messages a server refused for now, :mod:`adjudicator.mail.queue`), held (locked) for one
    run and written back on leaving."""
    path = nogame.root() / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path.with_name(f".{name}.lock")), timeout=30):
        try:
            read = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            read = {}
        state = (
            {k: v for k, v in read.items() if isinstance(v, dict)} if isinstance(read, dict) else {}
        )
        yield state
        for entry in state.values():
            entry.pop("seen", None)
        tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def observe(
    state: State,
    key: str,
    facts: dict[str, Any],
    now: datetime,
    since: datetime | None = None,
    after: timedelta = timedelta(0),
) -> bool:
    """Note that the problem ``key`` is there now; whether it is to be told now: it has lasted
    ``after`` (from ``since``, or from when it was first noted) and these ``facts`` were not
    told before."""
    entry = state.get(key)
    if not isinstance(entry, dict) or "since" not in entry:
        entry = state[key] = {"since": (since or now).isoformat()}
    elif since is not None:
        entry["since"] = since.isoformat()
    entry["seen"] = True
    try:
        began = datetime.fromisoformat(entry["since"])
    except (TypeError, ValueError):
        began, entry["since"] = now, now.isoformat()
    if now - began < after or entry.get("told") == facts:
        return False
    entry["told"] = facts
    return True


def since(state: State, key: str) -> datetime | None:
    """When the problem ``key`` began, as noted."""
    try:
        return datetime.fromisoformat(state[key]["since"])
    except (KeyError, TypeError, ValueError):
        return None


def gone(state: State, key: str) -> bool:
    """Forget the problem ``key`` unless it was noted during this run; whether it had been
    told (and so is resolved now)."""
    entry = state.get(key)
    if isinstance(entry, dict) and entry.get("seen"):
        return False
    state.pop(key, None)
    return isinstance(entry, dict) and "told" in entry
