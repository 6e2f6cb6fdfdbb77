"""Composing the messages the adjudicator sends: reports, receipts, digests and notices.

Pure functions: nothing here reads files, the clock aside (every message gets a Date, from
``adjudicator.store.clock``, so ``ADJUDICATOR_NOW`` applies), or the network. Every message is
marked ``Auto-Submitted`` (RFC 3834): ``auto-replied`` for answers (receipts, digests of them),
``auto-generated`` for everything else (reports, reminders, notices).

Messages use the SMTP policy (CRLF line ends) with 7-bit transfer encodings only, so a
non-ASCII report travels as quoted-printable or base64 through any server, 8BITMIME or not, and
non-ASCII headers are encoded (RFC 2047, and RFC 2231 for file names). Message-ID, In-Reply-To
and References never are: the stdlib would write an id longer than a folded line as encoded-words,
which no program threads on, so :data:`POLICY` writes them as they are, folded only at the white
space between two ids (:func:`fold_ids`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, parseaddr

from adjudicator.mail.headerclasses import HeaderClasses
from adjudicator.present.pictures import CID_DOMAIN
from adjudicator.present.quoting import msg_id
from adjudicator.store import clock

#: Header fields whose values are msg-ids only (RFC 5322 3.6.4), written by :func:`fold_ids`.
ID_FIELDS = frozenset({"message-id", "in-reply-to", "references"})
FOLD_AT = 78
"""The length a folded header line keeps to when it can (RFC 5322 2.1.1)."""


class _Policy(policy.EmailPolicy):
    """The stdlib's policy, but for the fields of :data:`ID_FIELDS`, which it would write as
    RFC 2047 encoded-words when an id is longer than a line: these :func:`fold_ids` writes."""

    def fold(self, name: str, value: str) -> str:
        if name.lower() in ID_FIELDS and str(value).isascii():
            return fold_ids(name, str(value), self.linesep)
        folded: str = super().fold(name, value)
        return folded

    def fold_binary(self, name: str, value: str) -> bytes:
        if name.lower() in ID_FIELDS and str(value).isascii():
            return fold_ids(name, str(value), self.linesep).encode("ascii")
        folded: bytes = super().fold_binary(name, value)
        return folded


POLICY = _Policy(linesep="\r\n", cte_type="7bit", header_factory=HeaderClasses())
"""The SMTP policy (CRLF), with bodies in 7-bit encodings: never relies on 8BITMIME; and ids
written as they are (:class:`_Policy`)."""

MAX_REFERENCES = 20
"""The most Message-IDs an answer's References carries: the first of the thread and the latest."""
MAX_REFERENCES_LENGTH = 4000
"""The most characters of an answer's References value (ids and the spaces between them): a
thread of Exchange's long ids is trimmed the same way (the first id and the latest that fit)."""

_ATOM_UNSAFE = re.compile(r"[^A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+")


def report_mail(
    *,
    sender: str,
    to: str,
    game_id: str,
    player: str,
    turn: int,
    body: str,
    form: str | None,
    message_id: str,
    html: str | None = None,
    pictures: Mapping[str, bytes] | None = None,
    subject: str,
    order_page: str | None = None,
) -> EmailMessage:
    """A player's report for a turn; the order form attached when the player owes an order.

    The report is the text part, and, when ``html`` is given, the same report as HTML beside it
    (``multipart/alternative``), its ``pictures`` as PNG parts of a ``multipart/related`` that
    the page names by ``cid:`` (Gmail and Outlook show neither inline SVG nor ``data:`` images).
    The form goes as ``<game_id>-turn<turn>-<player>.yaml``, text/plain in UTF-8 (so every mail
    client shows it) with Content-Disposition attachment (so it is saved as a file), in base64:
    saved, it is byte for byte the form written (a text encoding would make its line ends CRLF).
    """
    message = _new(sender, to, subject, message_id)
    message["Reply-To"] = _addresses(sender)  # where orders go: the game's address
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(body, charset="utf-8")
    if html is not None:
        message.add_alternative(html, subtype="html", charset="utf-8")
        page = list(message.iter_parts())[-1]
        assert isinstance(page, EmailMessage)
        for name, data in sorted((pictures or {}).items()):
            page.add_related(
                data,
                maintype="image",
                subtype="png",
                cid=f"<{name}@{CID_DOMAIN}>",
                disposition="inline",
                filename=f"{name}.png",
            )
    if form is not None:
        message.add_attachment(
            form.encode("utf-8"),
            maintype="text",
            subtype="plain",
            cte="base64",
            params={"charset": "utf-8"},
            disposition="attachment",
            filename=f"{game_id}-turn{turn}-{player}.yaml",
        )
    if order_page is not None:  # the order page beside the form (docs/order-page.md)
        _attach_page(message, order_page, f"{game_id}-turn{turn}-{player}.html")
    return message


