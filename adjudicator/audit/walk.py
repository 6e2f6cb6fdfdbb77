"""An archive's journal read line by line, as ``verify`` follows it."""

from __future__ import annotations

import bisect
import re
from typing import Any

from adjudicator.store import journal

TURN_PATH = re.compile(r"turns/([0-9]{4,})")


class Walk:
    """The journal read line by line: the turn each line belongs to, and where each file a line
    named is now (a rollback moves a turn's files aside, and a later line may name the same
    paths again)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.facts = journal.facts(entries)
        """What the whole journal says (the files it names, the current turn)."""
        self.turn_at: list[int] = []
        self.named_by: dict[str, int] = {}
        """Each file by the path it has now: the number of the line that named it."""
        self._ends: list[str] = []
        """Each file a line named, in the order named: the path it has now."""
        self._held: dict[str, tuple[list[int], list[int | None]]] = {}
        """Each path: the lines after which it held another file, and which (None: none)."""
        holding: dict[str, int] = {}  # each path: the file it holds now
        turn = 0
        for number, entry in enumerate(entries, 1):
            kind = entry.get("type")
            if kind == "created":
                turn = 0 if entry.get("turn") == 0 else 1  # 0: the deal waits for shares
            elif entry.get("dealt"):
                turn = 1
            elif kind == "adjudicated":
                turn = int(entry["turn"]) + 1
            elif kind == "rolled-back":
                turn = int(entry["turn"])
            self.turn_at.append(turn)
            for rel in entry.get("files") or {}:
                self.named_by[rel] = number
                holding[rel] = len(self._ends)
                self._hold(rel, number, len(self._ends))
                self._ends.append(rel)
            for source, target in (entry.get("moved") or {}).items():
                if source in self.named_by:
                    self.named_by[target] = self.named_by.pop(source)
                held = holding.pop(source, None)
                if held is not None:
                    self._hold(source, number, None)
                    self._hold(target, number, held)
                    holding[target], self._ends[held] = held, target

    def _hold(self, rel: str, number: int, held: int | None) -> None:
        lines, files = self._held.setdefault(rel, ([], []))
        lines.append(number)
        files.append(held)

    def at(self, rel: str, line: int) -> str:
        """Where the file that ``rel`` held after journal line ``line`` (1: the first) is now;
        ``rel`` itself when it held none then."""
        held = self._held.get(rel)
        if held is None:
            return rel
        lines, files = held
        index = bisect.bisect_right(lines, line) - 1
        file = files[index] if index >= 0 else None
        return rel if file is None else self._ends[file]

    def turn_of(self, rel: str) -> int | None:
        found = TURN_PATH.match(rel)
        if found:
            return int(found.group(1))
        line = self.named_by.get(rel)
        return None if line is None else self.turn_at[line - 1]


def loads(raw: bytes) -> Any:
    """JSON from an archive's file, or None when it is none (too deep counts as none)."""
    try:
        return journal.parse(raw)
    except (ValueError, RecursionError):
        return None
