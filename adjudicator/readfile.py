"""Reading a file a user names, without ever blocking or reading without end.

A path on the command line or in a setup file may name a pipe (reading waits for a writer that
never comes), a device such as ``/dev/zero`` (reading never ends) or a folder. :func:`read_regular`
opens without blocking, refuses anything but a regular file and reads at most a cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class FileRefused(Exception):
    """The file cannot be read as asked; ``reason`` says why in words (``it is a pipe, not a
    file``), ``missing`` is true when nothing is there at all, ``size`` is set when the file
    is over the cap."""

    def __init__(self, reason: str, missing: bool = False, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing
        self.size = size


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"  # pragma: no cover - no other kinds on POSIX


def size_reason(size: int, cap: int) -> str:
    """``it is 20000 bytes; at most 16 KiB are accepted``."""
    return f"it is {size} bytes; at most {cap // 1024} KiB are accepted"


def read_regular(path: Path | str, cap: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``cap`` of them; FileRefused else.

    Opening uses ``O_NONBLOCK`` (a pipe with no writer would block ``open`` itself), and the
    kind of file is taken from the opened descriptor, so nothing can swap it in between.
    """
    data = _read(path, cap, whole=True)
    if len(data) > cap:  # it grew while we read
        raise FileRefused(f"it is over {cap // 1024} KiB", size=len(data))
    return data


def read_head(path: Path | str, count: int) -> bytes:
    """The first ``count`` bytes of the regular file at ``path``, whatever its size."""
    return _read(path, count, whole=False)[:count]


def _read(path: Path | str, cap: int, whole: bool) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused("there is no such file", missing=True) from None
    except OSError as error:
        raise FileRefused(error.strerror or str(error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"it is {_kind(info.st_mode)}, not a file")
        if whole and info.st_size > cap:
            raise FileRefused(size_reason(info.st_size, cap), size=info.st_size)
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(cap + 1)
    except OSError as error:
        raise FileRefused(error.strerror or str(error)) from None
    finally:
        os.close(fd)
