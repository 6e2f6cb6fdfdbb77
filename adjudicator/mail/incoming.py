"""Reading one incoming mail message and finding the signed orders in it (DESIGN "Orders in mail").

Pure parsing: nothing here verifies a signature, reads YAML or knows a game. An order comes as

- an attachment pair: the order file ``X`` and its signature ``X.sig`` (or, when names do not pair,
  the only unpaired order-like attachment with the only unpaired signature);
- one attachment with the signature appended (split with :func:`adjudicator.sshsig.split_appended`);
- an order pasted into a plain-text body with the signature appended (format=flowed undone).

Attachment bytes are kept exactly as decoded from their transfer encoding. The MIME parsing is the
standard library's ``email`` package; its defects decide when a message is too broken to read.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email import errors
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.policy import default as default_policy
from email.utils import collapse_rfc2231_value
from typing import TypeVar

from adjudicator.sshsig import ARMOR_END, looks_armored, split_appended

_T = TypeVar("_T")

MAX_MESSAGE = 10 * 1024 * 1024  # bytes; larger messages are set aside unread

#: The name of an order pasted into the text of a message.
_BODY_NAME = "message body"

#: Content types that say "YAML" whatever the file's name.
_YAML_TYPES = frozenset({"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"})
_YAML_SUFFIXES = (".yaml", ".yml")
_ID_LINE = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?id[ \t]*:")
_PLAYER_LINE = re.compile(rb"(?m)^player[ \t]*:")
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")
_LINE_BREAK = re.compile(rb"\r\n|\n")
#: How far the header of an oversized message is looked for.
_HEAD_LIMIT = 256 * 1024
#: How deeply multiparts may nest before the message counts as malformed.
_MAX_DEPTH = 40
_PLAIN_CHARSETS = frozenset({"us-ascii", "ascii", "utf-8", "utf8"})

#: Parser defects that make a message unreadable, with what to tell the game master.
_FATAL_DEFECTS: tuple[tuple[type[errors.MessageDefect], str], ...] = (
    (errors.NoBoundaryInMultipartDefect, "a multipart part names no boundary"),
    (errors.StartBoundaryNotFoundDefect, "a multipart boundary never appears"),
    (errors.CloseBoundaryNotFoundDefect, "a multipart part is not closed (cut off?)"),
    (errors.MultipartInvariantViolationDefect, "a multipart part holds no parts"),
    (errors.FirstHeaderLineIsContinuationDefect, "a header starts with a continuation line"),
    (
        errors.MissingHeaderBodySeparatorDefect,
        "a line that is not a header field comes before the blank line ending a header",
    ),
)
_BASE64_DEFECTS = (errors.InvalidBase64LengthDefect, errors.InvalidBase64CharactersDefect)


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
    (a pasted order between a greeting and a mail signature, in a quoted reply, ...)."""


@dataclass(frozen=True)
class Incoming:
    """What one message holds, as far as orders go; ``problem`` says why it cannot be read."""

    message_id: str | None
    sender: str | None
    subject: str
    references: tuple[str, ...]
    orders: tuple[FoundOrder, ...]
    unsigned: tuple[str, ...]
    problem: str | None
    automatic: str | None = None
    """Why the message is automatic mail that is never answered (RFC 3834: Auto-Submitted,
    Precedence bulk/junk/list, List-Id, a delivery report, an empty or mailer-daemon sender),
    or None for mail a person sent."""
    date: str | None = None
    """The Date header as written (printable ASCII only), for notices to the game master."""


class _Unreadable(Exception):
    """The message cannot be read; the text is the ``problem``."""


@dataclass(frozen=True)
class _Attachment:
    position: int
    name: str
    data: bytes
    yaml_type: bool


@dataclass(frozen=True)
class _Body:
    position: int
    part: MIMEPart


# --- the message as a whole ---------------------------------------------------------------------


