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

Size and time stay linear in the message's size: the header fields :class:`Incoming` reports
are read from the raw header block (:mod:`adjudicator.mail.headers`, capped at
:data:`MAX_HEADER` bytes, measured before anything is parsed), the readings of a pasted order are
:mod:`adjudicator.mail.pasted`'s; a field the stdlib would parse (Content-Type, ...) longer than
:data:`MAX_MIME_FIELD` characters is refused before it is parsed, and the parser is stopped
after :data:`MAX_PARTS` parts. Header fields, nesting, attached messages, pasted signatures and
the readings of each are bounded too.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from email import errors
from email.message import EmailMessage, Message, MIMEPart
from email.parser import BytesParser
from email.policy import EmailPolicy, Policy
from email.utils import collapse_rfc2231_value
from typing import TypeVar, cast

from adjudicator.mail import headers
from adjudicator.mail.headerclasses import HeaderClasses
from adjudicator.mail.headers import MAX_HEADER, MAX_MIME_FIELD, clean
from adjudicator.mail.pasted import ID_LINE, MAX_PASTED, FoundOrder, merged, pasted_orders, unflow
from adjudicator.mail.tnef import TnefError, is_tnef, tnef_files
from adjudicator.rules.contract import Msg, msg
from adjudicator.signing.sshsig import ARMOR_END, looks_armored, split_appended

__all__ = ["MAX_MESSAGE", "FoundOrder", "Incoming", "read_message"]

_T = TypeVar("_T")

MAX_MESSAGE = 10 * 1024 * 1024  # bytes; larger messages are set aside unread
#: Header fields of the message, or of any MIME part in it.
MAX_FIELDS = 1000
#: MIME parts in the whole message, attached messages' parts included.
MAX_PARTS = 500
#: Attached messages inside attached messages that are still looked into.
MAX_ATTACHED_DEPTH = 4

#: Content types that say "YAML" whatever the file's name.
_YAML_TYPES = frozenset({"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"})
_YAML_SUFFIXES = (".yaml", ".yml")
#: Content types of Outlook's winmail.dat (a part of another type is one too when its bytes
#: start with the TNEF signature).
_TNEF_TYPES = frozenset({"application/ms-tnef", "application/vnd.ms-tnef"})
_PLAYER_LINE = re.compile(rb"(?m)^player[ \t]*:")
#: How deeply multiparts may nest before the message counts as malformed.
_MAX_DEPTH = 40
_PLAIN_CHARSETS = frozenset({"us-ascii", "ascii", "utf-8", "utf8"})


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
        head, whole = headers.head_of(raw)
        fields = headers.fields_of(head)
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


def _incoming(
    fields: list[tuple[str, str]],
    orders: tuple[FoundOrder, ...],
    unsigned: tuple[str, ...],
    problem: Msg | None,
) -> Incoming:
    return Incoming(
        message_id=_safe(headers.message_id_of, fields),
        sender=_safe(headers.sender_of, fields),
        subject=_safe(headers.subject_of, fields) or "",
        references=_safe(headers.references_of, fields) or (),
        orders=orders,
        unsigned=unsigned,
        problem=problem,
        automatic=_safe(headers.automatic, fields),
        date=_safe(headers.date_of, fields),
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
    return ascii(clean(text)[:60])


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
    label = clean(name) if name else f"unnamed attachment {len(attachments) + 1}"
    if content_type in _TNEF_TYPES or is_tnef(data):
        for inner, content in _tnef(label, data):
            inner_label = inner or f"unnamed attachment {len(attachments) + 1}"
            attachments.append(_Attachment(position, scope, inner_label, content, False))
        return
    attachments.append(_Attachment(position, scope, label, data, content_type in _YAML_TYPES))


def _tnef(label: str, data: bytes) -> list[tuple[str, bytes]]:
    """The files in a winmail.dat; raises _Unreadable when it cannot be read."""
    try:
        return [(clean(name), content) for name, content in tnef_files(data)]
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
        and ID_LINE.search(data) is not None
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
        data = unflow(data, delsp=_param(part, "delsp") == "yes")
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
                found[found.index(same[0])] = merged(same[0], pasted)
            elif len(found) < limit:
                found.append(pasted)
    return found


def _merge(found: list[tuple[int, FoundOrder]], squeezed: bytes, pasted: FoundOrder) -> None:
    """Add the readings of ``pasted`` to the pasted order found with the same signature."""
    for index, (position, order) in enumerate(found):
        if order.pasted and _squeeze(order.signature) == squeezed:
            found[index] = (position, merged(order, pasted))
            return
