"""Reading one incoming mail message and finding the signed orders in it (docs/mail.md,
"Orders in mail").

Pure parsing: nothing here verifies a signature, reads YAML or knows a game. An order comes as

- an attachment pair: the order file ``X`` and its signature ``X.sig`` (or, when names do not pair,
  the only unpaired order-like attachment with the only unpaired signature of the same message);
- one attachment with the signature appended (split at the last BEGIN line);
- an order pasted into a plain-text body with the signature appended (format=flowed undone), also
  after a greeting, before a mail signature, in a quoted reply (``>`` prefixes) and in a message
  forwarded inline: the signature does not say where the signed bytes start, so every likely
  reading is handed on (:attr:`FoundOrder.alternatives`);
- the same pasted into an HTML body (a rich-text compose window), read as the page's text as
  rendered (``adjudicator.mail.richtext``), after the plain text: where both versions hold the
  same signature, the HTML's readings are added to the text's (the text version may be mangled);
- any of these inside an attached message (``message/rfc822``, "forward as attachment");
- the files inside Outlook's ``winmail.dat`` (``application/ms-tnef``), as if attached directly
  (``adjudicator.mail.tnef``); one that cannot be read makes the message unreadable.

Attachment bytes are kept exactly as decoded from their transfer encoding. The MIME parsing is the
standard library's ``email`` package; its defects decide when a message is too broken to read.

Size and time stay linear in the message's size: the stdlib parses a header field's structure
in time that grows with the square of its length, so the header fields :class:`Incoming` reports
are read here from the raw header block (itself capped at :data:`MAX_HEADER` bytes, measured
before anything is parsed); a field the stdlib would parse (Content-Type, ...) longer than
:data:`MAX_MIME_FIELD` characters is refused before it is parsed, and the parser is stopped
after :data:`MAX_PARTS` parts. Header fields, nesting, attached messages, pasted signatures and
the readings of each are bounded too.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from email import errors
from email.headerregistry import Address
from email.message import EmailMessage, Message, MIMEPart
from email.parser import BytesParser
from email.policy import EmailPolicy, Policy
from email.utils import collapse_rfc2231_value
from typing import TypeVar, cast

from adjudicator.mail.headerclasses import DEFAULT_POLICY, HeaderClasses
from adjudicator.mail.tnef import TnefError, is_tnef, tnef_files
from adjudicator.present.quoting import MAX_MSG_ID
from adjudicator.rules.contract import Msg, msg
from adjudicator.signing.sshsig import ARMOR_BEGIN, ARMOR_END, looks_armored, split_appended

_T = TypeVar("_T")

MAX_MESSAGE = 10 * 1024 * 1024  # bytes; larger messages are set aside unread
#: Bytes of the message's header block (up to the blank line); a longer one is not parsed.
MAX_HEADER = 256 * 1024
#: Header fields of the message, or of any MIME part in it.
MAX_FIELDS = 1000
#: Characters of a header field that the stdlib parser may parse (Content-Type, ...).
MAX_MIME_FIELD = 4 * 1024
#: MIME parts in the whole message, attached messages' parts included.
MAX_PARTS = 500
#: Attached messages inside attached messages that are still looked into.
MAX_ATTACHED_DEPTH = 4
#: Readings of one pasted order handed on (the most likely one and its alternatives).
MAX_READINGS = 64
#: Pasted signatures looked for in one message (all its text parts together).
MAX_PASTED = 8
#: Characters of the subject as handed on.
MAX_SUBJECT = 200
#: Characters of a Message-ID (and each References id): as long as an answer can write.
MAX_MESSAGE_ID = MAX_MSG_ID
#: References ids handed on (the first and the latest ones when there are more).
MAX_REFERENCES = 50
#: Characters of the Date header.
MAX_DATE = 80

#: The name of an order pasted into the text of a message.
_BODY_NAME = "message body"

#: Content types that say "YAML" whatever the file's name.
_YAML_TYPES = frozenset({"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"})
_YAML_SUFFIXES = (".yaml", ".yml")
#: Content types of Outlook's winmail.dat (a part of another type is one too when its bytes
#: start with the TNEF signature).
_TNEF_TYPES = frozenset({"application/ms-tnef", "application/vnd.ms-tnef"})
_ID_LINE = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?id[ \t]*:")
_PLAYER_LINE = re.compile(rb"(?m)^player[ \t]*:")
_LINE_BREAK = re.compile(rb"\r\n|\n")
#: An appended signature's BEGIN line: at the start of the data (after a BOM) or of a line.
#: Line ends in a header, as the stdlib parser splits them (not str.splitlines, which also
#: splits at form feeds and Unicode line separators inside a value).
_HEADER_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: The blank line that ends a header block.
_BLANK_LINE = re.compile(rb"\n\r?\n")
#: How deeply multiparts may nest before the message counts as malformed.
_MAX_DEPTH = 40
#: Bytes above a pasted signature searched for where the order starts (order files over 64 KiB
#: are refused anyway).
_MAX_PASTED_ORDER = 64 * 1024 + 1024
#: Lines of one armored signature (8 KiB at most, 70 columns).
_MAX_ARMOR_LINES = 200
_PLAIN_CHARSETS = frozenset({"us-ascii", "ascii", "utf-8", "utf8"})

# RFC 5322 3.6.4: msg-id = "<" id-left "@" id-right ">", id-left = dot-atom-text, id-right =
# dot-atom-text / no-fold-literal. Dots are allowed anywhere (real mail breaks the dot rules).
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+"
_MSG_ID = re.compile(rf"<{_ATEXT}@(?:{_ATEXT}|\[[!-Z^-~]*\])>")
_ANGLED = re.compile(r"<[^<>]*>")
_PRINTABLE_ASCII = re.compile(r"[ -~]*")
_MAILER_DAEMON = re.compile(
    r"(?i)(?<![A-Za-z0-9._+-])(?:mailer-daemon|postmaster)(?:@|>|\s*$|\s*[,;(])"
)
_TOKEN = re.compile(r"[A-Za-z0-9._-]{1,40}")

#: Parser defects that make a message unreadable, with what to tell the game master.
_FATAL_DEFECTS: tuple[tuple[type[errors.MessageDefect], str], ...] = (
    (errors.NoBoundaryInMultipartDefect, "mail-defect-no-boundary"),
    (errors.StartBoundaryNotFoundDefect, "mail-defect-boundary-missing"),
    (errors.CloseBoundaryNotFoundDefect, "mail-defect-not-closed"),
    (errors.MultipartInvariantViolationDefect, "mail-defect-no-parts"),
    (errors.FirstHeaderLineIsContinuationDefect, "mail-defect-continuation"),
    (errors.MissingHeaderBodySeparatorDefect, "mail-defect-no-separator"),
)
"""Each defect that makes a message unreadable, and the code of its words."""
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
    (a pasted order between a greeting and a mail signature, in a quoted reply, ...).
    At most MAX_READINGS - 1; line-end variants (CRLF/LF) are not repeated here, since the
    signature check tries them for every reading."""


