"""Reading a file a user names, without ever blocking or reading without end.

A path on the command line or in a setup file may name a pipe (reading waits for a writer that
never comes), a device such as ``/dev/zero`` (reading never ends) or a folder. :func:`read_regular`
opens without blocking, refuses anything but a regular file and reads at most a cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from adjudicator.rules.contract import Msg, msg


class FileRefused(Exception):
    """The file cannot be read as asked; ``why`` says why (``file-not-regular``: it is a pipe,
    not a file), ``missing`` is true when nothing is there at all, ``size`` is set when the
    file is over the cap."""

    def __init__(self, why: Msg, missing: bool = False, size: int | None = None) -> None:
        super().__init__(why.code)
        self.why = why
        self.missing = missing
        self.size = size


def _kind(mode: int) -> Msg:
    if stat.S_ISDIR(mode):
        return msg("kind-folder")
    if stat.S_ISFIFO(mode):
        return msg("kind-pipe")
    if stat.S_ISSOCK(mode):
        return msg("kind-socket")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return msg("kind-device")
    return msg("kind-other")  # pragma: no cover - no other kinds on POSIX


def read_regular(path: Path | str, cap: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``cap`` of them; FileRefused else.

    Opening uses ``O_NONBLOCK`` (a pipe with no writer would block ``open`` itself), and the
    kind of file is taken from the opened descriptor, so nothing can swap it in between.
    """
    data = _read(path, cap, whole=True)
    if len(data) > cap:  # it grew while we read
        raise FileRefused(msg("file-grew", kib=cap // 1024), size=len(data))
    return data


def read_regular_or_empty_device(path: Path | str, cap: int) -> bytes:
    """Like :func:`read_regular`, but a character device that reads empty (``/dev/null``) gives
    no bytes; one that gives any is refused after one read of at most ``cap + 1`` bytes, never
    waiting (a terminal that has nothing to give is refused as well)."""
    return _read(path, cap, whole=True, empty_device=True)


def read_head(path: Path | str, count: int) -> bytes:
    """The first ``count`` bytes of the regular file at ``path``, whatever its size."""
    return _read(path, count, whole=False)[:count]


def _read(path: Path | str, cap: int, whole: bool, empty_device: bool = False) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused(msg("file-missing"), missing=True) from None
    except OSError as error:
        raise FileRefused(msg("file-os-error", error=error.strerror or str(error))) from None
    try:
        info = os.fstat(fd)
        if empty_device and stat.S_ISCHR(info.st_mode):
            try:
                given = os.read(fd, cap + 1)
            except BlockingIOError:
                given = b"-"  # it would wait: that is no empty device either
            if given:
                raise FileRefused(msg("file-device-not-empty"))
            return b""
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(msg("file-not-regular", kind=_kind(info.st_mode)))
        if whole and info.st_size > cap:
            raise FileRefused(
                msg("file-over-cap", size=info.st_size, kib=cap // 1024), size=info.st_size
            )
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(cap + 1)
    except OSError as error:
        raise FileRefused(msg("file-os-error", error=error.strerror or str(error))) from None
    finally:
        os.close(fd)
