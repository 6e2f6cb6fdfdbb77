"""The header fields of an incoming message, read from its raw header block.

The standard library parses a header field's structure in time that grows with the square of
its length, so the fields a message is answered by (Message-ID, From, Subject, References,
Date, and what marks automatic mail) are read here from the raw bytes, in time linear in their
size: the block is cut at :data:`MAX_HEADER` bytes before anything is parsed, and each value
handed on is checked and bounded.
"""

from __future__ import annotations

import re
import unicodedata
from email import errors
from email.headerregistry import Address

from adjudicator.mail.headerclasses import DEFAULT_POLICY
from adjudicator.present.quoting import MAX_MSG_ID

#: Bytes of the message's header block (up to the blank line); a longer one is not parsed.
MAX_HEADER = 256 * 1024
#: Characters of a header field that the stdlib parser may parse (Content-Type, ...).
MAX_MIME_FIELD = 4 * 1024
#: Characters of the subject as handed on.
MAX_SUBJECT = 200
#: Characters of a Message-ID (and each References id): as long as an answer can write.
MAX_MESSAGE_ID = MAX_MSG_ID
#: References ids handed on (the first and the latest ones when there are more).
MAX_REFERENCES = 50
#: Characters of the Date header.
MAX_DATE = 80
#: An appended signature's BEGIN line: at the start of the data (after a BOM) or of a line.
#: Line ends in a header, as the stdlib parser splits them (not str.splitlines, which also
#: splits at form feeds and Unicode line separators inside a value).
_HEADER_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: The blank line that ends a header block.
_BLANK_LINE = re.compile(rb"\n\r?\n")
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


def head_of(raw: bytes) -> tuple[bytes, bool]:
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


def fields_of(head: bytes) -> list[tuple[str, str]]:
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


def first(fields: list[tuple[str, str]], name: str) -> str | None:
    for key, value in fields:
        if key == name:
            return value
    return None


def clean(text: str) -> str:
    """``text`` with bytes that were not UTF-8 (kept as surrogates by the parser) replaced."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def valid_message_id(value: str) -> bool:
    """Whether ``value`` is an RFC 5322 msg-id of at most MAX_MESSAGE_ID characters.

    ``"<" id-left "@" id-right ">"`` in printable ASCII without spaces: id-left is atext and
    dots, id-right is atext and dots or a ``[...]`` literal. Such a value may go into an
    outgoing In-Reply-To or References header as it is.
    """
    return len(value) <= MAX_MESSAGE_ID and _MSG_ID.fullmatch(value) is not None


def message_id_of(fields: list[tuple[str, str]]) -> str | None:
    """The Message-ID when the field holds exactly one valid msg-id (comments aside)."""
    value = first(fields, "message-id")
    if value is None:
        return None
    ids = _ANGLED.findall(value)
    return ids[0] if len(ids) == 1 and valid_message_id(ids[0]) else None


def sender_of(fields: list[tuple[str, str]]) -> str | None:
    """The one From address's addr-spec; None when there is none, several, or it is broken."""
    value = first(fields, "from")
    if value is None or len(value) > MAX_MIME_FIELD:
        return None
    header = DEFAULT_POLICY.header_factory("from", value)
    if any(isinstance(defect, errors.InvalidHeaderDefect) for defect in header.defects):
        return None
    addresses: tuple[Address, ...] = getattr(header, "addresses", ())
    if len(addresses) != 1:
        return None
    address = addresses[0]
    spec = clean(address.addr_spec)
    if not address.username or not address.domain or "\ufffd" in spec:
        return None
    if any(char.isspace() or char in "<>" or not char.isprintable() for char in spec):
        return None
    return spec


def subject_of(fields: list[tuple[str, str]]) -> str | None:
    """The subject as one line of printable text, at most MAX_SUBJECT characters.

    Encoded words are decoded from the field's first few thousand characters only (a longer
    subject is cut anyway); control and format characters (bidi overrides too) become spaces,
    runs of white space one space.
    """
    value = first(fields, "subject")
    if value is None:
        return None
    limit = 8 * MAX_SUBJECT
    if len(value) > limit:
        cut = value.rfind(" ", 0, limit)
        value = value[: cut if cut > 0 else limit]
    decoded = clean(str(DEFAULT_POLICY.header_factory("subject", value)))
    return printable_line(decoded, MAX_SUBJECT)


def printable_line(text: str, limit: int) -> str:
    """``text`` as one line without control or format characters, at most ``limit`` long."""
    kept = [
        " " if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} else char
        for char in text[: 4 * limit]
    ]
    return " ".join("".join(kept).split())[:limit].rstrip()


def references_of(fields: list[tuple[str, str]]) -> tuple[str, ...]:
    """The valid References ids (without References, a lone In-Reply-To id, RFC 5322 3.6.4).

    Ids that are not valid msg-ids are left out; of more than MAX_REFERENCES, the first and the
    latest ones are kept.
    """
    references = first(fields, "references")
    if references is not None:
        ids = [found for found in _ANGLED.findall(references) if valid_message_id(found)]
        if len(ids) > MAX_REFERENCES:
            ids = ids[:1] + ids[-(MAX_REFERENCES - 1) :]
        return tuple(ids)
    in_reply_to = _ANGLED.findall(first(fields, "in-reply-to") or "")
    if len(in_reply_to) == 1 and valid_message_id(in_reply_to[0]):
        return (in_reply_to[0],)
    return ()


def date_of(fields: list[tuple[str, str]]) -> str | None:
    value = first(fields, "date")
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
    auto_submitted = first(fields, "auto-submitted")
    if auto_submitted is not None and _token(auto_submitted).lower() != "no":
        return f"Auto-Submitted: {_token(auto_submitted)}"
    precedence = _token(first(fields, "precedence") or "").lower()
    if precedence in {"bulk", "junk", "list"}:
        return f"Precedence: {precedence}"
    for name, shown in (("list-id", "List-Id"), ("list-unsubscribe", "List-Unsubscribe")):
        if first(fields, name) is not None:
            return f"mailing list ({shown})"
    return_path = first(fields, "return-path")
    if return_path is not None and return_path.replace(" ", "") == "<>":
        return "empty return path (Return-Path: <>)"
    for name in ("from", "sender", "return-path"):
        value = first(fields, name)
        if value is not None and _MAILER_DAEMON.search(value[:MAX_MIME_FIELD]):
            return "sent by a mailer daemon or postmaster"
    content_type = (first(fields, "content-type") or "").split(";", 1)[0].strip().lower()
    if content_type == "multipart/report":
        return "a delivery or disposition report (multipart/report)"
    for name, shown in (("x-autoreply", "X-Autoreply"), ("x-autorespond", "X-Autorespond")):
        if first(fields, name) is not None:
            return shown
    suppress = first(fields, "x-auto-response-suppress")
    if suppress is not None:
        words = {word.strip().lower() for word in suppress.split(",")}
        if words & {"all", "autoreply"}:
            return "X-Auto-Response-Suppress"
    return None
