"""Where incoming messages come from: standard input, a Maildir folder, an mbox file.

Messages are handed on as raw bytes, exactly as stored; :mod:`adjudicator.mail.incoming` reads
them. A Maildir message is marked seen by moving it to ``cur/`` with the ``S`` flag (a rename,
so its bytes never change); nothing here deletes a message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from adjudicator.mail.incoming import MAX_MESSAGE

if TYPE_CHECKING:
    import mailbox  # the standard library's, imported where a folder or file is read

_SUBFOLDERS = ("new", "cur")


class SourceError(Exception):
    """A mail source that cannot be read; the message names the path and the reason."""


@dataclass(frozen=True)
class Raw:
    """One message as it came."""

    key: str  # where it came from: "stdin", the Maildir key, "mbox:<index>" or "imap:<uid>"
    data: bytes  # the whole message (from stdin at most MAX_MESSAGE + 1 bytes are read)


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


# --- standard input -----------------------------------------------------------------------------


def from_stdin(stream: BinaryIO) -> Iterator[Raw]:
    """Exactly one message: what ``stream`` holds, read up to MAX_MESSAGE + 1 bytes.

    Reading stops there, so an oversized message is recognised as such without being read whole.
    """
    try:
        data = stream.read(MAX_MESSAGE + 1)
    except OSError as error:
        raise SourceError(f"standard input: cannot read: {_reason(error)}") from None
    return iter([Raw("stdin", data)])


# --- Maildir ------------------------------------------------------------------------------------


def _maildir(path: Path) -> mailbox.Maildir:
    """The Maildir at ``path``, checked to exist with its ``new/`` and ``cur/`` folders."""
    import mailbox

    if not path.exists():
        raise SourceError(f"{path}: no such Maildir folder")
    if not path.is_dir():
        raise SourceError(f"{path}: not a Maildir folder (it is a file)")
    for sub in _SUBFOLDERS:
        if not (path / sub).is_dir():
            raise SourceError(f"{path}: not a Maildir folder (it has no {sub}/ folder)")
    try:
        return mailbox.Maildir(path, factory=None, create=False)
    except (OSError, mailbox.Error) as error:
        raise SourceError(f"{path}: cannot open the Maildir folder: {error}") from None


def _split_name(name: str) -> tuple[str, str]:
    """(key, info) of a Maildir file name ``KEY`` or ``KEY:2,FLAGS``."""
    import mailbox

    key, _, info = name.partition(mailbox.Maildir.colon)
    return key, info


def _seen(info: str) -> bool:
    return info.startswith("2,") and "S" in info[2:]


def from_maildir(path: Path) -> Iterator[Raw]:
    """The messages in ``new/`` and ``cur/`` not yet marked seen, oldest (by file time) first.

    The folder is listed at once (a missing or unreadable folder raises SourceError here); the
    messages are read as the iterator is used. A message another program takes away before it
    is read is skipped.
    """
    folder = _maildir(path)
    listed: list[tuple[int, str, str]] = []
    for sub in _SUBFOLDERS:
        try:
            with os.scandir(path / sub) as entries:
                for entry in entries:
                    key, info = _split_name(entry.name)
                    if entry.name.startswith(".") or _seen(info):
                        continue
                    try:
                        if not entry.is_file():
                            continue
                        listed.append((entry.stat().st_mtime_ns, key, entry.name))
                    except FileNotFoundError:
                        continue
        except OSError as error:
            raise SourceError(f"{path / sub}: cannot read the folder: {_reason(error)}") from None
    listed.sort()
    return _read_maildir(folder, path, [key for _, key, _ in listed])


def _read_maildir(folder: mailbox.Maildir, path: Path, keys: list[str]) -> Iterator[Raw]:
    for key in keys:
        try:
            with folder.get_file(key) as file:
                data = file.read()
        except (KeyError, FileNotFoundError):
            continue
        except OSError as error:
            raise SourceError(f"{path}: cannot read message {key}: {_reason(error)}") from None
        yield Raw(key, data)


def mark_seen_maildir(path: Path, key: str) -> None:
    """Mark message ``key`` seen: move it to ``cur/`` with the ``S`` flag added (a rename)."""
    import mailbox

    _maildir(path)
    if not key or key.startswith(".") or "/" in key or os.sep in key:
        raise SourceError(f"{path}: {key!r} is not a Maildir message key")
    colon = mailbox.Maildir.colon
    for sub in _SUBFOLDERS:
        try:
            names = [key] if (path / sub / key).is_file() else []
            if not names:
                names = [name for name in os.listdir(path / sub) if _split_name(name)[0] == key]
        except OSError as error:
            raise SourceError(f"{path / sub}: cannot read the folder: {_reason(error)}") from None
        if not names:
            continue
        name = names[0]
        info = _split_name(name)[1]
        if sub == "cur" and _seen(info):
            return
        flags = info[2:] if info.startswith("2,") else ""
        target = path / "cur" / f"{key}{colon}2,{''.join(sorted(set(flags) | {'S'}))}"
        try:
            os.rename(path / sub / name, target)
        except OSError as error:
            raise SourceError(f"{path}: cannot mark message {key} seen: {_reason(error)}") from None
        return
    raise SourceError(f"{path}: no message {key} in new/ or cur/")


# --- mbox ---------------------------------------------------------------------------------------


def from_mbox(path: Path) -> Iterator[Raw]:
    """Every message of the mbox file ``path``, in file order (without its ``From `` line).

    A missing or unreadable file raises SourceError here; the file is indexed and the messages
    are read as the iterator is used. Nothing is written to the file.
    """
    if not path.exists():
        raise SourceError(f"{path}: no such mbox file")
    if path.is_dir():
        raise SourceError(f"{path}: not an mbox file (it is a folder)")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise SourceError(f"{path}: cannot read the mbox file: {_reason(error)}") from None
    return _read_mbox(path)


def _read_mbox(path: Path) -> Iterator[Raw]:
    import mailbox

    try:
        box = mailbox.mbox(path, factory=None, create=False)
        keys = box.keys()
    except (OSError, mailbox.Error) as error:
        raise SourceError(f"{path}: cannot read the mbox file: {error}") from None
    try:
        for index, key in enumerate(keys):
            try:
                with box.get_file(key) as file:
                    data = file.read()
            except OSError as error:
                raise SourceError(
                    f"{path}: cannot read message {index}: {_reason(error)}"
                ) from None
            yield Raw(f"mbox:{index}", data)
    finally:
        box.close()
