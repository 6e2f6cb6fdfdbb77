"""The step runner: every change to a game is one step, and its journal line is the commit point.

A step holds the game's lock, first finishes or discards a step cut short before it
(:func:`recover`), writes the marker ``.step`` (so any command can see, without reading states,
that a step began and did not end), lets its body write new files and move files, then appends
one journal line naming every file that appeared (``files``: path and digest, docs/archive.md)
and every file that moved (``moved``: old path to new), and removes the marker. Files are never
rewritten in place and never deleted: what the journal does not name is not part of the game.

A step cut short (a crash, SIGKILL, a power cut) leaves its marker. The next step, before its
own work:

- when the journal has a line the marker did not count, the step was committed: the marker goes;
- when the marker holds a ``plan`` (a list of moves and the line to write: ``rollback``), the
  step is finished: the moves not yet made are made and the line written;
- otherwise the step is discarded: each file it wrote is moved aside to ``discarded/<N>/``, and
  each file it moved away is moved back; mail that moved between the mail folders stays where it
  is (it may have been sent) and is recorded as moved, and copies written to ``outbox/`` are kept.

Either way a ``recovered`` line says what was done. The line that takes the current turn's last
report out of the mail queue (a ``sent`` line, or the ``recovered`` line of a send cut short)
also says how far the wait moved the deadline (``mailed``: :func:`journal.mailed`).
What the directory and its journal disagree on, ``adjudicator doctor`` reports
(:func:`adjudicator.store.doctor.differences`, from the same :func:`tracked`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from adjudicator.rules.contract import msg
from adjudicator.rules.errors import NotNow, UsageProblem
from adjudicator.store import clock, failpoint, interrupts, journal
from adjudicator.store.gamedir import (
    KEPT_BY_RECOVERY,
    LOG,
    MARKER,
    GameDir,
    atomic_write,
    batched,
    dump_json,
    fsync_dir,
    make_folder,
    sync_folder,
)

NOT_TRACKED = {".lock", MARKER, LOG}
"""Files of the game directory that are not game files."""
DISCARDED = "discarded"


@dataclass
class Step:
    """The running step: its body calls :meth:`commit` to have a journal line written."""

    store: GameDir
    kind: str
    facts: journal.Facts
    line: dict[str, Any] | None = None
    strays: set[str] = field(default_factory=set)
    """Files there before the step began that the journal does not name (``doctor`` reports
    them): the step does not make them part of the game."""

    def commit(self, kind: str, **fields: Any) -> None:
        """Have the step end with a journal line of this ``kind`` (the last call wins)."""
        self.line = {"type": kind, **fields}

    def changed(self) -> bool:
        """Whether any file appeared or moved since the step began."""
        return tracked(self.store) - self.strays != set(self.facts.files)

    def plan(self, moves: list[tuple[str, str]], kind: str, **fields: Any) -> None:
        """Make ``moves`` (paths relative to the game) and end with the line ``kind``; the plan
        goes into the marker first, so a step cut short among the moves is finished later."""
        line = {"type": kind, "at": clock.stamp(), **fields}
        begin(self.store, self.kind, {"moves": moves, "line": line}, lines=self.facts.lines)
        for source, target in moves:
            if (self.store.root / source).exists():
                _move(self.store.root, source, target)
        self.line = line


@contextmanager
def step(root: Path, kind: str, timeout: float | None = None) -> Iterator[Step]:
    """Run one step on the game at ``root`` (see the module's docstring); a folder that is no
    game (but for ``new``) is refused before anything is written to it."""
    interrupts.check()  # a Ctrl-C Python lost ends the command before this step begins
    store = GameDir(root)
    if kind != "new":
        store.require()
    with _naming(root), store.locked(timeout), batched():
        recover(store)
        before = store.facts()
        present = tracked(store)
        strays = present - set(before.files)
        lost = set(before.files) - present
        if lost:  # moved or removed by hand: the step could not tell them from its own doing
            raise _lost(root, lost)
        begin(store, kind, lines=before.lines)
        running = Step(store, kind, before, strays=strays)
        try:
            yield running
        except BaseException:
            _discard(store, kind, before.files, running.strays)
            _end(store)
            raise
        if running.line is not None:
            finish(store, running.line, before.files, running.strays)
        elif running.changed():
            _discard(store, kind, before.files, running.strays)
        _end(store)


@contextmanager
def _naming(root: Path) -> Iterator[None]:
    """What the system refused while the step wrote (a full disk) names the game when it names
    no file: a write to a file already open names none."""
    try:
        yield
    except OSError as error:
        if error.filename is None:
            error.filename = str(root)
        raise


def _lost(root: Path, files: Iterable[str]) -> NotNow:
    """The error of files the journal names that are not there (removed or moved by hand):
    named, and ``doctor`` advised; the game waits until they are back."""
    lost = sorted(files)
    shown = lost[:3] + (["..."] if len(lost) > 3 else [])
    return NotNow(msg("files-lost", game=str(root), files=shown, count=len(lost)))


def begin(store: GameDir, kind: str, plan: dict[str, Any] | None = None, *, lines: int) -> None:
    """Write the marker of a step of ``kind`` (a marker half-written by a step killed before
    it began is not a game file: it goes)."""
    for half in store.root.glob(f".{MARKER}.*.tmp"):
        half.unlink(missing_ok=True)
    marker: dict[str, Any] = {
        "kind": kind,
        "lines": lines,
        "at": clock.stamp(),
        "pid": os.getpid(),
    }
    if plan is not None:
        marker["plan"] = plan
    atomic_write(store.root / MARKER, dump_json(marker), sync_dir=False)
    fsync_dir(store.root)  # the marker lasts before anything the step writes


def _end(store: GameDir) -> None:
    failpoint.reached("unmark")
    (store.root / MARKER).unlink(missing_ok=True)


def finish(
    store: GameDir,
    line: dict[str, Any],
    known: dict[str, str],
    strays: AbstractSet[str] = frozenset(),
) -> dict[str, Any]:
    """Append ``line`` with the files that appeared (``strays`` left out) and moved since
    ``known``: the commit."""
    files, moved, gone = _changes(store, known, strays)
    if gone:  # a step removes none: removed by hand meanwhile (the marker stays)
        raise _lost(store.root, gone)
    entry = {**line, "at": line.get("at") or clock.stamp()}
    if files:
        entry["files"] = files
    if moved:
        entry["moved"] = moved
    if any(_report_left(source, target) for source, target in moved.items()):
        when = datetime.fromisoformat(entry["at"])
        kept = store.summary()
        times = kept.clocks.result(kept.facts.turn)
        if (wait := journal.mailed(times, moved, when)) is not None:
            entry["mailed"] = wait  # the turn's last report left: its deadline moves
    return store.append_log(entry)


# -- recovery ----------------------------------------------------------------------------------
def settle(root: Path) -> str | None:
    """Finish or discard a step cut short in the game at ``root``, if its marker says there is
    one (a check that reads no state); what was done, or None."""
    store = GameDir(root)
    if not (root / MARKER).exists():
        return None
    with store.locked():
        return recover(store)


def recover(store: GameDir) -> str | None:
    """Finish or discard a step cut short (under the lock); what was done, or None."""
    _mend_log(store)
    marker = store.marker()
    facts = store.facts()
    if marker is None:
        if facts.lines and not facts.names_files:
            _adopt(store)
        return None
    if 0 <= marker.get("lines", -1) < facts.lines:
        _end(store)
        return None
    known = facts.files
    plan = marker.get("plan")
    if plan is not None:
        for source, target in plan["moves"]:
            if (store.root / source).exists():
                _move(store.root, source, target)
        finish(store, {**plan["line"], "recovered": True}, known)
        _end(store)
        return f"finished a {marker.get('kind')} cut short"
    _discard(store, str(marker.get("kind")), known)
    _end(store)
    return f"discarded a {marker.get('kind')} cut short"


def _discard(
    store: GameDir, kind: str, known: dict[str, str], before: AbstractSet[str] = frozenset()
) -> None:
    """Undo what an unfinished step did to the files and journal that (if it did anything);
    ``before``: strays there before the step, left alone."""
    present = tracked(store) - before
    strays = sorted(present - set(known))
    missing = [rel for rel in known if rel not in present]
    if not strays and not missing:
        return
    by_hash: dict[str, list[str]] = {}
    for rel in strays:
        by_hash.setdefault(store.digest(rel), []).append(rel)
    kept = set()
    back: list[tuple[str, str]] = []
    gone = []
    for rel in missing:
        on_its_way = _delivery_target(rel, strays)
        if on_its_way is not None:
            kept.add(on_its_way)  # mail that moved on stays where it is: it may have gone out
            continue
        candidates = [c for c in by_hash.get(known[rel], []) if c not in kept]
        if candidates:
            by_hash[known[rel]].remove(candidates[0])
            back.append((candidates[0], rel))
        else:
            gone.append(rel)  # not moved by the step: removed by hand
    if gone:  # nothing is undone until they are back
        raise _lost(store.root, gone)
    for source, target in back:
        _move(store.root, source, target)
    box = next_discarded(store.root)
    for rel in sorted(r for rs in by_hash.values() for r in rs):
        if rel in kept or rel.startswith(KEPT_BY_RECOVERY):
            continue  # copies written to outbox/ are kept and named
        if rel.startswith(f"{DISCARDED}/"):
            continue  # moved aside already, by this recovery (a torn line): named where it is
        _move(store.root, rel, f"{box}/{rel}")
    finish(store, {"type": "recovered", "kind": kind}, known, before)


_OUT_FROM = ("mail/queue/", "mail/sending/")
_OUT_TO = ("mail/sending/", "mail/sent/", "mail/failed/")


def _report_left(source: str, target: str) -> bool:
    """Whether a mail that holds the clock (a report, a reveal's notice) left the queue (the
    journal is read again only then)."""
    return (
        source.startswith("mail/queue/")
        and ("-report-" in source or "-reveal-" in source)
        and target.startswith(_OUT_TO)
    )


def _delivery_target(rel: str, strays: list[str]) -> str | None:
    """Where a queued message named at ``rel`` went on its way out, if it did."""
    if not rel.startswith(_OUT_FROM):
        return None
    name = rel.rsplit("/", 1)[-1]
    return next((s for s in strays if s.startswith(_OUT_TO) and s.endswith("/" + name)), None)


def _adopt(store: GameDir) -> None:
    """A game made before the journal named its files: name them all now, with what the old
    bookkeeping files said (reports queued, lines announced, Message-IDs processed)."""
    line: dict[str, Any] = {"type": "adopted"}
    for rel, key in (("mail/reports.json", "turns"), ("mail/processed.json", "processed")):
        path = store.root / rel
        if path.is_file():
            line[key] = store.read_json(rel)
    if (store.root / "mail/announced.json").is_file():
        line["announced"] = store.read_json("mail/announced.json")["lines"]
    finish(store, line, {})


def next_discarded(root: Path) -> str:
    """The folder under ``discarded/`` that the next thing moved aside goes to."""
    folder = root / DISCARDED
    used = [int(p.name) for p in folder.iterdir() if p.name.isdigit()] if folder.is_dir() else []
    return f"{DISCARDED}/{max(used, default=0) + 1:04d}"


def _mend_log(store: GameDir) -> None:
    """A journal whose last line was cut short (no newline): that part is moved aside."""
    data = store.log_bytes()
    end = data.rfind(b"\n") + 1
    if end == len(data):
        return
    box = next_discarded(store.root)
    atomic_write(store.root / box / "log.jsonl.torn", data[end:])
    atomic_write(store.root / LOG, data[:end])


def _move(root: Path, source: str, target: str) -> None:
    destination = root / target
    make_folder(destination.parent)
    failpoint.reached("move")
    os.replace(root / source, destination)
    sync_folder(destination.parent)
    sync_folder((root / source).parent)


# -- what is where -----------------------------------------------------------------------------
def tracked(store: GameDir) -> set[str]:
    """Every game file in the directory (relative, with ``/``), lock files and the like left out;
    UsageProblem for a folder that is a link (a step's files would land elsewhere)."""
    found: set[str] = set()
    _walk(str(store.root), "", found)
    return found


def _walk(folder: str, prefix: str, found: set[str]) -> None:
    """Add the game files under ``folder`` to ``found``, as ``prefix`` + their relative path
    (every step walks the whole game twice: no path arithmetic per file)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return  # as os.walk: a folder that cannot be read is left out
    top = not prefix  # the journal, the marker and its temporary file are found at the top only
    for entry in entries:
        rel = prefix + entry.name
        try:
            is_dir = entry.is_dir()
        except OSError:  # as os.walk: a link that cannot be followed (a loop, no access) is a file
            is_dir = False
        if is_dir:
            if _is_link(entry):
                raise UsageProblem(
                    f"{entry.path}: this folder of the game is a link to another place; a "
                    "game's folders must be its own (a step moves files between them), so "
                    "move it back into the game directory"
                )
            _walk(entry.path, rel + "/", found)
        elif not (
            entry.name.endswith(".lock") or (top and (rel in NOT_TRACKED or is_half_marker(rel)))
        ):
            found.add(rel)


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:  # as os.walk
        return False


def is_half_marker(rel: str) -> bool:
    """The temporary file of a marker being written (``..step.XXXX.tmp``)."""
    return rel.startswith(f".{MARKER}.") and rel.endswith(".tmp") and "/" not in rel


def _changes(
    store: GameDir, known: dict[str, str], strays: AbstractSet[str] = frozenset()
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """(new files with their digests, moves old -> new, named files gone) since ``known``;
    ``strays`` are left out."""
    present = tracked(store) - strays
    new = {rel: store.digest(rel) for rel in sorted(present - set(known))}
    missing = [rel for rel in known if rel not in present]
    moved: dict[str, str] = {}
    for rel in missing:
        name = rel.rsplit("/", 1)[-1]
        same = [r for r, digest in new.items() if digest == known[rel]]
        if not same:
            continue
        target = next((r for r in same if r.rsplit("/", 1)[-1] == name), same[0])
        moved[rel] = target
        del new[target]
    gone = [rel for rel in missing if rel not in moved]
    return new, moved, gone