@dataclass(frozen=True)
class Incoming:
    """What one message holds, as far as orders go; ``problem`` says why it cannot be read."""

    message_id: str | None
    """The Message-ID when it is one valid msg-id (:func:`valid_message_id`), else None: safe
    to put in an outgoing In-Reply-To or References header and to print."""
    sender: str | None
    """The one From address (addr-spec, printable, no spaces), or None."""
    subject: str
    """The subject as one line of printable text without control or format characters, at
    most MAX_SUBJECT characters ("" when there is none)."""
    references: tuple[str, ...]
    """The valid msg-ids of References (or a lone valid In-Reply-To), at most MAX_REFERENCES."""
    orders: tuple[FoundOrder, ...]
    unsigned: tuple[str, ...]
    problem: Msg | None
    automatic: str | None = None
    """Why the message is automatic mail that is never answered, as a short text (see
    :func:`automatic`: Auto-Submitted other than ``no``, Precedence bulk/junk/list, List-Id or
    List-Unsubscribe, an empty return path or a mailer-daemon/postmaster sender, a
    multipart/report, X-Autoreply/X-Autorespond, X-Auto-Response-Suppress All/AutoReply), or
    None for mail a person sent. Its orders are taken all the same."""
    date: str | None = None
    """The Date header as written, unfolded, when it is printable ASCII of at most MAX_DATE
    characters, else None; for notices to the game master."""
    text: str = ""
    """The message's text (its plain and HTML bodies, at most MAX_TEXT characters): where an
    open game looks for a confirmation code (docs/signup.md)."""


