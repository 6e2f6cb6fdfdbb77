"""Where the suite writes its files: a folder in memory (tmpfs) when the machine has one to spare.

A whole run makes some 100,000 files and folders (games, keys, mail, sites) and removes them
again. On a disk a new file took 0.05 to 0.4 ms to make, even with every fsync taken out by
``eatmydata``; in memory 0.02 to 0.03 ms. Nothing a test
proves depends on the files outliving the machine: a kill test kills a process, whose writes
the kernel keeps either way.

A ``TMPDIR`` set in the environment is kept as it is.
"""

from __future__ import annotations

import os
import tempfile

MEMORY = "/dev/shm"
ROOM = 2 * 1024**3
"""The free space the folder in memory must have (a run holds about 300 MB at once, a test's
files being removed when it passes)."""


def in_memory(folder: str = MEMORY, room: int = ROOM) -> str | None:
    """``folder`` when it is a writable folder with ``room`` bytes free whose programs may run
    (the tests run scripts they write); else None."""
    try:
        found = os.statvfs(folder)
    except (OSError, AttributeError):  # no such folder; no statvfs (Windows)
        return None
    if found.f_flag & (os.ST_RDONLY | getattr(os, "ST_NOEXEC", 0)):
        return None
    if found.f_bavail * found.f_frsize < room or not os.access(folder, os.W_OK | os.X_OK):
        return None
    return folder


def choose() -> str | None:
    """Point this process's temporary folder, and its children's, at the folder in memory,
    unless ``TMPDIR`` is set; the folder chosen, or None."""
    if os.environ.get("TMPDIR"):
        return None
    folder = in_memory()
    if folder is None:
        return None
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder  # pytest asked for it before this ran; it keeps what it found
    return folder
