"""``adjudicator doctor``: does a game directory agree with its journal? Writes nothing.

Checked: every journal line is whole JSON and chained to the one before (``prev``); every file
the journal names is there with its SHA-256; no file is there that the journal does not name
(a stray turn folder, a temporary file left by a crash); no step was cut short (``.step``).
Mail "in doubt" (a delivery cut short inside its SMTP transaction, ``mail/sending/``) is listed
but is no disagreement: the game master checks whether it arrived.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.rules.contract import Msg, msg
from adjudicator.rules.digests import Digester, is_public
from adjudicator.rules.errors import Locked, NotNow
from adjudicator.rules.lang import DEFAULT, game_lang
from adjudicator.store import journal
from adjudicator.store.gamedir import GENESIS, LOG, MARKER, GameDir
from adjudicator.store.steps import tracked


@dataclass
class Examination:
    """What ``doctor`` found: each way the game disagrees with its journal (``problems``),
    the mail in doubt, and how many lines the journal holds and files it names."""

    problems: list[Difference] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)
    lines: int = 0
    files: int = 0
    lang: str = DEFAULT
    """The game's language, when game.json can be read (doctor speaks to its game master)."""


def examine(root: Path) -> Examination:
    """Every way the game at ``root`` disagrees with its journal, read under the game's lock,
    as a step holds it: a step under way is waited for, not taken for one cut short (Locked
    when it takes longer than a step may). A game whose lock this user cannot take (a
    read-only copy) is read as it is."""
    store = GameDir(root)
    with contextlib.ExitStack() as holding:
        if (root / "game.json").is_file():  # a game, or what is left of one: no lock made elsewhere
            try:
                holding.enter_context(store.locked())
            except Locked:
                raise
            except NotNow:
                pass  # the lock cannot be made here: nothing can write this copy either
        return _examine(root)


def _examine(root: Path) -> Examination:
    store = GameDir(root)
    result = Examination()
    try:
        data = store.log_bytes()
    except NotNow as error:  # a folder, a pipe or a device in the journal's place
        said = error.message
        why = said.params.get("why") if isinstance(said, Msg) else str(said)
        result.problems.append(Difference(LOG, msg("doctor-unreadable", why=why)))
        return result
    if not (root / "game.json").is_file() and not data:
        result.problems.append(Difference(".", msg("doctor-no-game")))
        return result
    with contextlib.suppress(OSError, ValueError, AttributeError, NotNow):  # told below
        result.lang = game_lang(store.created())
    chain = _chain_problems(data)
    result.problems += chain
    if chain:
        return result
    try:
        log = store.log()
    except NotNow as error:  # a line JSON reads but strict UTF-8 does not (a lone surrogate)
        said = error.message
        line = said.params.get("line") if isinstance(said, Msg) else None
        result.problems.append(Difference(LOG, msg("doctor-line-not-journal", line=line)))
        return result
    result.lines = len(log)
    if not log or log[0].get("type") != "created":
        result.problems.append(Difference("log.jsonl", msg("doctor-no-created")))
    if log and not any("files" in entry for entry in log):
        result.problems.append(Difference("log.jsonl", msg("doctor-older-version")))
        return result
    unreadable = first_unreadable_line(log) or _seats_unreadable(store, log)
    if unreadable is not None:
        result.problems.append(unreadable)
        return result
    result.problems += differences(store)
    sending = root / "mail" / "sending"
    if sending.is_dir():
        result.in_doubt = sorted(p.name for p in sending.iterdir() if p.suffix == ".eml")
    result.files = len(journal.facts(log).files)
    return result


def first_unreadable_line(log: list[dict[str, Any]]) -> Difference | None:
    """The first journal line whose fields do not fit its type (the journal was edited); the
    journal is read whole once, and line by line only when that fails."""
    try:
        journal.facts(log)
        journal.clock(log, 1)
        return None
    except journal.MISFITS:
        pass
    for number in range(1, len(log) + 1):
        try:
            journal.facts(log[:number])
            journal.clock(log[:number], 1)
        except journal.MISFITS as error:
            reason = f"{type(error).__name__}: {error}"
            return Difference("log.jsonl", msg("doctor-line-misfit", line=number, why=reason))
    return None


def _seats_unreadable(store: GameDir, log: list[dict[str, Any]]) -> Difference | None:
    """The first journal line the seats' fold cannot read (a resignation of a name with no
    seat, say), which every command reads through the journal's summary."""
    try:
        seats = journal.SeatsFold(copy.deepcopy(store.created()), {})
    except (OSError, NotNow, *journal.MISFITS):
        return None  # game.json: told as a file that differs
    for number, entry in enumerate(log, 1):
        try:
            seats.feed(entry, store.read_json)
        except (*journal.MISFITS, OSError) as error:
            reason = f"{type(error).__name__}: {error}"
            return Difference("log.jsonl", msg("doctor-line-misfit", line=number, why=reason))
    return None


def _chain_problems(data: bytes) -> list[Difference]:
    """Lines that are not JSON objects, or whose ``prev`` is not the SHA-256 of the line before."""
    problems = []
    previous = GENESIS
    end = data.rfind(b"\n") + 1
    for number, line in enumerate(data[:end].splitlines(keepends=True), 1):
        try:
            entry = journal.parse(line)
        except ValueError:
            problems.append(Difference("log.jsonl", msg("doctor-line-not-json", line=number)))
            return problems
        if not isinstance(entry, dict) or "type" not in entry:
            problems.append(Difference("log.jsonl", msg("doctor-line-not-journal", line=number)))
            return problems
        if "prev" in entry and entry["prev"] != previous:
            problems.append(Difference("log.jsonl", msg("doctor-chain-broken", line=number)))
        previous = hashlib.sha256(line).hexdigest()
    return problems


def _digest(store: GameDir, rel: str, keyed: bool) -> str | None:
    """The digest of the file at ``rel``; without the game's key (``game.json`` changed), only
    a public file's (None for the others: they cannot be checked)."""
    if keyed:
        return store.digest(rel)
    return Digester(None).file(store.root, rel) if is_public(rel) else None


@dataclass
class Difference:
    """One way the directory disagrees with its journal."""

    path: str
    problem: Msg


def differences(store: GameDir) -> list[Difference]:
    """Where the directory and its journal disagree (what ``doctor`` reports)."""
    problems: list[Difference] = []
    data = store.log_bytes()
    if data and not data.endswith(b"\n"):
        problems.append(Difference(LOG, msg("doctor-cut-short")))
    marker = store.marker()
    if marker is not None:
        problems.append(
            Difference(MARKER, msg("doctor-step-cut-short", kind=str(marker.get("kind"))))
        )
    known = journal.facts(store.log()).files
    present = tracked(store)
    try:
        store.created_as_named()
        keyed = True
    except NotNow:  # game.json changed: the keyed digests cannot be made, the plain ones can
        keyed = False
        problems.append(Difference("game.json", msg("doctor-changed")))
    for rel, digest in sorted(known.items()):
        if rel not in present:
            problems.append(Difference(rel, msg("doctor-missing")))
        elif _digest(store, rel, keyed) not in (None, digest):
            problems.append(Difference(rel, msg("doctor-changed")))
    for rel in sorted(present - set(known)):
        problems.append(Difference(rel, msg("doctor-not-named")))
    return problems
