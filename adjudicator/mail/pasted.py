"""Orders pasted into the text of a message, each with its signature appended.

The signature does not say where the signed bytes start, so every likely reading of the text
above it is handed on (:attr:`FoundOrder.alternatives`), most likely first: after a greeting,
before a mail signature, in a quoted reply (``>`` prefixes), with format=flowed undone
(:func:`unflow`). Pure byte handling: nothing here verifies a signature or reads YAML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from adjudicator.signing.sshsig import ARMOR_BEGIN, ARMOR_END


@dataclass(frozen=True)
class FoundOrder:
    """An order file and its signature as found in a message, not yet verified."""

    order: bytes  # the order file's bytes exactly as sent (transfer encoding undone)
    signature: bytes  # the armored SSH signature's bytes
    name: str  # the attachment's file name, or "message body" for a pasted order
    pasted: bool  # True when the order came from a text body rather than an attachment
    alternatives: tuple[tuple[bytes, bytes], ...] = ()
    """Other (order bytes, signature) readings of the same text, most likely first: ingest
    tries ``order`` first, then each of these, and takes the first whose signature verifies
    (a pasted order between a greeting and a mail signature, in a quoted reply, ...).
    At most MAX_READINGS - 1; line-end variants (CRLF/LF) are not repeated here, since the
    signature check tries them for every reading."""


#: Readings of one pasted order handed on (the most likely one and its alternatives).
MAX_READINGS = 64
#: Pasted signatures looked for in one message (all its text parts together).
MAX_PASTED = 8
#: The name of an order pasted into the text of a message.
BODY_NAME = "message body"
#: The ``id:`` line an order file holds (after a byte order mark when it is the first).
ID_LINE = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?id[ \t]*:")
#: Line ends of pasted text.
LINE_BREAK = re.compile(rb"\r\n|\n")
#: Bytes above a pasted signature searched for where the order starts (order files over 64 KiB
#: are refused anyway).
_MAX_PASTED_ORDER = 64 * 1024 + 1024
#: Lines of one armored signature (8 KiB at most, 70 columns).
_MAX_ARMOR_LINES = 200
#: A BEGIN line, after the quote prefix of its quoted-reply depth (``> ``, ``>> ``, ``> > ``, ...,
#: or the tab that s-nail and other mailx quote with by default).
_QUOTED_BEGIN = re.compile(rb"((?:> ?|\t)*)" + re.escape(ARMOR_BEGIN) + rb"[ \t]*")
_NBSP = "\u00a0".encode()
#: Lines that may open an order file above its ``id:`` line (comments, a document start).
_PREAMBLE = re.compile(rb"(?:\xef\xbb\xbf)?(?:#|---|%YAML)")


def merged(first: FoundOrder, second: FoundOrder) -> FoundOrder:
    """``first`` with the readings of ``second`` too: taken in turn (the most likely of each
    first), without repeats, at most MAX_READINGS."""
    ones = [(first.order, first.signature), *first.alternatives]
    others = [(second.order, second.signature), *second.alternatives]
    readings: list[tuple[bytes, bytes]] = []
    for index in range(max(len(ones), len(others))):
        for kind in (ones, others):
            if index < len(kind) and kind[index] not in readings:
                readings.append(kind[index])
    readings = readings[:MAX_READINGS]
    return replace(first, order=readings[0][0], alternatives=tuple(readings[1:]))


def pasted_orders(text: bytes, limit: int = MAX_PASTED) -> list[FoundOrder]:
    """Each armored signature in ``text`` (at most ``limit``) with the readings of the order
    above it.

    A signature is a BEGIN line through an END line, all with the same quote prefix (a mail
    signature or more text may follow). The order is the lines just above it with that prefix
    (stopping at an earlier signature), prefix removed, joined with the text's line end; where
    it starts is not known, so :func:`_readings` gives every likely start.
    """
    eol = b"\r\n" if b"\r\n" in text else b"\n"
    lines = LINE_BREAK.split(text)
    found: list[FoundOrder] = []
    floor = 0
    index = 0
    while index < len(lines) and len(found) < limit:
        line = lines[index]
        match = _QUOTED_BEGIN.fullmatch(line) if ARMOR_BEGIN in line else None
        if match is None:
            index += 1
            continue
        prefix = match.group(1)
        armor = _armor(lines, index, prefix)
        if armor is None:
            index += 1
            continue
        signature, end = armor
        readings = _readings(lines, floor, index, prefix, eol)
        if readings:
            alternatives = tuple((reading, signature) for reading in readings[1:])
            found.append(FoundOrder(readings[0], signature, BODY_NAME, True, alternatives))
        floor = index = end + 1
    return found


def _unquote(line: bytes, prefix: bytes) -> bytes | None:
    """``line`` without the quote ``prefix``; None when it is not quoted so."""
    if line.startswith(prefix):
        return line[len(prefix) :]
    if line.rstrip(b" \t") == prefix.rstrip(b" \t"):  # an empty quoted line: ">" for "> "
        return b""
    return None


def _armor(lines: list[bytes], begin: int, prefix: bytes) -> tuple[bytes, int] | None:
    """(the signature with LF line ends, the index of its END line) from the BEGIN line on."""
    out = [ARMOR_BEGIN]
    for index in range(begin + 1, min(len(lines), begin + _MAX_ARMOR_LINES)):
        content = _unquote(lines[index], prefix)
        if content is None:
            return None
        content = content.strip()
        out.append(content)
        if content == ARMOR_END:
            return b"\n".join(out) + b"\n", index
    return None


def _readings(lines: list[bytes], floor: int, begin: int, prefix: bytes, eol: bytes) -> list[bytes]:
    """The likely order texts above the BEGIN line ``begin``, most likely first.

    The region is the lines above it (from ``floor`` on) quoted with ``prefix``, up to a line
    with armor in it, at most about 64 KiB. Starts, in this order: the comment block just
    above an ``id:`` line (blank lines in it allowed) and the ``id:`` line itself (the nearest
    first), each paragraph (after a blank line, or the region's first line), then every other
    line, nearest first; for the first two kinds also without the blank lines between the
    order and the signature; each also with no-break spaces made spaces. At most MAX_READINGS.
    """
    region: list[bytes] = []
    size = 0
    index = begin - 1
    while index >= floor:
        content = _unquote(lines[index], prefix)
        if content is None or ARMOR_BEGIN in content or ARMOR_END in content:
            break
        size += len(content) + len(eol)
        if size > _MAX_PASTED_ORDER:
            break
        region.append(content)
        index -= 1
    region.reverse()
    last = len(region)
    while last > 0 and not region[last - 1].strip():
        last -= 1
    if not last:
        return []
    likely: list[int] = []
    for start in range(last - 1, -1, -1):
        if ID_LINE.match(region[start]):
            top = start
            while top > 0 and (_PREAMBLE.match(region[top - 1]) or not region[top - 1].strip()):
                top -= 1
            while top < start and not region[top].strip():
                top += 1
            likely += [top, start]
    likely += [
        start
        for start in range(last - 1, -1, -1)
        if region[start].strip() and (start == 0 or not region[start - 1].strip())
    ]
    spans = [(start, end) for start in likely for end in (len(region), last)]
    spans += [(start, len(region)) for start in range(last - 1, -1, -1)]
    # Rich-text editors write runs of spaces as no-break spaces (&nbsp;), which can reach the
    # text/plain alternative: each reading is also tried with them turned back into spaces.
    regions = [region]
    if any(_NBSP in line for line in region):
        regions.append([line.replace(_NBSP, b" ") for line in region])
    readings: list[bytes] = []
    for span in dict.fromkeys(spans):  # no repeats, in order; joined only while needed
        for lines_read in regions:
            reading = eol.join(lines_read[span[0] : span[1]]) + eol
            if reading not in readings:
                readings.append(reading)
                if len(readings) == MAX_READINGS:
                    return readings
    return readings


def unflow(data: bytes, *, delsp: bool = False) -> bytes:
    """Text sent as format=flowed (RFC 3676) as it was written: soft line breaks joined,
    space-stuffing removed, and with ``delsp`` the space before each soft break dropped.

    Quoted lines keep their depth, written as ``>`` marks and one space. Lines end as they did
    in ``data`` (CRLF when it has any, else LF).
    """
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    lines = LINE_BREAK.split(data)
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    out: list[bytes] = []
    paragraph: list[bytes] = []
    paragraph_depth = 0
    for line in lines:
        depth = len(line) - len(line.lstrip(b">"))
        content = line[depth:]
        if content.startswith(b" "):
            content = content[1:]
        if paragraph and depth != paragraph_depth:
            out.append(_quoted(paragraph_depth, b"".join(paragraph)))
            paragraph = []
        flowed = content.endswith(b" ") and content != b"-- "
        if flowed and delsp:
            content = content[:-1]
        paragraph.append(content)
        paragraph_depth = depth
        if not flowed:
            out.append(_quoted(depth, b"".join(paragraph)))
            paragraph = []
    if paragraph:
        out.append(_quoted(paragraph_depth, b"".join(paragraph)))
    text = eol.join(out)
    return text + eol if ends_with_newline and out else text


def _quoted(depth: int, content: bytes) -> bytes:
    if not depth:
        return content
    return b">" * depth + (b" " + content if content else b"")
