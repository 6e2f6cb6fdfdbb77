"""The archive: a whole game, or what every player may see of it, in one JSON file.

docs/archive.md describes the format (docs/schemas/archive.schema.json is its JSON Schema)::

    {"format": "adjudicator-archive", "version": 1, "made_by": "adjudicator 0.1.0",
     "public": false, "game": "sultan", "id": "cairo-2026", "over": true,
     "journal": ["{...}", ...],                  # every line of log.jsonl, without its newline
     "files": [{"path": "game.json", "text": "..."},         # UTF-8 files as text,
               {"path": "mail/sent/x.eml", "base64": "..."}], # any other bytes in base64
     "seed": "...", "salt": "..."}               # a full archive; a public one once over

A full archive holds every file the journal names, byte for byte. A public archive holds, while
the game runs, only each turn's public view (the journal names every other file by a keyed digest
that tells nothing); once the game is over, also every state, resolution, view and signed order,
and the seed and salt, but still no address book, setup file or mail.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.rules.digests import is_public
from adjudicator.store import journal, steps
from adjudicator.store.gamedir import MARKER, GameDir, atomic_write

FORMAT = "adjudicator-archive"
VERSION = 1
PRIVATE_FILES = ("game.json", "setup.yaml")
PRIVATE_FOLDERS = ("mail/", "seats/", "setaside/", "outbox/", "discarded/", "notices/press/")
"""Never in a public archive: addresses (game.json, seats/), the setup as written, mail, what
was set aside, press (each player sees only what was addressed to them)."""


def shareable(rel: str, over: bool) -> bool:
    """Whether a public archive holds the file at ``rel``."""
    if is_public(rel):
        return True
    return over and rel not in PRIVATE_FILES and not rel.startswith(PRIVATE_FOLDERS)


def entry(rel: str, data: bytes) -> dict[str, str]:
    """One file of the archive: its text when it is UTF-8, else its bytes in base64."""
    try:
        return {"path": rel, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"path": rel, "base64": base64.b64encode(data).decode("ascii")}


def build(root: Path, public: bool = False) -> dict[str, Any]:
    """The archive of the game at ``root`` as the journal names it now (under the game's lock,
    so that no step moves a file while it is read)."""
    store = GameDir(root)
    store.require()
    with store.locked():
        if (root / MARKER).exists():  # a step cut short: finished or undone first, as any
            steps.recover(store)  # command that changes the game does (a killed send, say)
        data = store.log_bytes()
        end = data.rfind(b"\n") + 1
        # NotNow for a line that is not JSON, or does not fit its type
        numbered = journal.numbered_lines(root, data, 0, end)
        facts = journal.facts_of(root, numbered)
        lines = [line.decode("utf-8") for line in data[:end].split(b"\n")[:-1]]
        store.created_as_named()  # each file as the journal named it, or nothing is archived
        created = store.created()
        seats = journal.SeatsFold(copy.deepcopy(created), {})
        # its times and seats too, which a replay reads
        journal.read_through(
            root, numbered, journal.ClockFold().feed, lambda e: seats.feed(e, store.read_json)
        )
        over = False  # shares: ask, not dealt yet: no turn
        if facts.turn > 0:
            rel = f"{store.turn_dir(facts.turn)}/views/public.json"
            over = bool(journal.parse(store.named(rel, facts.files)).get("over"))
        files = []
        for rel in sorted(facts.files):
            if public and not shareable(rel, over):
                continue
            files.append(entry(rel, store.named(rel, facts.files)))
    archive: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "made_by": f"adjudicator {__version__}",
        "public": public,
        "game": created["game"],
        "id": created["id"],
        "over": over,
        "journal": lines,
        "files": files,
    }
    if not public or over:
        archive["seed"] = created["seed"]
        if "salt" in created:
            archive["salt"] = created["salt"]
    return archive


def write(root: Path, out: Path, public: bool = False) -> dict[str, Any]:
    """Write the archive of the game at ``root`` to ``out``; the archive."""
    archive = build(root, public)
    text = json.dumps(archive, indent=1, ensure_ascii=False) + "\n"
    atomic_write(out, text.encode("utf-8"))
    return archive
