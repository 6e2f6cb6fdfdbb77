"""The files inside Outlook's ``winmail.dat`` (``application/ms-tnef``).

Outlook, sending in its own Rich Text format, puts every attached file into one TNEF stream
([MS-OXTNEF]) named ``winmail.dat``: a player's order and its ``.sig`` arrive inside it.
:func:`tnef_files` hands them on as if they had been attached directly. The decoding is the
``tnefparse`` library's.

A stranger's stream is checked here first, in time linear in its size, because the decoder trusts
the counts it reads (a property count of four billion makes it loop that many times): the
signature; every attribute's frame (level, id, length within the stream, checksum); at most
:data:`MAX_ATTRIBUTES` attributes and :data:`MAX_FILES` files; each attachment's MAPI
properties walked as the decoder will walk them, every count and length within the bytes. Only
what carries files reaches the decoder (the OEM code page, and each attachment's attributes):
the message's own properties and recipients are not read. A stream inside a file of the stream
(another TNEF, an embedded message) is not opened: it is refused as nested.

Everything wrong is a :class:`TnefError` with the code of its words; the decoder's own
exceptions and log records are kept in here.
"""

from __future__ import annotations

import codecs
import logging
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

SIGNATURE = 0x223E9F78
SIGNATURE_BYTES = struct.pack("<I", SIGNATURE)
MAX_ATTRIBUTES = 2000
"""Attributes of one stream (a message's are about 30, and 4 to 8 per attached file)."""
MAX_FILES = 100
"""Files attached inside one stream."""

_MESSAGE, _ATTACHMENT = 1, 2
_OEM_CODEPAGE = 0x00069007
_ATTACH_REND_DATA = 0x00069002
_ATTACHMENT_PROPS = 0x00069005
_HEAD = struct.Struct("<BII")  # level, id, length
#: MAPI property types (MS-OXCDATA 2.11.1) by the size of a fixed value; None for variable.
_FIXED = {
    0x0002: 2, 0x000B: 2,  # PtypInteger16, PtypBoolean
    0x0003: 4, 0x0004: 4, 0x000A: 4,  # PtypInteger32, PtypFloating32, PtypErrorCode
    0x0005: 8, 0x0006: 8, 0x0007: 8, 0x0014: 8, 0x0040: 8,  # doubles, currency, int64, time
    0x0048: 16,  # PtypGuid
}  # fmt: skip
_VARIABLE = frozenset({0x0000, 0x000D, 0x001E, 0x001F, 0x0102})
_MULTIPLE = 0x1000
_NAMED = 0x8000
_ATTACH_DATA_OBJ = 0x3701
#: IID_IMessage: a PidTagAttachDataObject that starts so is an embedded message.
_IMESSAGE = bytes.fromhex("0703020000000000c000000000000046")


