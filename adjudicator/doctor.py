"""``adjudicator doctor``: does a game directory agree with its journal? Writes nothing.

Checked: every journal line is whole JSON and chained to the one before (``prev``); every file
the journal names is there with its SHA-256; no file is there that the journal does not name
(a stray turn folder, a temporary file left by a crash); no step was cut short (``.step``).
Mail "in doubt" (a delivery cut short inside its SMTP transaction, ``mail/sending/``) is listed
but is no disagreement: the game master checks whether it arrived.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.steps import Difference, differences
from adjudicator.store import GENESIS, GameDir


@dataclass
class Examination:
    problems: list[Difference] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)
    lines: int = 0
    files: int = 0


def examine(root: Path) -> Examination:
    """Every way the game at ``root`` disagrees with its journal."""
    store = GameDir(root)
    result = Examination()
    if not (root / "game.json").is_file() and not store.log_bytes():
        result.problems.append(Difference(".", "not a game directory (no game.json, no journal)"))
        return result
    chain = _chain_problems(store.log_bytes())
    result.problems += chain
    if chain:
        return result
    log = store.log()
    result.lines = len(log)
    if not log or log[0].get("type") != "created":
        result.problems.append(Difference("log.jsonl", "the journal does not begin with created"))
    if log and not any("files" in entry for entry in log):
        result.problems.append(
            Difference(
                "log.jsonl",
                "made by an older version that named no files: run any "
                "command that changes the game (e.g. `send`) to have them named",
            )
        )
        return result
    result.problems += differences(store)
    sending = root / "mail" / "sending"
    if sending.is_dir():
        result.in_doubt = sorted(p.name for p in sending.iterdir() if p.suffix == ".eml")
    from adjudicator import journal

    result.files = len(journal.facts(log).files)
    return result


def _chain_problems(data: bytes) -> list[Difference]:
    """Lines that are not JSON objects, or whose ``prev`` is not the SHA-256 of the line before."""
    problems = []
    previous = GENESIS
    end = data.rfind(b"\n") + 1
    for number, line in enumerate(data[:end].splitlines(keepends=True), 1):
        try:
            entry = json.loads(line)
        except ValueError:
            problems.append(Difference("log.jsonl", f"line {number} is not JSON"))
            return problems
        if not isinstance(entry, dict) or "type" not in entry:
            problems.append(Difference("log.jsonl", f"line {number} is not a journal line"))
            return problems
        if "prev" in entry and entry["prev"] != previous:
            problems.append(
                Difference(
                    "log.jsonl",
                    f"line {number} does not follow the line before it "
                    "(its prev is not that line's SHA-256): the journal was changed",
                )
            )
        previous = hashlib.sha256(line).hexdigest()
    return problems