def _attach_page(message: EmailMessage, page: str, name: str, subtype: str = "html") -> None:
    """A page (a signing page; ``subtype="markdown"``: the player's guide) attached as the file
    ``name`` in UTF-8 (base64: saved, it is the text written)."""
    message.add_attachment(
        page.encode("utf-8"),
        maintype="text",
        subtype=subtype,
        cte="base64",
        params={"charset": "utf-8"},
        disposition="attachment",
        filename=name,
    )


def welcome_mail(
    *,
    sender: str,
    to: str,
    subject: str,
    body: str,
    html: str,
    message_id: str,
    notice_page: tuple[str, str] | None = None,
    guide: tuple[str, str] | None = None,
) -> EmailMessage:
    """A player's welcome: text, and the same as HTML beside it (``multipart/alternative``),
    with ``Reply-To`` the game's address, where orders go; ``notice_page`` (file name, page)
    attached, as the order page is to a report, and the player's ``guide`` (file name, text)."""
    message = _new(sender, to, subject, message_id)
    message["Reply-To"] = _addresses(sender)
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(body, charset="utf-8")
    message.add_alternative(html, subtype="html", charset="utf-8")
    if notice_page is not None:
        _attach_page(message, notice_page[1], notice_page[0])
    if guide is not None:  # the player's guide, as Markdown text any mail program shows
        _attach_page(message, guide[1], guide[0], subtype="markdown")
    return message


def address_of(sender: str) -> str:
    """The bare address of ``sender`` (``Sultan GM <gm@example.org>``: ``gm@example.org``)."""
    return parseaddr(_one_line(sender))[1] or sender


def receipt_mail(
    *,
    sender: str,
    to: str,
    game_id: str,
    subject: str,
    in_reply_to: str | None,
    references: Sequence[str],
    body: str,
    message_id: str,
) -> EmailMessage:
    """An answer (``Auto-Submitted: auto-replied``) in the thread of the message it answers.

    ``subject`` is the adjudicator's own (``[cairo] turn 4: order accepted``), never the
    player's: the subject of an incoming message is a stranger's choice. In-Reply-To and
    References (``references`` then ``in_reply_to``, :func:`trimmed`) carry only valid msg-ids;
    anything else given is left out. Both are written as they are, however long
    (:func:`fold_ids`). ``game_id`` is recorded in an ``X-Adjudicator-Game`` header.
    """
    message = _new(sender, to, subject, message_id)
    message["Auto-Submitted"] = "auto-replied"
    message["X-Adjudicator-Game"] = _one_line(game_id)
    parent = _message_ids([in_reply_to]) if in_reply_to else []
    if parent:
        message["In-Reply-To"] = parent[0]
    chain = trimmed(_message_ids([*references, *parent]))
    if chain:
        message["References"] = " ".join(chain)
    message.set_content(body, charset="utf-8")
    return message


def digest_mail(
    *, sender: str, to: str, game_id: str, subject: str, body: str, message_id: str
) -> EmailMessage:
    """The answers held back from one address in an hour, as one answer
    (``Auto-Submitted: auto-replied``); it answers several messages, so it threads on none."""
    message = _new(sender, to, subject, message_id)
    message["Auto-Submitted"] = "auto-replied"
    message["X-Adjudicator-Game"] = _one_line(game_id)
    message.set_content(body, charset="utf-8")
    return message