@dataclass
class TnefError(Exception):
    """Why a TNEF stream is not read: ``code`` names the words, ``params`` fill them."""

    code: str
    params: dict[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.code


def is_tnef(data: bytes) -> bool:
    """Whether ``data`` starts with the TNEF signature."""
    return data[:4] == SIGNATURE_BYTES


def tnef_files(data: bytes) -> list[tuple[str, bytes]]:
    """The files (name, bytes) inside the TNEF stream ``data``, in order; raises TnefError.

    A file without a name is named ``""`` (the caller names it). Its bytes are as attached.
    """
    if not is_tnef(data):
        raise TnefError("mail-tnef-not-tnef")
    if len(data) < 6:
        raise TnefError("mail-tnef-cut-off")
    kept = _checked(data)
    from tnefparse.tnef import TNEF  # type: ignore[import-untyped]  # loaded when one comes

    with _quiet():
        try:
            parsed = TNEF(kept, do_checksum=False)
        except Exception as exc:
            raise TnefError("mail-tnef-unreadable", {"error": type(exc).__name__}) from None
        files: list[tuple[str, bytes]] = []
        for attachment in parsed.attachments:
            if hasattr(attachment, "embed"):
                raise TnefError("mail-tnef-nested")
            content = attachment.data
            if not isinstance(content, bytes):
                continue
            if is_tnef(content):
                raise TnefError("mail-tnef-nested")
            files.append((_name(attachment), content))
    return files


def _name(attachment: object) -> str:
    """The attachment's long file name, else its title; "" when neither can be read."""
    try:
        name = getattr(attachment, "long_filename")()  # noqa: B009 - the decoder is untyped
    except Exception:
        return ""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    return name.strip("\0") if isinstance(name, str) else ""


@contextmanager
def _quiet() -> Iterator[None]:
    """The decoder's log records (a stranger's stream makes many) kept from the user's screen."""
    logger = logging.getLogger("tnefparse")
    disabled = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = disabled


def _checked(data: bytes) -> bytes:
    """The stream's signature, key, OEM code page and attachments' attributes, every frame and
    MAPI block checked (see the module's docstring); raises TnefError."""
    out = [data[:6]]
    offset = 6
    count = 0
    files = 0
    in_file = False
    while offset < len(data):
        if offset + _HEAD.size + 2 > len(data):
            raise TnefError("mail-tnef-cut-off")
        level, ident, length = _HEAD.unpack_from(data, offset)
        start = offset + _HEAD.size
        end = start + length
        if end + 2 > len(data):
            raise TnefError("mail-tnef-cut-off")
        value = data[start:end]
        (checksum,) = struct.unpack_from("<H", data, end)
        if sum(value) % 65536 != checksum:
            raise TnefError("mail-tnef-checksum")
        count += 1
        if count > MAX_ATTRIBUTES:
            raise TnefError("mail-tnef-too-many-attributes", {"cap": MAX_ATTRIBUTES})
        if level not in (_MESSAGE, _ATTACHMENT):
            raise TnefError("mail-tnef-unreadable", {"error": f"level {level}"})
        if ident == _ATTACH_REND_DATA:
            files += 1
            if files > MAX_FILES:
                raise TnefError("mail-tnef-too-many-files", {"cap": MAX_FILES})
            in_file = True
        keep = False
        if level == _ATTACHMENT:
            if not in_file:
                raise TnefError("mail-tnef-unreadable", {"error": "attachment attribute first"})
            if ident == _ATTACHMENT_PROPS:
                _check_mapi(value)
            keep = True
        elif ident == _OEM_CODEPAGE:
            keep = _known_codepage(value)
        if keep:
            out.append(data[offset : end + 2])
        offset = end + 2
    return b"".join(out)


def _known_codepage(value: bytes) -> bool:
    """Whether the OEM code page is one Python knows (else the decoder is not told it)."""
    if len(value) < 4:
        return False
    (number,) = struct.unpack_from("<I", value)
    from tnefparse.codepage import Codepage  # type: ignore[import-untyped]

    try:
        codecs.lookup(Codepage(number).codepage())
    except (LookupError, ValueError, TypeError):
        return False
    return True


def _check_mapi(block: bytes) -> None:
    """MAPI properties (MS-OXTNEF 2.1.3.4) walked as ``tnefparse`` walks them, every count and
    length within ``block``; an embedded message in them is nested. Raises TnefError."""
    size = len(block)
    reader = _Reader(block)
    properties = reader.u32()
    if properties > size // 8:
        raise TnefError("mail-tnef-cut-off")
    for _ in range(properties):
        kind = reader.u16()
        ident = reader.u16()
        if ident >= _NAMED:
            reader.skip(16)
            if reader.u32() == 0:
                reader.skip(4)
            else:
                reader.skip(_round4(reader.u32()))
        values = 1
        multiple = bool(kind & _MULTIPLE)
        if multiple:
            kind ^= _MULTIPLE
            values = reader.u32()
            if values > size:
                raise TnefError("mail-tnef-cut-off")
        for _ in range(values):
            if kind in _FIXED:
                reader.skip(_FIXED[kind])
            elif kind in _VARIABLE:
                items = 1 if multiple else reader.u32()
                if items > size // 4:
                    raise TnefError("mail-tnef-cut-off")
                for _ in range(items):
                    length = _round4(reader.u32())
                    if ident == _ATTACH_DATA_OBJ and reader.peek(16) == _IMESSAGE:
                        raise TnefError("mail-tnef-nested")
                    reader.skip(length)
            else:
                raise TnefError("mail-tnef-unreadable", {"error": f"MAPI type {kind:#06x}"})
        if values % 2 and kind in (0x0002, 0x000B):
            reader.skip(2)


def _round4(length: int) -> int:
    return length + (-length % 4)


class _Reader:
    """Little-endian numbers and skips within a block; past its end is TnefError."""

    def __init__(self, block: bytes) -> None:
        self.block = block
        self.offset = 0

    def skip(self, count: int) -> None:
        if self.offset + count > len(self.block):
            raise TnefError("mail-tnef-cut-off")
        self.offset += count

    def peek(self, count: int) -> bytes:
        return self.block[self.offset : self.offset + count]

    def u16(self) -> int:
        self.skip(2)
        (value,) = struct.unpack_from("<H", self.block, self.offset - 2)
        return int(value)

    def u32(self) -> int:
        self.skip(4)
        (value,) = struct.unpack_from("<I", self.block, self.offset - 4)
        return int(value)