class _Unreadable(Exception):
    """The message cannot be read; ``problem`` says why."""

    def __init__(self, problem: Msg) -> None:
        super().__init__(problem.code)
        self.problem = problem


class _Policy(EmailPolicy):
    """The default policy, except that a header field longer than MAX_MIME_FIELD characters is
    never parsed (the stdlib parses a field in time that grows with the square of its length,
    and it parses each part's Content-Type while it splits the message into parts)."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        if len(value) > MAX_MIME_FIELD:
            raise _Unreadable(
                msg("mail-field-too-long", field=_quoted_text(name), cap=MAX_MIME_FIELD)
            )
        fetched: str = super().header_fetch_parse(name, value)
        return fetched


_POLICY = _Policy(header_factory=HeaderClasses())


def _policy() -> _Policy:
    """:data:`_POLICY` with a message factory that refuses the part after MAX_PARTS, so that
    the parser stops there (it takes tens of microseconds per part: 10 MB of empty parts would
    take more than a minute)."""
    count = 0

    def factory(policy: Policy[Message[str, str]]) -> Message[str, str]:
        nonlocal count
        count += 1
        if count > MAX_PARTS:
            raise _Unreadable(msg("mail-too-many-parts", cap=MAX_PARTS))
        return EmailMessage(policy=policy)

    policy: _Policy = _POLICY.clone(message_factory=factory)
    return policy


@dataclass(frozen=True)
class _Attachment:
    """A part of the message taken as a file: its place among the parts, its name and bytes,
    and whether its type is one a YAML file is sent as."""

    position: int
    scope: int  # which message (0: the message itself; attached messages count on)
    name: str
    data: bytes
    yaml_type: bool


@dataclass(frozen=True)
class _Body:
    """A text part of the message, read for a file pasted into it."""

    position: int
    part: MIMEPart
    html: bool = False  # a text/html part: read after the plain text (:func:`_pasted_html`)


# --- the message as a whole ---------------------------------------------------------------------


def read_message(raw: bytes) -> Incoming:
    """Everything :class:`Incoming` tells of the message ``raw``; never raises.

    A message over MAX_MESSAGE bytes, or whose header block is over MAX_HEADER bytes or holds
    over MAX_FIELDS fields, is not parsed: ``problem`` says why, and the header fields that
    :class:`Incoming` reports are read from its first MAX_HEADER bytes.
    """
    try:
        head, whole = _head(raw)
        fields = _fields(head)
    except Exception as exc:  # pragma: no cover - plain byte and string operations
        return Incoming(None, None, "", (), (), (), _crashed(exc))
    problem: Msg | None = None
    if len(raw) > MAX_MESSAGE:
        problem = msg("mail-too-large", cap=MAX_MESSAGE)
    elif not whole:
        problem = msg("mail-header-too-large", cap=MAX_HEADER)
    elif len(fields) > MAX_FIELDS:
        problem = msg("mail-too-many-fields", cap=MAX_FIELDS)
    if problem is not None:
        return _incoming(fields, (), (), problem)
    try:
        # The policy's message factory is EmailMessage, as with the default policy.
        message = cast(EmailMessage, BytesParser(policy=_policy()).parsebytes(raw))
    except _Unreadable as exc:
        return _incoming(fields, (), (), exc.problem)
    except Exception as exc:
        return _incoming(fields, (), (), _crashed(exc))
    try:
        orders, unsigned, text = _find_orders(message)
    except _Unreadable as exc:
        return _incoming(fields, (), (), exc.problem)
    except Exception as exc:
        return _incoming(fields, (), (), _crashed(exc))
    return replace(_incoming(fields, orders, unsigned, None), text=text)


def _crashed(exc: Exception) -> Msg:
    if isinstance(exc, RecursionError):
        return msg("mail-nested-too-deeply")
    return msg("mail-unreadable", error=type(exc).__name__)


def _head(raw: bytes) -> tuple[bytes, bool]:
    """(the header block of ``raw`` up to its blank line, whether that is all of it).

    Only the first MAX_HEADER bytes (and the blank line's) are looked at: when they hold no
    blank line and the message goes on, the header is too large and the prefix is returned.
    """
    if raw.startswith((b"\n", b"\r\n")):
        return b"", True
    prefix = raw[: MAX_HEADER + 3]
    blank = _BLANK_LINE.search(prefix)
    if blank is not None and blank.start() < MAX_HEADER:
        return prefix[: blank.start() + 1], True
    if len(raw) <= MAX_HEADER:
        return raw, True
    return raw[:MAX_HEADER], False


def _fields(head: bytes) -> list[tuple[str, str]]:
    """The header fields of a header block as (lower-case name, unfolded value), in order.

    Lines that are neither a field nor a continuation are skipped (the parser judges them);
    bytes that are not UTF-8 become U+FFFD. Linear in the size of ``head``.
    """
    text = head.decode("utf-8", "replace")
    fields: list[tuple[str, list[str]]] = []
    for line in _HEADER_LINE_BREAK.split(text):
        if line[:1] in (" ", "\t"):
            if fields:
                fields[-1][1].append(line)
            continue
        name, colon, value = line.partition(":")
        name = name.strip()
        if colon and name and all(33 <= ord(char) <= 126 for char in name):
            fields.append((name.lower(), [value]))
        elif not line.strip():
            break
    return [(name, "".join(parts).strip()) for name, parts in fields]


def _first(fields: list[tuple[str, str]], name: str) -> str | None:
    for key, value in fields:
        if key == name:
            return value
    return None


def _incoming(
    fields: list[tuple[str, str]],
    orders: tuple[FoundOrder, ...],
    unsigned: tuple[str, ...],
    problem: Msg | None,
) -> Incoming:
    return Incoming(
        message_id=_safe(_message_id, fields),
        sender=_safe(_sender, fields),
        subject=_safe(_subject, fields) or "",
        references=_safe(_references, fields) or (),
        orders=orders,
        unsigned=unsigned,
        problem=problem,
        automatic=_safe(automatic, fields),
        date=_safe(_date, fields),
    )


def _safe(
    read: Callable[[list[tuple[str, str]]], _T | None], fields: list[tuple[str, str]]
) -> _T | None:
    """``read(fields)``, or None when the header behind it cannot be read at all."""
    try:
        return read(fields)
    except Exception:
        return None


def _quoted_text(text: str) -> str:
    """``text`` from the message as it may appear in a ``problem``: a name such as
    ``Content-Type`` as it is, anything else quoted as escaped printable ASCII (at most 60
    characters of it)."""
    if re.fullmatch(r"[A-Za-z0-9-]{1,40}", text):
        return text
    return ascii(_clean(text)[:60])


def _clean(text: str) -> str:
    """``text`` with bytes that were not UTF-8 (kept as surrogates by the parser) replaced."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def valid_message_id(value: str) -> bool:
    """Whether ``value`` is an RFC 5322 msg-id of at most MAX_MESSAGE_ID characters.

    ``"<" id-left "@" id-right ">"`` in printable ASCII without spaces: id-left is atext and
    dots, id-right is atext and dots or a ``[...]`` literal. Such a value may go into an
    outgoing In-Reply-To or References header as it is.
    """
    return len(value) <= MAX_MESSAGE_ID and _MSG_ID.fullmatch(value) is not None


def _message_id(fields: list[tuple[str, str]]) -> str | None:
    """The Message-ID when the field holds exactly one valid msg-id (comments aside)."""
    value = _first(fields, "message-id")
    if value is None:
        return None
    ids = _ANGLED.findall(value)
    return ids[0] if len(ids) == 1 and valid_message_id(ids[0]) else None


def _sender(fields: list[tuple[str, str]]) -> str | None:
    """The one From address's addr-spec; None when there is none, several, or it is broken."""
    value = _first(fields, "from")
    if value is None or len(value) > MAX_MIME_FIELD:
        return None
    header = DEFAULT_POLICY.header_factory("from", value)
    if any(isinstance(defect, errors.InvalidHeaderDefect) for defect in header.defects):
        return None
    addresses: tuple[Address, ...] = getattr(header, "addresses", ())
    if len(addresses) != 1:
        return None
    address = addresses[0]
    spec = _clean(address.addr_spec)
    if not address.username or not address.domain or "\ufffd" in spec:
        return None
    if any(char.isspace() or char in "<>" or not char.isprintable() for char in spec):
        return None
    return spec


def _subject(fields: list[tuple[str, str]]) -> str | None:
    """The subject as one line of printable text, at most MAX_SUBJECT characters.

    Encoded words are decoded from the field's first few thousand characters only (a longer
    subject is cut anyway); control and format characters (bidi overrides too) become spaces,
    runs of white space one space.
    """
    value = _first(fields, "subject")
    if value is None:
        return None
    limit = 8 * MAX_SUBJECT
    if len(value) > limit:
        cut = value.rfind(" ", 0, limit)
        value = value[: cut if cut > 0 else limit]
    decoded = _clean(str(DEFAULT_POLICY.header_factory("subject", value)))
    return printable_line(decoded, MAX_SUBJECT)


def printable_line(text: str, limit: int) -> str:
    """``text`` as one line without control or format characters, at most ``limit`` long."""
    kept = [
        " " if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} else char
        for char in text[: 4 * limit]
    ]
    return " ".join("".join(kept).split())[:limit].rstrip()


