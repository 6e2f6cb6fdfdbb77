"""The user's cache folder: what commands keep between runs to answer faster, never in a game
directory and never the commit point (deleting any of it is always safe).

Each entry is written whole or not at all (a temporary file renamed in its place), readable by its
user alone, and carries the SHA-256 of what it holds: a damaged entry reads as missing. A folder
that cannot be written (a read-only home) only means nothing is kept. Each folder keeps a bounded
number of entries: a new one makes those used longest ago go (:func:`prune`), so that a user
who plays demo after demo, or upgrades year after year, does not gather them for ever.
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
    wait for a writer, a device, which would never end). A file read whole bears the time it
    was read, when its own is older than :data:`RENEWED_AFTER` (:func:`_used`), so that a
    folder keeps the entries used last."""
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
        if len(data) != seen.st_size:
            return None  # it changed while read
        if seen.st_mtime < time.time() - RENEWED_AFTER:
            _used(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data


RENEWED_AFTER = 3600
"""Seconds after which an entry read is given the time it was read (:func:`_used`): within
them it is among the entries used last anyway, and a command run every minute (``tick``
reads every game's idle note) writes nothing back to the disk."""

_BY_HANDLE = os.utime in os.supports_fd
"""Whether a file's time can be set through a handle of it (POSIX)."""


def _used(fd: int) -> None:
    """Give the file open as ``fd`` the time now, as if written now: a folder of the cache
    keeps the entries written or read last (:func:`prune`), and a report read every day stays
    while those of games long finished go. Only through the handle, the file read (where a
    time cannot be set so, as on Windows, whose files are opened by following a link, and for
    a read-only disk or another user's file, the entry keeps its own time)."""
    if _BY_HANDLE:
        with contextlib.suppress(OSError):
            os.utime(fd)


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
    not be written. The folder keeps ``keep`` entries (None: it is not pruned), made room for
    as a process first adds an entry there (:func:`added`)."""
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
        added(entry, keep)
    return True


_PRUNED: set[str] = set()
"""The folders this process has pruned (:func:`added`)."""


def added(entry: Path, keep: int) -> None:
    """``entry`` is new in its folder, which keeps ``keep`` entries: the folder is pruned at
    the first entry a process adds there (:func:`prune`), so that a command that adds many (a
    tick of a folder of new games) reads the folder once. After it the folder holds at most
    ``keep`` entries, and those the same command adds after."""
    folder = str(entry.parent)
    if folder not in _PRUNED:
        _PRUNED.add(folder)
        prune(entry.parent, keep, entry.suffix, entry.name)


LEFT_OVER = 3600
"""Seconds after which a temporary file of the cache's (a process killed while it wrote an
entry left it) goes at the next :func:`prune` of its folder."""

_BY_FD = os.scandir in os.supports_fd and os.unlink in os.supports_dir_fd
"""Whether a folder is read and pruned through a handle of it, opened without following a link
(POSIX): a folder swapped for a link meanwhile is never pruned."""
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def prune(folder: Path, keep: int, suffix: str, written: str | None = None) -> None:
    """Leave in ``folder`` the ``keep`` entries used last, written or read (the one just
    ``written`` among them, whatever its time), and none of the cache's temporary files older
    than :data:`LEFT_OVER` seconds (a younger one may be an entry being written). An entry is
    named by a key of hex digits and ``suffix``, as the cache names them: no other file is
    removed, no link or folder, and nothing in a folder that is a link. A folder that cannot be
    read, or a file that went meanwhile, is left as it is: pruned next time."""
    try:
        if _BY_FD:
            where: int | str = os.open(folder, _FOLDER_FLAGS)
        elif stat.S_ISDIR(os.lstat(folder).st_mode):
            where = str(folder)
        else:
            return  # a link, or no folder
    except OSError:
        return
    try:
        entries, left_over = _listed(where, suffix, written)
        entries.sort()
        oldest = [name for _, name in entries[: max(len(entries) - keep, 0)]]
        for name in [*left_over, *oldest]:
            with contextlib.suppress(OSError):
                if isinstance(where, int):
                    os.unlink(name, dir_fd=where)
                else:
                    os.unlink(os.path.join(where, name))
    finally:
        if isinstance(where, int):
            os.close(where)


def _listed(
    where: int | str, suffix: str, written: str | None
) -> tuple[list[tuple[tuple[bool, int], str]], list[str]]:
    """The entries in the folder ``where`` (a handle or a path) by name, each with what orders
    them (the one just ``written`` last, then the time each was written or last read), and the
    names of the cache's temporary files there that are older than :data:`LEFT_OVER` seconds."""
    entries: list[tuple[tuple[bool, int], str]] = []
    left_over: list[str] = []
    stale = time.time() - LEFT_OVER  # the system's clock, which gave the files their times
    try:
        with os.scandir(where) as found:
            for item in found:
                name = item.name
                try:
                    if not item.is_file(follow_symlinks=False):
                        continue
                    seen = item.stat(follow_symlinks=False)
                except OSError:
                    continue  # went meanwhile
                if _is_entry(name, suffix):
                    entries.append(((name == written, seen.st_mtime_ns), name))
                elif _is_temporary(name) and seen.st_mtime < stale:
                    left_over.append(name)
    except OSError:
        return [], []
    return entries, left_over


_HEX = frozenset("0123456789abcdef")
_JINJA = "__jinja2_"
"""How Jinja's bytecode cache begins the names of its files (compiled templates, and their
temporary files)."""


def _is_entry(name: str, suffix: str) -> bool:
    """Whether ``name`` is an entry's: a key of hex digits (after Jinja's prefix, for a
    compiled template) and ``suffix``."""
    if not suffix or not name.endswith(suffix):
        return False
    key = name[: -len(suffix)].removeprefix(_JINJA)
    return len(key) >= 32 and set(key) <= _HEX


def _is_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary file's of the cache's: :func:`write`'s
    (``.ENTRY.PID.tmp``) or Jinja's (``__jinja2_KEY.cacheRANDOM.tmp``)."""
    return name.endswith(".tmp") and (name.startswith(".") or name.startswith(_JINJA))


@cache
def fingerprint(folder: str) -> str:
    """Every file under ``folder`` (caches left out) by path, size and modification time, for
    the key of what that folder's files make: a link to a folder is followed, as Jinja follows
    it to a template (each folder walked once)."""
    seen: list[str] = []
    walked: set[object] = set()
    for top, dirs, names in os.walk(folder, followlinks=True):
        try:
            here = os.stat(top)  # one call a folder (its real path takes one a part of its path)
        except OSError:  # gone while walked: its files are gone too
            dirs[:] = []
            continue
        # a folder by its device and inode; where the system gives it no inode (0: some file
        # systems of Windows), by its real path
        folder_is = (here.st_dev, here.st_ino) if here.st_ino else os.path.realpath(top)
        if folder_is in walked:
            dirs[:] = []
            continue
        walked.add(folder_is)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(top, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            seen.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return "\n".join([folder, *seen])
