"""The user's cache folder: what commands keep between runs to answer faster, never in a game
directory and never the commit point (deleting any of it is always safe).

Each entry is written whole or not at all (a temporary file renamed in its place), readable by its
user alone, and carries the SHA-256 of what it holds: a damaged entry reads as missing. A folder
that cannot be written (a read-only home) only means nothing is kept. Each folder keeps a bounded
number of entries: a new one makes the oldest go (:func:`prune`), so that a user who plays demo
after demo, or upgrades year after year, does not gather them for ever.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from functools import cache
from pathlib import Path


def folder(name: str) -> Path:
    """The cache's folder ``name`` (``idle``, ``rendered``, ``rules``, ``summary``, ``templates``,
    ``texts``)."""
    return _base(os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME")) / name


@cache
def _base(xdg_cache_home: str | None, home: str | None) -> Path:
    """The cache folder while the variables it is found by have these values."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("adjudicator"))


def game_key(root: Path) -> str:
    """A name for the game at ``root`` in a cache folder (its resolved path, hashed).

    The name of a path already named in this process is named again without resolving it
    (a stat of each folder on the way): a folder moved meanwhile only means that what is kept
    under the old name is checked against the game's bytes, as every entry is, and not used."""
    given = (os.getcwd(), str(root)) if not root.is_absolute() else ("", str(root))
    name = _NAMED.get(given)
    if name is None:
        path = str(root.resolve()).encode("utf-8", "surrogateescape")
        name = _NAMED[given] = hashlib.sha256(path).hexdigest()[:32]
        while len(_NAMED) > NAMED:  # the one named first goes (a daily run names every game)
            del _NAMED[next(iter(_NAMED))]
    return name


_NAMED: dict[tuple[str, str], str] = {}
NAMED = 256
"""The most names of games a process keeps."""


LARGEST = 256 * 2**20
"""The most bytes an entry may hold: no entry the program keeps comes near it (the summary of
a game of thousands of journal lines is some megabytes)."""


_FLAGS = getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
"""Every entry opened in binary mode (Windows would translate line ends) and closed in any
child process."""


def read_file(path: Path | str) -> bytes | None:
    """The bytes of the cache's file at ``path``, or None when it is not a plain file of at
    most :data:`LARGEST` bytes that can be read (missing, a folder, a link, a pipe, which would
    wait for a writer, a device, which would never end)."""
    flags = os.O_RDONLY | _FLAGS | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        seen = os.fstat(fd)
        if not stat.S_ISREG(seen.st_mode) or seen.st_size > LARGEST:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(seen.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == seen.st_size else None  # else it changed while read


_HEADER = 65
"""The bytes an entry holds before what is kept: its SHA-256 in hex and a line end."""


def read(entry: Path) -> bytes | None:
    """What ``entry`` holds, or None when it is missing or damaged."""
    data = read_file(entry)
    if data is None:
        return None
    checksum, _, kept = data.partition(b"\n")
    if hashlib.sha256(kept).hexdigest().encode() != checksum:
        return None
    return kept


def write(entry: Path, kept: bytes, *, keep: int | None) -> bool:
    """Keep ``kept`` in ``entry`` (its folders made for its user alone); False when it could
    not be written. An entry new in its folder (none written over) leaves the ``keep`` newest
    there (:func:`prune`; None: the caller bounds the folder itself)."""
    if len(kept) + _HEADER > LARGEST:
        return False  # it could not be read back: not hashed, not copied
    data = hashlib.sha256(kept).hexdigest().encode() + b"\n" + kept
    temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        entry.parent.mkdir(mode=0o700, exist_ok=True)
        temporary.unlink(missing_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        # ext4 makes a rename over a file wait for the new file's data (auto_da_alloc): four
        # times as long here. Without the old entry a reader in between only finds none kept.
        try:
            os.unlink(entry)
            new = False
        except FileNotFoundError:
            new = True
        os.replace(temporary, entry)
    except OSError:
        with contextlib.suppress(OSError):  # a full disk, a folder where the entry goes
            temporary.unlink(missing_ok=True)
        return False
    if new and keep is not None:
        added(entry.parent, keep, entry.suffix)
    return True


_PRUNED: set[str] = set()
"""The folders this process has pruned (:func:`added`)."""


def added(folder: Path, keep: int, suffix: str) -> None:
    """An entry (a file named ``*suffix``) was added to ``folder``, which keeps ``keep``: the
    folder is pruned at the first one a process adds there (:func:`prune`), so that a command
    that adds many (a tick of a folder of new games) reads the folder once. A folder then holds
    at most ``keep`` entries and those the last command added."""
    if str(folder) not in _PRUNED:
        _PRUNED.add(str(folder))
        prune(folder, keep, suffix)


LEFT_OVER = 3600
"""Seconds after which a temporary file in a cache folder (``*.tmp``: left by a process killed
while it wrote an entry) is removed by :func:`prune`."""


def prune(folder: Path, keep: int, suffix: str) -> None:
    """Leave the ``keep`` entries (the files named ``*suffix``) written last in ``folder``, and
    no temporary file older than :data:`LEFT_OVER` seconds (a younger one may be an entry being
    written). Only those plain files are removed: never another file, a link or a folder, nor
    anything in a folder that is a link. A folder that cannot be read, or a file that went
    meanwhile, is left as it is: pruned next time."""
    entries: list[tuple[int, str]] = []
    left_over: list[str] = []
    stale = time.time() - LEFT_OVER  # the system's clock, which gave the files their times
    if folder.is_symlink():
        return
    try:
        with os.scandir(folder) as found:
            for item in found:
                if not item.is_file(follow_symlinks=False):
                    continue
                try:
                    seen = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                if item.name.endswith(suffix) and not item.name.startswith("."):
                    entries.append((seen.st_mtime_ns, item.path))
                elif item.name.endswith(".tmp") and seen.st_mtime < stale:
                    left_over.append(item.path)
    except OSError:
        return
    entries.sort()
    oldest = [path for _, path in entries[: max(len(entries) - keep, 0)]]
    for path in [*left_over, *oldest]:
        with contextlib.suppress(OSError):
            os.unlink(path)


@cache
def fingerprint(folder: str) -> str:
    """Every file under ``folder`` (caches left out) by path, size and modification time, for
    the key of what that folder's files make: a link to a folder is followed, as Jinja follows
    it to a template (each folder walked once)."""
    seen: list[str] = []
    walked: set[str] = set()
    for top, dirs, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in walked:
            dirs[:] = []
            continue
        walked.add(real)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(top, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            seen.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return "\n".join([folder, *seen])