def _references(fields: list[tuple[str, str]]) -> tuple[str, ...]:
    """The valid References ids (without References, a lone In-Reply-To id, RFC 5322 3.6.4).

    Ids that are not valid msg-ids are left out; of more than MAX_REFERENCES, the first and the
    latest ones are kept.
    """
    references = _first(fields, "references")
    if references is not None:
        ids = [found for found in _ANGLED.findall(references) if valid_message_id(found)]
        if len(ids) > MAX_REFERENCES:
            ids = ids[:1] + ids[-(MAX_REFERENCES - 1) :]
        return tuple(ids)
    in_reply_to = _ANGLED.findall(_first(fields, "in-reply-to") or "")
    if len(in_reply_to) == 1 and valid_message_id(in_reply_to[0]):
        return (in_reply_to[0],)
    return ()


def _date(fields: list[tuple[str, str]]) -> str | None:
    value = _first(fields, "date")
    if value is None or not value or len(value) > MAX_DATE:
        return None
    return value if _PRINTABLE_ASCII.fullmatch(value) else None


def _token(value: str) -> str:
    """The first word of a field's value (before parameters or a comment), safe to quote
    (letters, digits, ``._-``), or ``?``."""
    word = re.split(r"[;(]", value, maxsplit=1)[0].strip()
    return word if _TOKEN.fullmatch(word) else "?"