def read_message(raw: bytes) -> Incoming:
    """Everything :class:`Incoming` tells of the message ``raw``; never raises."""
    parser = BytesParser(policy=default_policy)
    if len(raw) > MAX_MESSAGE:
        problem = (
            f"the message is larger than {MAX_MESSAGE} bytes (10 MiB) and was set aside unread"
        )
        return _headers_only(parser, raw, problem)
    try:
        message = parser.parsebytes(raw)
    except Exception as exc:
        return _headers_only(parser, raw, _crashed(exc))
    try:
        orders, unsigned = _find_orders(message)
    except _Unreadable as exc:
        return _incoming(message, (), (), str(exc))
    except Exception as exc:
        return _incoming(message, (), (), _crashed(exc))
    return _incoming(message, orders, unsigned, None)


def _headers_only(parser: BytesParser[EmailMessage], raw: bytes, problem: str) -> Incoming:
    """An unreadable message with what its header tells (as far as that can be read)."""
    try:
        head = parser.parsebytes(_head(raw), headersonly=True)
    except Exception:
        return Incoming(None, None, "", (), (), (), problem)
    return _incoming(head, (), (), problem)


def _crashed(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "the message's MIME parts are nested too deeply to read"
    return f"the message could not be read ({type(exc).__name__} in its MIME structure)"


def _head(raw: bytes) -> bytes:
    """The header block of ``raw`` (up to the first blank line), for an oversized message."""
    start = raw[:_HEAD_LIMIT]
    blank = re.search(rb"\r?\n\r?\n", start)
    return start[: blank.end()] if blank else start


def _incoming(
    message: EmailMessage,
    orders: tuple[FoundOrder, ...],
    unsigned: tuple[str, ...],
    problem: str | None,
) -> Incoming:
    return Incoming(
        message_id=_safe(_message_id, message),
        sender=_safe(_sender, message),
        subject=_safe(_subject, message) or "",
        references=_safe(_references, message) or (),
        orders=orders,
        unsigned=unsigned,
        problem=problem,
    )


def _safe(read: Callable[[EmailMessage], _T | None], message: EmailMessage) -> _T | None:
    """``read(message)``, or None when the header behind it cannot be read at all."""
    try:
        return read(message)
    except Exception:
        return None


def _clean(text: str) -> str:
    """``text`` with bytes that were not UTF-8 (kept as surrogates by the parser) replaced."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _raw_header(message: EmailMessage, name: str) -> str | None:
    """The first ``name`` header's value as written, unfolded, or None."""
    for key, value in message.raw_items():
        if key.lower() == name:
            return _clean(re.sub(r"\r?\n", "", str(value)))
    return None


def _message_id(message: EmailMessage) -> str | None:
    value = (_raw_header(message, "message-id") or "").strip()
    return value or None


def _sender(message: EmailMessage) -> str | None:
    """The one From address's addr-spec; None when there is none, several, or it is broken."""
    header = message["From"]
    if header is None:
        return None
    if any(isinstance(defect, errors.InvalidHeaderDefect) for defect in header.defects):
        return None
    addresses = header.addresses
    if len(addresses) != 1:
        return None
    address = addresses[0]
    spec = _clean(address.addr_spec)
    if not address.username or not address.domain or "\ufffd" in spec:
        return None
    if any(char.isspace() or char in "<>" for char in spec):
        return None
    return spec


def _subject(message: EmailMessage) -> str | None:
    header = message["Subject"]
    return None if header is None else _clean(str(header)).strip()


def _references(message: EmailMessage) -> tuple[str, ...]:
    """The References ids; without References, a lone In-Reply-To id (as RFC 5322 3.6.4 says)."""
    references = _raw_header(message, "references")
    if references is not None:
        return tuple(_MESSAGE_ID.findall(references))
    in_reply_to = _MESSAGE_ID.findall(_raw_header(message, "in-reply-to") or "")
    return tuple(in_reply_to) if len(in_reply_to) == 1 else ()


# --- finding the orders -------------------------------------------------------------------------


def _find_orders(message: EmailMessage) -> tuple[tuple[FoundOrder, ...], tuple[str, ...]]:
    """(orders, names of unsigned order files) of a parsed message; raises _Unreadable."""
    if not message.keys():
        raise _Unreadable("not a mail message: it has no header fields")
    attachments: list[_Attachment] = []
    bodies: list[_Body] = []
    for position, (part, in_body) in enumerate(_leaves(message, True, 0)):
        _sort_leaf(part, in_body, position, attachments, bodies)
    found: list[tuple[int, FoundOrder]] = []
    unsigned: list[tuple[int, str]] = []
    _pair(attachments, found, unsigned)
    taken = {_squeeze(order.signature) for _, order in found}
    for body in bodies:
        pasted = _pasted(body.part)
        if pasted is not None and _squeeze(pasted.signature) not in taken:
            found.append((body.position, pasted))
    orders: list[FoundOrder] = []
    for _, order in sorted(found, key=lambda item: item[0]):
        if order not in orders:
            orders.append(order)
    return tuple(orders), tuple(name for _, name in sorted(unsigned))


def _leaves(part: MIMEPart, in_body: bool, depth: int) -> Iterator[tuple[MIMEPart, bool]]:
    """The leaf parts in order, each with whether it may be the text of the message.

    In a multipart/alternative only the (first) text/plain alternative is text; attachments are
    taken from every alternative. Attached messages (message/*) are not looked into.
    """
    if depth > _MAX_DEPTH:
        raise _Unreadable(f"the message's MIME parts are nested more than {_MAX_DEPTH} deep")
    _check_defects(part)
    maintype = part.get_content_maintype()
    if maintype == "message" or (maintype == "multipart" and not part.is_multipart()):
        return
    if not part.is_multipart():
        yield part, in_body
        return
    children = list(part.iter_parts())
    if part.get_content_subtype() == "alternative":
        plain = [child for child in children if child.get_content_type() == "text/plain"]
        text = plain[0] if plain else None
        for child in children:
            yield from _leaves(child, in_body and child is text, depth + 1)
    else:
        for child in children:
            yield from _leaves(child, in_body, depth + 1)


def _check_defects(part: MIMEPart) -> None:
    for defect in part.defects:
        for kind, what in _FATAL_DEFECTS:
            if isinstance(defect, kind):
                raise _Unreadable(f"the message's MIME structure is broken: {what}")


def _sort_leaf(
    part: MIMEPart,
    in_body: bool,
    position: int,
    attachments: list[_Attachment],
    bodies: list[_Body],
) -> None:
    """File one leaf part as an attachment or as text of the message (or leave it)."""
    name = part.get_filename()
    content_type = part.get_content_type()
    attached = part.get_content_disposition() == "attachment" or bool(name)
    if not attached and part.get_content_maintype() == "text":
        if in_body and content_type == "text/plain":
            bodies.append(_Body(position, part))
        return
    data = _decoded(part, name)
    if data is None:
        return
    label = _clean(name) if name else f"unnamed attachment {len(attachments) + 1}"
    attachments.append(_Attachment(position, label, data, content_type in _YAML_TYPES))


def _decoded(part: MIMEPart, name: str | None) -> bytes | None:
    """The part's bytes with the transfer encoding undone; raises _Unreadable on bad base64."""
    data = part.get_payload(decode=True)
    if any(isinstance(defect, _BASE64_DEFECTS) for defect in part.defects):
        what = f"the attachment {_clean(name)!r}" if name else "a part of the message"
        raise _Unreadable(f"{what} is not valid base64")
    return data if isinstance(data, bytes) else None


def _squeeze(signature: bytes) -> bytes:
    """A signature without whitespace, to see whether two copies are the same signature."""
    return b"".join(signature.split())


# --- attachments --------------------------------------------------------------------------------


def _is_order_like(attachment: _Attachment) -> bool:
    """YAML by name or content type, or text with ``id:`` and ``player:`` lines."""
    if attachment.yaml_type or attachment.name.lower().endswith(_YAML_SUFFIXES):
        return True
    data = attachment.data
    return (
        b"\0" not in data
        and _ID_LINE.search(data) is not None
        and _PLAYER_LINE.search(data) is not None
    )


def _pair(
    attachments: list[_Attachment],
    found: list[tuple[int, FoundOrder]],
    unsigned: list[tuple[int, str]],
) -> None:
    """Appended signatures, then pairs by name, then the one order left with the one signature."""
    signatures: list[_Attachment] = []
    others: list[_Attachment] = []
    for attachment in attachments:
        armored = looks_armored(attachment.data)
        split = None if armored else split_appended(attachment.data)
        if split is not None and split[0].strip():
            appended = FoundOrder(split[0], split[1], attachment.name, False)
            found.append((attachment.position, appended))
        elif armored or attachment.name.lower().endswith(".sig"):
            signatures.append(attachment)
        else:
            others.append(attachment)
    unpaired_signatures: list[_Attachment] = []
    for signature in signatures:
        order_file = _by_name(signature.name, others)
        if order_file is None:
            unpaired_signatures.append(signature)
            continue
        others.remove(order_file)
        found.append((order_file.position, _found(order_file, signature)))
    candidates = [other for other in others if _is_order_like(other)]
    if len(candidates) == 1 and len(unpaired_signatures) == 1:
        order_file = candidates.pop()
        found.append((order_file.position, _found(order_file, unpaired_signatures[0])))
    unsigned.extend((candidate.position, candidate.name) for candidate in candidates)


def _by_name(signature_name: str, others: list[_Attachment]) -> _Attachment | None:
    """The attachment ``X`` for the signature ``X.sig`` (exact name first, then any case)."""
    if not signature_name.lower().endswith(".sig"):
        return None
    wanted = signature_name[: -len(".sig")]
    exact = [other for other in others if other.name == wanted]
    loose = [other for other in others if other.name.casefold() == wanted.casefold()]
    matches = exact or loose
    return matches[0] if matches else None


def _found(order_file: _Attachment, signature: _Attachment) -> FoundOrder:
    return FoundOrder(order_file.data, signature.data, order_file.name, False)


# --- orders pasted into the text ----------------------------------------------------------------


def _param(part: MIMEPart, name: str) -> str | None:
    value = part.get_param(name)
    if isinstance(value, tuple):
        value = collapse_rfc2231_value(value)
    return value.strip().lower() if isinstance(value, str) else None


def _pasted(part: MIMEPart) -> FoundOrder | None:
    """The order pasted into a text/plain part, signature appended, if there is one.

    The text is taken as UTF-8 (a part in another charset is converted, since what was pasted
    is text, not bytes), format=flowed is undone, and the signature ends at its END line (a mail
    signature or quoted text may follow it).
    """
    data = _decoded(part, None)
    if data is None:
        return None
    charset = part.get_content_charset()
    if charset is not None and charset not in _PLAIN_CHARSETS:
        with contextlib.suppress(LookupError, UnicodeError):
            data = data.decode(charset).encode("utf-8")
    if ARMOR_END not in data:
        return None
    if _param(part, "format") == "flowed":
        data = _unflow(data, delsp=_param(part, "delsp") == "yes")
    split = split_appended(data)
    if split is None or not split[0].strip():
        return None
    order, signature = split
    end = signature.find(ARMOR_END)
    if end >= 0:
        line_end = _LINE_BREAK.search(signature, end)
        signature = signature[: line_end.end()] if line_end else signature
    return FoundOrder(order, signature, _BODY_NAME, True)


def _unflow(data: bytes, *, delsp: bool = False) -> bytes:
    """Text sent as format=flowed (RFC 3676) as it was written: soft line breaks joined,
    space-stuffing removed, and with ``delsp`` the space before each soft break dropped.

    Lines end as they did in ``data`` (CRLF when it has any, else LF).
    """
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    lines = _LINE_BREAK.split(data)
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