def notice_mail(
    *,
    sender: str,
    to: str,
    subject: str,
    body: str,
    message_id: str,
    reply_to: str | None = None,
) -> EmailMessage:
    """A notice (``Auto-Submitted: auto-generated``): to the game master (a message set aside,
    a game waiting) or to a player (a reminder, the game master's action); ``reply_to``: the
    game's address, on a notice that asks for an order (a reminder).

    A notice never carries an incoming message: it names it (see ``adjudicator.mail.ingest``),
    so a game master's address that bounces cannot make mail grow without end.
    """
    message = _new(sender, to, subject, message_id)
    if reply_to is not None:
        message["Reply-To"] = _addresses(reply_to)
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(body, charset="utf-8")
    return message


def new_message_id(sender: str, label: str) -> str:
    """A new Message-ID, ``<label.random@domain-of-sender>``.

    ``label`` is made a dot-atom (other characters become ``-``); the random part is 128 bits
    from ``secrets``. A sender without a usable domain gives ``localhost``.
    """
    parts = [_ATOM_UNSAFE.sub("-", part) for part in label.split(".")]
    atom = ".".join(part for part in parts if part) or "message"
    return f"<{atom}.{secrets.token_hex(16)}@{_domain(sender)}>"


def _new(sender: str, to: str, subject: str, message_id: str) -> EmailMessage:
    message = EmailMessage(policy=POLICY)
    message["From"] = _addresses(sender)
    message["To"] = _addresses(to)
    message["Subject"] = _one_line(subject)
    message["Date"] = format_datetime(clock.now())
    message["Message-ID"] = _one_line(message_id)
    return message


def _addresses(value: str) -> str | list[Address]:
    """The addresses in ``value``, with non-ASCII domains in their IDNA (xn--) form.

    A value that does not parse as addresses is left as it is (the policy then refuses what
    cannot be sent).
    """
    parsed = getaddresses([_one_line(value)])
    found: list[Address] = []
    for name, addr in parsed:
        local, at, domain = addr.rpartition("@")
        if not at or not local or not domain:
            return _one_line(value)
        found.append(Address(display_name=name, username=local, domain=_idna(domain) or domain))
    return found or _one_line(value)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _message_ids(values: Sequence[str]) -> list[str]:
    """Each valid msg-id once, in order; values may hold several, separated by white space."""
    seen: list[str] = []
    for value in values:
        for token in value.split():
            ident = msg_id(token)
            if ident is not None and ident not in seen:
                seen.append(ident)
    return seen


def trimmed(chain: list[str]) -> list[str]:
    """A References chain cut to :data:`MAX_REFERENCES` ids and :data:`MAX_REFERENCES_LENGTH`
    characters: the first id (the start of the thread) and the latest ones that fit, as RFC 5322
    3.6.4 builds the field (the parent's References, then its Message-ID) and netnews trims it
    (RFC 5537 3.4.4: never the first, nor the parent)."""
    if len(chain) <= 2:
        return chain
    first, rest = chain[0], chain[1:]
    kept: list[str] = []
    length = len(first)
    for ident in reversed(rest):
        if len(kept) == MAX_REFERENCES - 1:
            break
        if kept and length + 1 + len(ident) > MAX_REFERENCES_LENGTH:
            break
        kept.append(ident)
        length += 1 + len(ident)
    return [first, *reversed(kept)]


def fold_ids(name: str, value: str, linesep: str = "\r\n") -> str:
    """The header field ``name: value`` whose value is msg-ids, as written: the ids as they are
    (never encoded-words), folded only at the white space between two ids, a line kept to
    :data:`FOLD_AT` characters unless one id alone is longer (RFC 5322 2.2.3: folding is only at
    white space, and an id has none). Ends with ``linesep``.

    Every id is at most ``MAX_MSG_ID`` characters (``adjudicator.present.quoting``), so a line
    holding one is within RFC 5322's 998.
    """
    words = value.split()
    lines = [f"{name}:"]
    for word in words:
        if len(lines[-1]) + 1 + len(word) > FOLD_AT and lines[-1] != f"{name}:":
            lines.append("")
        lines[-1] += f" {word}"
    return linesep.join(lines) + linesep


def _domain(sender: str) -> str:
    _, addr = parseaddr(sender)
    local, at, domain = addr.rpartition("@")
    return (_idna(domain.strip()) if local and at else None) or "localhost"


def _idna(domain: str) -> str | None:
    """``domain`` in ASCII (IDNA), or None when it is no host name."""
    try:
        ascii_domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        return None
    return ascii_domain if re.fullmatch(r"[A-Za-z0-9.-]+", ascii_domain) else None