def automatic(fields: list[tuple[str, str]]) -> str | None:
    """Why a message with these header fields is automatic mail, or None (RFC 3834).

    RFC 3834 section 2 asks responders not to answer automatic mail. Counted as automatic:
    ``Auto-Submitted`` with any value but ``no`` (RFC 3834 5.1, parameters allowed);
    ``Precedence: bulk``, ``junk`` or ``list`` (the older convention RFC 3834 3.1.8 mentions);
    ``List-Id`` (RFC 2919) or ``List-Unsubscribe`` (RFC 2369, which bulk senders carry); an
    empty return path (``Return-Path: <>``, RFC 3834 2: never answer a null address) or a
    From, Sender or Return-Path whose local part is ``MAILER-DAEMON`` or ``postmaster``; a
    ``multipart/report`` (delivery and disposition notifications, RFC 6522); ``X-Autoreply``
    and ``X-Autorespond`` (vacation programs); Microsoft's ``X-Auto-Response-Suppress`` when it
    holds ``All`` or ``AutoReply`` (the sender asks for no automatic replies: MS-OXCMAIL
    2.2.3.2.14). The reason is a short text; any word from the message in it is letters, digits
    and ``._-`` only.
    """
    auto_submitted = _first(fields, "auto-submitted")
    if auto_submitted is not None and _token(auto_submitted).lower() != "no":
        return f"Auto-Submitted: {_token(auto_submitted)}"
    precedence = _token(_first(fields, "precedence") or "").lower()
    if precedence in {"bulk", "junk", "list"}:
        return f"Precedence: {precedence}"
    for name, shown in (("list-id", "List-Id"), ("list-unsubscribe", "List-Unsubscribe")):
        if _first(fields, name) is not None:
            return f"mailing list ({shown})"
    return_path = _first(fields, "return-path")
    if return_path is not None and return_path.replace(" ", "") == "<>":
        return "empty return path (Return-Path: <>)"
    for name in ("from", "sender", "return-path"):
        value = _first(fields, name)
        if value is not None and _MAILER_DAEMON.search(value[:MAX_MIME_FIELD]):
            return "sent by a mailer daemon or postmaster"
    content_type = (_first(fields, "content-type") or "").split(";", 1)[0].strip().lower()
    if content_type == "multipart/report":
        return "a delivery or disposition report (multipart/report)"
    for name, shown in (("x-autoreply", "X-Autoreply"), ("x-autorespond", "X-Autorespond")):
        if _first(fields, name) is not None:
            return shown
    suppress = _first(fields, "x-auto-response-suppress")
    if suppress is not None:
        words = {word.strip().lower() for word in suppress.split(",")}
        if words & {"all", "autoreply"}:
            return "X-Auto-Response-Suppress"
    return None


