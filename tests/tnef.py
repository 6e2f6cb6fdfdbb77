"""Writing a small TNEF stream (``winmail.dat``) as Outlook does, for tests.

Outlook sends a message in its own Rich Text format as ``application/ms-tnef`` named
``winmail.dat``: the message's attributes and every file attached to it, in the Transport Neutral
Encapsulation Format ([MS-OXTNEF]). No library here writes it, so this writes the part of the
format that carries attachments, after the specification:

- the stream: the signature ``0x223E9F78`` and a legacy key (2 bytes), then attributes
  (MS-OXTNEF 2.1.3.1);
- an attribute: its level (1 message, 2 attachment), its id (a 16-bit number and a 16-bit type,
  together 32 bits), the length of its data (32 bits), the data, and a checksum: the sum of the
  data's bytes modulo 65536 (2.1.3.2, 2.1.3.3); all numbers little-endian;
- the message attributes Outlook writes first: attTnefVersion ``0x00089006`` (0x00010000),
  attOemCodepage ``0x00069007`` (1252), attMessageClass ``0x00078008``
  (``IPM.Microsoft Mail.Note``), attSubject ``0x00018004`` (2.1.3.3.1);
- per file: attAttachRendData ``0x00069002`` opens it (rendering data, 14 bytes), then
  attAttachTitle ``0x00018010`` (the name, NUL-ended), attAttachData ``0x0006800F`` (the bytes),
  and attAttachment ``0x00069005``: MAPI properties (2.1.3.4): a count, then each property's
  tag (type and id, 16 bits each) and value, variable values as a count of values, each a
  length and the bytes padded to 4. Those written: PidTagAttachMethod (``0x3705``, 1: by
  value), PidTagAttachLongFilename (``0x3707``, Unicode), PidTagAttachExtension (``0x3703``).
"""

from __future__ import annotations

import struct

SIGNATURE = 0x223E9F78
MESSAGE = 1
ATTACHMENT = 2

TNEF_VERSION = 0x00089006
OEM_CODEPAGE = 0x00069007
MESSAGE_CLASS = 0x00078008
SUBJECT = 0x00018004
ATTACH_REND_DATA = 0x00069002
ATTACH_TITLE = 0x00018010
ATTACH_DATA = 0x0006800F
ATTACHMENT_PROPS = 0x00069005
MAPI_PROPS = 0x00069003

PT_LONG = 0x0003
PT_STRING8 = 0x001E
PT_UNICODE = 0x001F
PT_BINARY = 0x0102
PT_OBJECT = 0x000D
ATTACH_METHOD = 0x3705
ATTACH_LONG_FILENAME = 0x3707
ATTACH_EXTENSION = 0x3703
ATTACH_DATA_OBJ = 0x3701
#: The class id that starts an embedded message (IID_IMessage) in PidTagAttachDataObject.
IMESSAGE = bytes.fromhex("0703020000000000c000000000000046")


def attribute(level: int, ident: int, data: bytes, *, checksum: int | None = None) -> bytes:
    """One attribute: level, id, length, data, checksum (MS-OXTNEF 2.1.3.2)."""
    total = sum(data) % 65536 if checksum is None else checksum
    return struct.pack("<BII", level, ident, len(data)) + data + struct.pack("<H", total)


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def mapi_long(ident: int, value: int) -> bytes:
    return struct.pack("<HHI", PT_LONG, ident, value)


def mapi_variable(kind: int, ident: int, value: bytes) -> bytes:
    """A variable-size property: one value, its length and its bytes padded to 4."""
    return struct.pack("<HHII", kind, ident, 1, len(value)) + _padded(value)


def mapi_props(*props: bytes) -> bytes:
    return struct.pack("<I", len(props)) + b"".join(props)


def file_attributes(name: str, data: bytes, *, data_object: bytes | None = None) -> bytes:
    """The attributes of one attached file, as Outlook writes them."""
    extension = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    props = [
        mapi_long(ATTACH_METHOD, 1),
        mapi_variable(PT_UNICODE, ATTACH_LONG_FILENAME, (name + "\0").encode("utf-16-le")),
        mapi_variable(PT_STRING8, ATTACH_EXTENSION, extension.encode("ascii") + b"\0"),
    ]
    if data_object is not None:
        props.append(mapi_variable(PT_OBJECT, ATTACH_DATA_OBJ, data_object))
    rendering = struct.pack("<HIHHI", 1, 0xFFFFFFFF, 0xFFFF, 0xFFFF, 1)  # a file, no position
    return (
        attribute(ATTACHMENT, ATTACH_REND_DATA, rendering)
        + attribute(ATTACHMENT, ATTACH_TITLE, name.encode("cp1252", "replace") + b"\0")
        + attribute(ATTACHMENT, ATTACH_DATA, data)
        + attribute(ATTACHMENT, ATTACHMENT_PROPS, mapi_props(*props))
    )


def message_attributes(subject: str = "Orders turn 4") -> bytes:
    return (
        attribute(MESSAGE, TNEF_VERSION, struct.pack("<I", 0x00010000))
        + attribute(MESSAGE, OEM_CODEPAGE, struct.pack("<II", 1252, 0))
        + attribute(MESSAGE, MESSAGE_CLASS, b"IPM.Microsoft Mail.Note\0")
        + attribute(MESSAGE, SUBJECT, subject.encode("cp1252") + b"\0")
    )


def tnef(files: list[tuple[str, bytes]], *, key: int = 0x0F3E, extra: bytes = b"") -> bytes:
    """A winmail.dat holding ``files`` (name, bytes) as Outlook writes them."""
    body = message_attributes() + extra
    for name, data in files:
        body += file_attributes(name, data)
    return struct.pack("<IH", SIGNATURE, key) + body