# --- finding the orders -------------------------------------------------------------------------


def _find_orders(message: EmailMessage) -> tuple[tuple[FoundOrder, ...], tuple[str, ...], str]:
    """(orders, names of unsigned order files, text) of a parsed message; raises _Unreadable."""
    if not message.keys():
        raise _Unreadable(msg("mail-no-header"))
    walk = _Walk()
    walk.visit(message, True, 0, 0, 0)
    attachments: list[_Attachment] = []
    bodies: list[_Body] = []
    for position, (part, in_body, scope) in enumerate(walk.leaves):
        _sort_leaf(part, in_body, position, scope, attachments, bodies)
    found: list[tuple[int, FoundOrder]] = []
    unsigned: list[tuple[int, str]] = []
    for scope in sorted({attachment.scope for attachment in attachments}):
        _pair([a for a in attachments if a.scope == scope], found, unsigned)
    taken = {_squeeze(order.signature) for _, order in found}
    pasted_count = 0
    # The plain text first; then the HTML, whose readings of a signature found in the text are
    # added to that order's (the text version may be mangled), and whose other orders are new.
    for body in sorted(bodies, key=lambda body: body.html):
        if pasted_count >= MAX_PASTED:
            break
        read = _pasted_html if body.html else _pasted
        for pasted in read(body.part, MAX_PASTED - pasted_count):
            pasted_count += 1
            squeezed = _squeeze(pasted.signature)
            if squeezed not in taken:
                taken.add(squeezed)
                found.append((body.position, pasted))
            elif body.html:
                _merge(found, squeezed, pasted)
    orders: list[FoundOrder] = []
    for _, order in sorted(found, key=lambda item: item[0]):
        if order not in orders:
            orders.append(order)
    return tuple(orders), tuple(name for _, name in sorted(unsigned)), _text_of(bodies)


MAX_TEXT = 64 * 1024


def _text_of(bodies: list[_Body]) -> str:
    """The text of the message's bodies, at most MAX_TEXT characters (a body that cannot be
    decoded adds nothing)."""
    found = []
    for body in bodies:
        data = body.part.get_payload(decode=True)  # transfer encoding undone; never raises
        if not isinstance(data, bytes):
            continue
        charset = body.part.get_content_charset() or "utf-8"
        try:
            found.append(data[: 4 * MAX_TEXT].decode(charset, "replace")[:MAX_TEXT])
        except LookupError:  # a charset Python does not know
            found.append(data[: 4 * MAX_TEXT].decode("utf-8", "replace")[:MAX_TEXT])
    return "\n".join(found)[:MAX_TEXT]


class _Walk:
    """The leaf parts of a message in order, each with whether it may be the text of the
    message and which message it belongs to (attached messages are looked into).

    In a multipart/alternative only the (first) text/plain alternative is text; attachments are
    taken from every alternative. Every part counts against MAX_PARTS and the nesting depth,
    attached messages' parts too.
    """

    def __init__(self) -> None:
        self.parts = 0
        self.scopes = 0
        self.leaves: list[tuple[MIMEPart, bool, int]] = []

    def visit(self, part: Message, in_body: bool, depth: int, scope: int, attached: int) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise _Unreadable(msg("mail-too-many-parts", cap=MAX_PARTS))
        if depth > _MAX_DEPTH:
            raise _Unreadable(msg("mail-nested-too-deep", cap=_MAX_DEPTH))
        if not isinstance(part, MIMEPart):  # pragma: no cover - the default policy makes these
            return
        _check_part(part)
        maintype = part.get_content_maintype()
        if maintype == "message":
            self._attached(part, depth, attached)
            return
        if maintype == "multipart" and not part.is_multipart():
            return
        if not part.is_multipart():
            self.leaves.append((part, in_body, scope))
            return
        children = list(part.iter_parts())
        if part.get_content_subtype() == "alternative":
            plain = [child for child in children if child.get_content_type() == "text/plain"]
            text = plain[0] if plain else None
            for child in children:
                # The first text/plain, and every HTML version (with its related parts).
                body = child is text or child.get_content_type() != "text/plain"
                self.visit(child, in_body and body, depth + 1, scope, attached)
        else:
            for child in children:
                self.visit(child, in_body, depth + 1, scope, attached)

    def _attached(self, part: MIMEPart, depth: int, attached: int) -> None:
        """An attached message (forward as attachment): its parts, as a message of its own."""
        if part.get_content_subtype() not in {"rfc822", "global"}:
            return
        if attached >= MAX_ATTACHED_DEPTH:
            return
        payload = part.get_payload()
        if isinstance(payload, list) and len(payload) == 1 and isinstance(payload[0], Message):
            self.scopes += 1
            self.visit(payload[0], True, depth + 1, self.scopes, attached + 1)


def _check_part(part: MIMEPart) -> None:
    """Refuse a part with too many header fields (each lookup scans them all), or defects.

    (A field too long to parse in linear time is refused by :class:`_Policy` when it is read.)
    """
    for count, _ in enumerate(part.raw_items(), 1):
        if count > MAX_FIELDS:
            raise _Unreadable(msg("mail-part-too-many-fields", cap=MAX_FIELDS))
    for defect in part.defects:
        for kind, code in _FATAL_DEFECTS:
            if isinstance(defect, kind):
                raise _Unreadable(msg("mail-mime-broken", what=Msg(code, {})))


def _sort_leaf(
    part: MIMEPart,
    in_body: bool,
    position: int,
    scope: int,
    attachments: list[_Attachment],
    bodies: list[_Body],
) -> None:
    """File one leaf part as an attachment or as text of the message (or leave it)."""
    name = part.get_filename()
    content_type = part.get_content_type()
    attached = part.get_content_disposition() == "attachment" or bool(name)
    if not attached and part.get_content_maintype() == "text":
        if in_body and content_type in ("text/plain", "text/html"):
            bodies.append(_Body(position, part, html=content_type == "text/html"))
        return
    data = _decoded(part, name)
    if data is None:
        return
    label = _clean(name) if name else f"unnamed attachment {len(attachments) + 1}"
    if content_type in _TNEF_TYPES or is_tnef(data):
        for inner, content in _tnef(label, data):
            inner_label = inner or f"unnamed attachment {len(attachments) + 1}"
            attachments.append(_Attachment(position, scope, inner_label, content, False))
        return
    attachments.append(_Attachment(position, scope, label, data, content_type in _YAML_TYPES))


def _tnef(label: str, data: bytes) -> list[tuple[str, bytes]]:
    """The files in a winmail.dat; raises _Unreadable when it cannot be read."""
    try:
        return [(_clean(name), content) for name, content in tnef_files(data)]
    except TnefError as exc:
        what = Msg(exc.code, dict(exc.params))
        raise _Unreadable(msg("mail-tnef-broken", name=_quoted_text(label), what=what)) from None


def _decoded(part: MIMEPart, name: str | None) -> bytes | None:
    """The part's bytes with the transfer encoding undone; raises _Unreadable on bad base64."""
    data = part.get_payload(decode=True)
    if any(isinstance(defect, _BASE64_DEFECTS) for defect in part.defects):
        if name:
            raise _Unreadable(msg("mail-attachment-not-base64", name=_quoted_text(name)))
        raise _Unreadable(msg("mail-part-not-base64"))
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

#: A BEGIN line, after the quote prefix of its quoted-reply depth (``> ``, ``>> ``, ``> > ``, ...,
#: or the tab that s-nail and other mailx quote with by default).
_QUOTED_BEGIN = re.compile(rb"((?:> ?|\t)*)" + re.escape(ARMOR_BEGIN) + rb"[ \t]*")
_NBSP = "\u00a0".encode()
#: Lines that may open an order file above its ``id:`` line (comments, a document start).
_PREAMBLE = re.compile(rb"(?:\xef\xbb\xbf)?(?:#|---|%YAML)")


def _param(part: MIMEPart, name: str) -> str | None:
    value = part.get_param(name)
    if isinstance(value, tuple):
        value = collapse_rfc2231_value(value)
    return value.strip().lower() if isinstance(value, str) else None


def _pasted(part: MIMEPart, limit: int) -> list[FoundOrder]:
    """The orders pasted into a text/plain part, each with its signature appended.

    The text is taken as UTF-8 (a part in another charset is converted, since what was pasted
    is text, not bytes) and format=flowed is undone (quotes too), then :func:`pasted_orders`.
    """
    data = _decoded(part, None)
    if data is None or ARMOR_END not in data:
        return []
    charset = part.get_content_charset()
    if charset is not None and charset not in _PLAIN_CHARSETS:
        with contextlib.suppress(LookupError, UnicodeError):
            data = data.decode(charset).encode("utf-8")
    if _param(part, "format") == "flowed":
        data = _unflow(data, delsp=_param(part, "delsp") == "yes")
    return pasted_orders(data, limit)


def _pasted_html(part: MIMEPart, limit: int) -> list[FoundOrder]:
    """The orders pasted into a text/html part (``adjudicator.mail.richtext``): the text of
    the page as rendered, then :func:`pasted_orders` (each rendering that the page allows,
    their readings merged). A part larger than ``MAX_HTML`` is read as far as that."""
    data = _decoded(part, None)
    if data is None or b"SIGNATURE-----" not in data:  # the source may wrap "END SSH SIGNATURE"
        return []
    from adjudicator.mail.richtext import MAX_HTML, html_texts  # (html.parser: only here)

    charset = part.get_content_charset() or "utf-8"
    try:
        html = data[: 4 * MAX_HTML].decode(charset, "replace")
    except LookupError:
        html = data[: 4 * MAX_HTML].decode("utf-8", "replace")
    found: list[FoundOrder] = []
    for text in html_texts(html):
        for pasted in pasted_orders(text.encode("utf-8"), limit):
            same = [order for order in found if order.signature == pasted.signature]
            if same:
                found[found.index(same[0])] = _merged(same[0], pasted)
            elif len(found) < limit:
                found.append(pasted)
    return found


def _merge(found: list[tuple[int, FoundOrder]], squeezed: bytes, pasted: FoundOrder) -> None:
    """Add the readings of ``pasted`` to the pasted order found with the same signature."""
    for index, (position, order) in enumerate(found):
        if order.pasted and _squeeze(order.signature) == squeezed:
            found[index] = (position, _merged(order, pasted))
            return


def _merged(first: FoundOrder, second: FoundOrder) -> FoundOrder:
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
    lines = _LINE_BREAK.split(text)
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
            found.append(FoundOrder(readings[0], signature, _BODY_NAME, True, alternatives))
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
        if _ID_LINE.match(region[start]):
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


def _unflow(data: bytes, *, delsp: bool = False) -> bytes:
    """Text sent as format=flowed (RFC 3676) as it was written: soft line breaks joined,
    space-stuffing removed, and with ``delsp`` the space before each soft break dropped.

    Quoted lines keep their depth, written as ``>`` marks and one space. Lines end as they did
    in ``data`` (CRLF when it has any, else LF).
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
