"""Incoming mail: finding signed orders in messages from real mail clients, and mail sources.

Every order found is checked against its signer's key with ``sshsig.verify_variants``: that shows
the order's bytes came through the mail exactly. The sample messages in ``tests/mail/`` carry
signatures made once by ssh-keygen (see its README); the messages built here are signed afresh
with ssh-keygen keys.
"""

from __future__ import annotations

import email.policy
import io
import mailbox
import os
from email.message import EmailMessage
from email.policy import EmailPolicy
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.mail import incoming
from adjudicator.mail.headers import MAX_HEADER, MAX_MIME_FIELD, MAX_REFERENCES, MAX_SUBJECT
from adjudicator.mail.incoming import MAX_MESSAGE, FoundOrder, Incoming, read_message
from adjudicator.mail.pasted import MAX_PASTED, MAX_READINGS, unflow
from adjudicator.mail.sources import (
    Raw,
    SourceError,
    from_maildir,
    from_mbox,
    from_stdin,
    mark_seen_maildir,
)
from adjudicator.present.words import say
from adjudicator.rules.contract import Msg
from adjudicator.signing import sshsig
from tests.ssh import make_key, pub_line, ssh_sign

SAMPLES = Path(__file__).parent / "mail"
BOM = b"\xef\xbb\xbf"
ORDER = b"id: cairo-2026\nplayer: alice\nturn: 4\nbid: {cushion: 2, card: 12}\n"
LONG_COMMENT = (
    b"# a comment line long enough that every mail client wraps it when it sends the text as "
    b"format=flowed, which the reader must undo\n"
)
INDENTED = b"id: court-7\nplayer: alice\nturn: 3\ntravel:\n  fat: Kaffa\n  big: 7\n"


def said(problem: Msg | None) -> str:
    """A message's problem in words (None: it has none)."""
    assert problem is not None
    return say(problem)


def signers() -> dict[str, str]:
    """The sample messages' players and their public key lines."""
    lines = (SAMPLES / "allowed_signers").read_text().splitlines()
    return {name: key for name, key in (line.split(" ", 1) for line in lines)}


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def signed_as(order: FoundOrder, public_key: str) -> bytes:
    """The bytes as signed (raises SignatureError when the order does not verify)."""
    return sshsig.verify_variants(order.order, order.signature, public_key)


# --- fresh keys and messages --------------------------------------------------------------------


class Signer:
    """An ssh-keygen key that signs order bytes with ``ssh-keygen -Y sign``."""

    def __init__(self, directory: Path, name: str) -> None:
        self.directory = directory
        self.key = make_key(directory, name)
        self.public = pub_line(self.key)
        self.count = 0

    def sign(self, data: bytes) -> bytes:
        self.count += 1
        path = self.directory / f"order-{self.count}.yaml"
        path.write_bytes(data)
        return ssh_sign(self.key, path).read_bytes()

    def appended(self, data: bytes) -> bytes:
        return data + self.sign(data)


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Signer:
    return Signer(tmp_path_factory.mktemp("alice"), "alice")


def new_message(body: str | None = "Orders attached.\n", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = headers.pop("From", "Alice <alice@example.org>")
    message["To"] = "gm@example.net"
    message["Subject"] = headers.pop("Subject", "orders")
    message["Message-ID"] = headers.pop("Message_ID", "<built@example.org>")
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    if body is not None:
        message.set_content(body)
    return message


def attach(
    message: EmailMessage,
    data: bytes,
    filename: str | None,
    content_type: str = "application/octet-stream",
    cte: str = "base64",
) -> None:
    maintype, subtype = content_type.split("/")
    message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename, cte=cte)


def verified(found: Incoming, public_key: str) -> list[bytes]:
    assert found.problem is None
    return [signed_as(order, public_key) for order in found.orders]


# --- the sample messages ------------------------------------------------------------------------

#: file: (sender, subject, [(order name, pasted, signer)], unsigned)
EXPECTED: dict[str, tuple[str, str, list[tuple[str, bool, str]], tuple[str, ...]]] = {
    "thunderbird-pair.eml": (
        "zoe@example.org",
        "Befehle für Runde 4",
        [("zoë-turn4-cairo-2026-sealed-bid.yaml", False, "zoe")],
        (),
    ),
    "apple-mail-appended.eml": (
        "alice@example.org",
        "Turn 4",
        [("alice.yaml", False, "alice")],
        (),
    ),
    "gmail-pasted-qp.eml": (
        "bob@example.org",
        "Re: Cairo 2026: turn 4",
        [("message body", True, "bob")],
        (),
    ),
    "outlook-two-orders.eml": (
        "carol@example.org",
        "Orders for both games",
        [("cairo-2026-turn4.yaml", False, "carol"), ("court-7-turn3.yaml", False, "carol")],
        (),
    ),
    "apple-mail-flowed-delsp.eml": (
        "dave@example.org",
        "court-7 turn 3",
        [("message body", True, "dave")],
        (),
    ),
    "thunderbird-pasted-flowed.eml": (
        "zoe@example.org",
        "new bids",
        [("message body", True, "zoe")],
        (),
    ),
    "k9-text-attachment.eml": ("bob@example.org", "bid", [("orders.txt", False, "bob")], ()),
    "thunderbird-unsigned.eml": ("alice@example.org", "forgot to sign?", [], ("alice.yaml",)),
    "gmail-no-order.eml": ("bob@example.org", "Re: Cairo 2026: turn 4", [], ()),
}


#: Quoted-printable in a CRLF message: the file's line ends come out as CRLF (as sent), while
#: the file was signed with LF; verify_variants accepts that.
LINE_BASED = {"k9-text-attachment.eml"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_messages(name: str) -> None:
    sender, subject, orders, unsigned = EXPECTED[name]
    keys = signers()
    found = read_message(sample(name))
    assert found.problem is None
    assert found.sender == sender
    assert found.subject == subject
    assert found.message_id is not None and found.message_id.startswith("<")
    assert found.message_id.endswith(">")
    assert [(order.name, order.pasted) for order in found.orders] == [
        (order_name, pasted) for order_name, pasted, _ in orders
    ]
    for order, (_, pasted, player) in zip(found.orders, orders, strict=True):
        as_signed = signed_as(order, keys[player])
        if not pasted and name not in LINE_BASED:  # base64, or 7bit in an LF message
            assert as_signed == order.order
    assert found.unsigned == unsigned


def test_sample_files_are_what_they_claim() -> None:
    """The samples keep their line endings and encodings (see tests/mail/.gitattributes)."""
    assert b"\r\n" in sample("thunderbird-pair.eml")
    assert b"\r\n" in sample("outlook-two-orders.eml")
    assert b"\r\n" not in sample("apple-mail-appended.eml")
    assert b"filename*1*=" in sample("thunderbird-pair.eml")
    assert b"quoted-printable" in sample("gmail-pasted-qp.eml")
    assert b"delsp=yes" in sample("apple-mail-flowed-delsp.eml")


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_sample_messages_with_either_line_ending(name: str, line_end: bytes) -> None:
    """A message stored with LF (Maildir, mbox) or sent with CRLF (SMTP) gives the same orders."""
    raw = sample(name).replace(b"\r\n", b"\n").replace(b"\n", line_end)
    keys = signers()
    found = read_message(raw)
    assert found.problem is None
    expected = EXPECTED[name][2]
    assert [order.name for order in found.orders] == [order_name for order_name, _, _ in expected]
    for order, (_, _, player) in zip(found.orders, expected, strict=True):
        signed_as(order, keys[player])


def test_outlook_attachment_keeps_its_bom_and_crlf() -> None:
    found = read_message(sample("outlook-two-orders.eml"))
    first = found.orders[0].order
    assert first.startswith(BOM)
    assert b"\r\n" in first
    assert signed_as(found.orders[0], signers()["carol"]) == first


def test_pasted_text_after_the_signature_is_left_out() -> None:
    """Gmail's and Thunderbird's mail signatures ("-- ") follow the SSH signature."""
    for name in ("gmail-pasted-qp.eml", "thunderbird-pasted-flowed.eml"):
        (order,) = read_message(sample(name)).orders
        assert order.signature.rstrip().endswith(sshsig.ARMOR_END)


def test_threading_headers() -> None:
    gmail = read_message(sample("gmail-pasted-qp.eml"))
    assert gmail.references == (
        "<turn3.cairo-2026@adjudicator.example.net>",
        "<turn4.cairo-2026@adjudicator.example.net>",
    )
    outlook = read_message(sample("outlook-two-orders.eml"))  # Message-ID folded onto a new line
    assert outlook.message_id == (
        "<AM0PR07MB6115A1B2C3D4E5F6A7B8@AM0PR07MB6115.eurprd07.prod.outlook.com>"
    )
    assert outlook.references == ()


# --- attachments --------------------------------------------------------------------------------

CONTENT_TYPES = [
    "text/plain",
    "text/yaml",
    "application/yaml",
    "application/x-yaml",
    "application/octet-stream",
    "application/pgp-signature",
]


@pytest.mark.parametrize("content_type", CONTENT_TYPES[:-1])
@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "8bit"])
def test_attachment_pair(alice: Signer, content_type: str, cte: str) -> None:
    signature = alice.sign(ORDER)
    message = new_message()
    attach(message, ORDER, "alice.yaml", content_type, cte)
    attach(message, signature, "alice.yaml.sig", "application/pgp-signature", cte)
    found = read_message(message.as_bytes())
    assert found.orders == (FoundOrder(ORDER, signature, "alice.yaml", False),)
    assert verified(found, alice.public) == [ORDER]
    assert found.unsigned == ()


@pytest.mark.parametrize("content_type", CONTENT_TYPES[:-1])
@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "8bit"])
def test_appended_signature(alice: Signer, content_type: str, cte: str) -> None:
    message = new_message()
    data = alice.appended(ORDER)
    attach(message, data, "alice.yaml", content_type, cte)
    found = read_message(message.as_bytes())
    (order,) = found.orders
    assert (order.order, order.name, order.pasted) == (ORDER, "alice.yaml", False)
    assert order.order + order.signature == data
    assert verified(found, alice.public) == [ORDER]


def test_signature_recognised_by_content_whatever_its_name(alice: Signer) -> None:
    message = new_message()
    attach(message, ORDER, "orders.yaml")
    attach(message, b"\n  " + alice.sign(ORDER), "signature.txt", "text/plain")
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["orders.yaml"]
    assert verified(found, alice.public) == [ORDER]


def test_crlf_message(alice: Signer) -> None:
    crlf_order = ORDER.replace(b"\n", b"\r\n")
    message = new_message()
    attach(message, crlf_order, "alice.yaml", "text/plain", "8bit")
    attach(message, alice.sign(crlf_order), "alice.yaml.sig")
    raw = message.as_bytes(policy=email.policy.SMTP)
    assert b"\r\n\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    found = read_message(raw)
    assert [order.order for order in found.orders] == [crlf_order]
    assert verified(found, alice.public) == [crlf_order]


@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "8bit"])
def test_bom_is_kept(alice: Signer, cte: str) -> None:
    with_bom = BOM + ORDER
    message = new_message()
    attach(message, with_bom, "paired.yaml", "text/yaml", cte)
    attach(message, alice.sign(with_bom), "paired.yaml.sig")
    attach(message, alice.appended(with_bom), "appended.yaml", "text/plain", cte)
    found = read_message(message.as_bytes())
    assert [order.order for order in found.orders] == [with_bom, with_bom]
    assert verified(found, alice.public) == [with_bom, with_bom]


def test_signed_without_bom_sent_with_one(alice: Signer) -> None:
    """An editor added a BOM after signing: the order is passed on as sent; it still verifies."""
    message = new_message()
    attach(message, BOM + ORDER, "alice.yaml")
    attach(message, alice.sign(ORDER), "alice.yaml.sig")
    found = read_message(message.as_bytes())
    assert found.orders[0].order == BOM + ORDER
    assert verified(found, alice.public) == [ORDER]


def test_bytes_are_kept_exactly(alice: Signer) -> None:
    odd = b"id: cairo-2026\r\nplayer: alice\n\nturn: 4   \r\nbid: {cushion: 2, card: 12}\t\n\n"
    message = new_message()
    attach(message, odd, "odd.yaml", "application/octet-stream", "base64")
    attach(message, alice.sign(odd), "odd.yaml.sig")
    attach(message, alice.appended(odd), "odd-appended.yaml", "text/plain", "quoted-printable")
    found = read_message(message.as_bytes())
    assert [order.order for order in found.orders] == [odd, odd]
    assert verified(found, alice.public) == [odd, odd]


def test_rfc2231_names(alice: Signer) -> None:
    name = "zoë-turn4-a-rather-long-file-name-for-an-order-file-in-cairo-2026.yaml"
    message = new_message()
    attach(message, ORDER, name)
    attach(message, alice.sign(ORDER), name + ".sig")
    raw = message.as_bytes()
    assert b"filename*=" in raw or b"filename*0*=" in raw
    found = read_message(raw)
    assert [order.name for order in found.orders] == [name]
    assert verified(found, alice.public) == [ORDER]


def test_name_from_the_content_type_only(alice: Signer) -> None:
    message = new_message()
    for filename, data in (("orders.yaml", ORDER), ("orders.yaml.sig", alice.sign(ORDER))):
        attach(message, data, filename)
        part = list(message.iter_parts())[-1]
        part.replace_header("Content-Disposition", "attachment")
        part.set_param("name", filename)
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["orders.yaml"]
    assert verified(found, alice.public) == [ORDER]


def test_inline_attachment_with_a_name(alice: Signer) -> None:
    """Apple Mail shows attachments inline: a named inline part is an attachment."""
    message = new_message()
    attach(message, alice.appended(ORDER), "alice.yaml", "text/plain", "8bit")
    part = list(message.iter_parts())[-1]
    part.replace_header("Content-Disposition", 'inline; filename="alice.yaml"')
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["alice.yaml"]


def test_two_orders(alice: Signer) -> None:
    second = INDENTED
    message = new_message()
    attach(message, ORDER, "cairo.yaml")
    attach(message, second, "court.yaml", "text/yaml")
    attach(message, alice.sign(second), "court.yaml.sig")
    attach(message, alice.sign(ORDER), "cairo.yaml.sig")
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["cairo.yaml", "court.yaml"]
    assert verified(found, alice.public) == [ORDER, second]


def test_names_that_do_not_pair(alice: Signer) -> None:
    """One order left and one signature left are a pair, whatever their names."""
    message = new_message()
    attach(message, b"\x89PNG not an order", "board.png", "image/png")
    attach(message, ORDER, "my orders (1).yaml")
    attach(message, alice.sign(ORDER), "signature.sig")
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["my orders (1).yaml"]
    assert verified(found, alice.public) == [ORDER]


def test_name_pairing_ignores_case(alice: Signer) -> None:
    message = new_message()
    attach(message, INDENTED, "Court.YAML")
    attach(message, ORDER, "cairo.yaml")
    attach(message, alice.sign(ORDER), "cairo.yaml.sig")
    attach(message, alice.sign(INDENTED), "court.yaml.SIG")
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["Court.YAML", "cairo.yaml"]
    assert verified(found, alice.public) == [INDENTED, ORDER]


def test_no_guessing_between_two_unsigned_orders(alice: Signer) -> None:
    message = new_message()
    attach(message, ORDER, "one.yaml")
    attach(message, INDENTED, "two.yaml")
    attach(message, alice.sign(ORDER), "signature.sig")
    found = read_message(message.as_bytes())
    assert found.orders == ()
    assert found.unsigned == ("one.yaml", "two.yaml")


def test_unsigned_order_files(alice: Signer) -> None:
    message = new_message()
    attach(message, ORDER, "alice.yaml", "application/x-yaml")
    attach(message, b"player: alice\nid: x\nturn: 1\n", "orders.txt", "text/plain")
    attach(message, b"just some notes\nid: 3\n", "notes.txt", "text/plain")
    attach(message, b"%PDF-1.7 rules", "rules.pdf", "application/pdf")
    attach(message, ORDER, None, "text/yaml")
    found = read_message(message.as_bytes())
    assert found.problem is None
    assert found.orders == ()
    assert found.unsigned == ("alice.yaml", "orders.txt", "unnamed attachment 5")


def test_signed_and_unsigned_together(alice: Signer) -> None:
    message = new_message()
    attach(message, ORDER, "cairo.yaml")
    attach(message, alice.sign(ORDER), "cairo.yaml.sig")
    attach(message, INDENTED, "court.yaml")
    found = read_message(message.as_bytes())
    assert [order.name for order in found.orders] == ["cairo.yaml"]
    assert found.unsigned == ("court.yaml",)


def test_a_lone_signature_is_no_order(alice: Signer) -> None:
    message = new_message()
    attach(message, alice.sign(ORDER), "alice.yaml.sig")
    found = read_message(message.as_bytes())
    assert (found.orders, found.unsigned, found.problem) == ((), (), None)


def test_no_order_at_all() -> None:
    found = read_message(new_message("When is the deadline?\n").as_bytes())
    assert (found.orders, found.unsigned, found.problem) == ((), (), None)
    assert found.sender == "alice@example.org"
    assert found.subject == "orders"
    assert found.message_id == "<built@example.org>"


def forwarded(inner: EmailMessage, note: str = "Forwarding my orders.\n") -> EmailMessage:
    """``inner`` forwarded as an attachment (message/rfc822), as mail programs do."""
    message = new_message(note, Message_ID="<forward@example.org>")
    message.add_attachment(inner)
    part = list(message.iter_parts())[-1]
    assert part.get_content_type() == "message/rfc822"
    return message


def test_forwarded_as_attachment_pair(alice: Signer) -> None:
    inner = new_message()
    attach(inner, ORDER, "alice.yaml")
    attach(inner, alice.sign(ORDER), "alice.yaml.sig")
    found = read_message(forwarded(inner).as_bytes())
    assert [(order.name, order.pasted) for order in found.orders] == [("alice.yaml", False)]
    assert verified(found, alice.public) == [ORDER]
    assert found.message_id == "<forward@example.org>"


def test_forwarded_as_attachment_appended(alice: Signer) -> None:
    inner = new_message()
    attach(inner, alice.appended(ORDER), "alice.yaml")
    found = read_message(forwarded(inner).as_bytes())
    assert [order.name for order in found.orders] == ["alice.yaml"]
    assert verified(found, alice.public) == [ORDER]


def test_forwarded_as_attachment_pasted(alice: Signer) -> None:
    inner = new_message("Hi GM,\n\n" + alice.appended(ORDER).decode() + "-- \nAlice\n")
    found = read_message(forwarded(inner).as_bytes())
    assert [(order.name, order.pasted) for order in found.orders] == [("message body", True)]
    assert signed_as_any(found.orders[0], alice.public) == ORDER


def test_forwarded_twice(alice: Signer) -> None:
    inner = new_message()
    attach(inner, alice.appended(ORDER), "alice.yaml")
    found = read_message(forwarded(forwarded(inner)).as_bytes())
    assert verified(found, alice.public) == [ORDER]


def test_attached_messages_are_paired_on_their_own(alice: Signer) -> None:
    """An order in the message and a signature in an attached one are no pair."""
    inner = new_message()
    attach(inner, alice.sign(ORDER), "signature.sig")
    message = forwarded(inner)
    attach(message, ORDER, "orders.yaml")
    found = read_message(message.as_bytes())
    assert found.orders == ()
    assert found.unsigned == ("orders.yaml",)


def test_attached_messages_nested_too_deep_are_not_looked_into(alice: Signer) -> None:
    inner = new_message()
    attach(inner, alice.appended(ORDER), "alice.yaml")
    message = inner
    for _ in range(incoming.MAX_ATTACHED_DEPTH):
        message = forwarded(message)
    assert len(read_message(message.as_bytes()).orders) == 1
    found = read_message(forwarded(message).as_bytes())
    assert (found.orders, found.problem) == ((), None)


@pytest.mark.seconds
def test_parts_of_attached_messages_count(alice: Signer) -> None:
    inner = new_message()
    for index in range(incoming.MAX_PARTS):
        attach(inner, b"x", f"file{index}.txt", "text/plain", "8bit")
    attach(inner, alice.appended(ORDER), "alice.yaml")
    found = read_message(forwarded(inner).as_bytes())
    assert said(found.problem) == f"the message has more than {incoming.MAX_PARTS} MIME parts"
    assert found.orders == ()


def test_the_same_order_twice_is_found_once(alice: Signer) -> None:
    data = alice.appended(ORDER)
    message = new_message(data.decode())
    attach(message, data, "alice.yaml")
    attach(message, data, "alice.yaml")
    found = read_message(message.as_bytes())
    assert [(order.name, order.pasted) for order in found.orders] == [("alice.yaml", False)]


# --- orders pasted into the text ----------------------------------------------------------------


def flowed(text: bytes, *, delsp: bool, width: int = 40) -> bytes:
    """``text`` as a mail client sends it as format=flowed (RFC 3676): stuffed and wrapped."""
    out: list[bytes] = []
    for line in text.split(b"\n")[:-1]:
        if line.startswith((b" ", b">", b"From ")):
            line = b" " + line
        while len(line) > width:
            if delsp:  # break anywhere, adding a space that the reader deletes
                out.append(line[:width] + b" ")
                line = line[width:]
            else:  # break after a space, which stays; a long word stays whole
                cut = line.rfind(b" ", 1, width) + 1
                if not cut:
                    break
                out.append(line[:cut])
                line = line[cut:]
        out.append(line)
    return b"\n".join(out) + b"\n"


def text_message(text: bytes, content_type: str, cte: str = "8bit") -> bytes:
    header = (
        b"From: alice@example.org\nTo: gm@example.net\nSubject: pasted\n"
        b"Message-ID: <pasted@example.org>\nMIME-Version: 1.0\n"
    )
    header += b"Content-Type: " + content_type.encode() + b"\n"
    header += b"Content-Transfer-Encoding: " + cte.encode() + b"\n\n"
    return header + text


def test_pasted_order(alice: Signer) -> None:
    data = LONG_COMMENT + INDENTED
    raw = text_message(alice.appended(data), "text/plain; charset=utf-8")
    found = read_message(raw)
    assert [(order.name, order.pasted) for order in found.orders] == [("message body", True)]
    assert verified(found, alice.public) == [data]


@pytest.mark.parametrize("delsp", [False, True])
@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_pasted_order_format_flowed(alice: Signer, delsp: bool, line_end: bytes) -> None:
    data = LONG_COMMENT + INDENTED + b"From the desk of alice\n> not a quote\n"
    body = flowed(alice.appended(data), delsp=delsp)
    assert b"\n   fat: Kaffa\n" in body  # space-stuffed
    assert b"\n From the desk" in body and b"\n > not a quote" in body
    kind = "text/plain; charset=utf-8; format=flowed" + ("; delsp=yes" if delsp else "")
    raw = text_message(body, kind).replace(b"\n", line_end)
    found = read_message(raw)
    assert found.orders[0].order == data.replace(b"\n", line_end)
    assert verified(found, alice.public) == [data]


def test_flowed_is_undone_only_when_the_part_says_so(alice: Signer) -> None:
    data = b"# ends with a space \n" + INDENTED
    raw = text_message(alice.appended(data), "text/plain; charset=utf-8")
    assert verified(read_message(raw), alice.public) == [data]


@pytest.mark.parametrize("cte", ["quoted-printable", "base64"])
def test_pasted_order_transfer_encoded(alice: Signer, cte: str) -> None:
    data = "# café, naïve, ünïcödé\n".encode() + ORDER
    message = new_message(None)
    message.set_content(alice.appended(data).decode(), cte=cte)
    found = read_message(message.as_bytes())
    assert verified(found, alice.public) == [data]


def test_pasted_order_in_another_charset(alice: Signer) -> None:
    """What is pasted is text: a body in Latin-1 is taken as the UTF-8 the file was."""
    data = "# café\n".encode() + ORDER
    body = alice.appended(data).decode().encode("latin-1")
    raw = text_message(body, "text/plain; charset=iso-8859-1")
    assert verified(read_message(raw), alice.public) == [data]


def test_pasted_order_in_multipart_alternative(alice: Signer) -> None:
    data = LONG_COMMENT + ORDER
    message = new_message(alice.appended(data).decode())
    message.add_alternative("<p>my orders</p>", subtype="html")
    found = read_message(message.as_bytes())
    assert verified(found, alice.public) == [data]
    outer = EmailMessage()  # Gmail: multipart/alternative inside multipart/mixed
    for name in ("From", "To", "Subject", "Message-ID"):
        outer[name] = message[name]
    outer.make_mixed()
    alternative = EmailMessage()
    alternative.set_content(alice.appended(data).decode())
    alternative.add_alternative("<p>my orders</p>", subtype="html")
    outer.attach(alternative)
    attach(outer, b"\x89PNG", "board.png", "image/png")
    assert verified(read_message(outer.as_bytes()), alice.public) == [data]


def test_only_the_plain_text_alternative_is_read(alice: Signer) -> None:
    signed = alice.appended(ORDER).decode()
    message = new_message("no order here\n")
    message.add_alternative(signed, subtype="html")
    assert read_message(message.as_bytes()).orders == ()
    message = new_message(None)
    message.set_content(signed, subtype="html")
    message.add_alternative(signed, subtype="enriched")
    assert read_message(message.as_bytes()).orders == ()


def test_only_text_that_is_not_an_attachment_is_pasted(alice: Signer) -> None:
    message = new_message()
    attach(message, alice.sign(ORDER), "alice.yaml.sig", "text/plain", "8bit")
    assert read_message(message.as_bytes()).orders == ()


def test_pasted_signature_without_an_order_is_no_order(alice: Signer) -> None:
    raw = text_message(b"\n\n" + alice.sign(ORDER) + b"\nthanks\n", "text/plain")
    found = read_message(raw)
    assert (found.orders, found.problem) == ((), None)


def signed_as_any(order: FoundOrder, public_key: str) -> bytes:
    """The bytes as signed of the first reading of ``order`` that verifies (as ingest does)."""
    for data, signature in [(order.order, order.signature), *order.alternatives]:
        try:
            return sshsig.verify_variants(data, signature, public_key)
        except sshsig.SignatureError:
            continue
    raise AssertionError("no reading verifies")


def test_pasted_order_after_a_greeting_and_before_a_mail_signature(alice: Signer) -> None:
    text = b"Hi GM,\n\nhere are my orders:\n" + alice.appended(ORDER) + b"Cheers\n-- \nAlice\n"
    (order,) = read_message(text_message(text, "text/plain")).orders
    assert order.order == ORDER  # the most likely reading: from the id: line
    assert order.signature.endswith(sshsig.ARMOR_END + b"\n")
    assert verified(read_message(text_message(text, "text/plain")), alice.public) == [ORDER]


FORM = (
    b"# Sultan, game cairo-2026, turn 4: alice's order.\n# Your hand: 3, 7, 12\n\n"
    b"id: cairo-2026\nplayer: alice\nturn: 4\n# one card on one cushion\nbid:\n"
    b"  cushion: 2  # 1 (red), 2 (blue)\n  card: 12    # one of your cards\n"
)


def quoted(text: bytes, prefix: bytes, empty: bytes) -> bytes:
    return b"".join((prefix + line if line else empty) + b"\n" for line in text.split(b"\n")[:-1])


#: How a pasted order reaches us: (greeting + order + signature + mail signature) -> body.
SHAPES = {
    "whole body": lambda text: text,
    "quoted '> '": lambda text: b"Again:\n\nOn Monday Alice wrote:\n" + quoted(text, b"> ", b">"),
    "quoted '>' without space": lambda text: b"On Monday:\n" + quoted(text, b">", b">"),
    "quoted twice '>> '": lambda text: b"ok\n\n> Bob wrote:\n" + quoted(text, b">> ", b">>"),
    "quoted twice '> > '": lambda text: b"ok\n> Bob wrote:\n>\n" + quoted(text, b"> > ", b"> >"),
    "quoted, empty lines '> '": lambda text: b"see below\n\n" + quoted(text, b"> ", b"> "),
    "quoted with a tab (mailx)": lambda text: b"Sam wrote:\n\n" + quoted(text, b"\t", b""),
    "Outlook's Original Message": lambda text: (
        b"Resending.\n\n-----Original Message-----\nFrom: Alice <alice@example.org>\n"
        b"Sent: Monday, November 23, 2026 9:14 PM\nTo: gm@example.net\nSubject: orders\n\n" + text
    ),
    "Gmail's inline forward": lambda text: (
        b"\n\n---------- Forwarded message ---------\nFrom: Alice <alice@example.org>\n"
        b"Date: Mon, Nov 23, 2026 at 9:14 PM\nSubject: orders\nTo: <gm@example.net>\n\n\n" + text
    ),
    "Thunderbird's inline forward": lambda text: (
        b"\n\n-------- Original Message --------\nSubject: \torders\nDate: \tMon, 23 Nov 2026\n"
        b"From: \tAlice <alice@example.org>\nTo: \tgm@example.net\n\n\n\n" + text
    ),
    "Apple Mail's forward": lambda text: (
        b"Begin forwarded message:\n\n"
        + quoted(b"From: Alice <alice@example.org>\nSubject: orders\n\n" + text, b"> ", b"> ")
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize(
    "order_text", [ORDER, FORM, LONG_COMMENT + INDENTED], ids=["plain", "form", "indented"]
)
@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_pasted_order_readings(
    alice: Signer, shape: str, order_text: bytes, line_end: bytes
) -> None:
    """Whatever surrounds a pasted order, its signed bytes are among the readings."""
    text = b"Hello GM,\n\nmy orders:\n\n" + alice.appended(order_text) + b"\nBest\n-- \nAlice\n"
    body = SHAPES[shape](text).replace(b"\n", line_end)
    found = read_message(text_message(body, "text/plain; charset=utf-8"))
    assert found.problem is None
    (order,) = found.orders
    assert order.pasted
    assert len(order.alternatives) < MAX_READINGS
    assert signed_as_any(order, alice.public) == order_text


@pytest.mark.parametrize("delsp", [False, True])
def test_quoted_reply_format_flowed(alice: Signer, delsp: bool) -> None:
    """Flowed is undone inside quotes too: the long comment was soft-wrapped at depth 2."""
    text = b"Hi,\n\n" + alice.appended(LONG_COMMENT + INDENTED) + b"-- \nAlice\n"
    body = flowed(
        b"Yes.\n\n" + quoted(b"Bob wrote:\n" + quoted(text, b"> ", b">"), b"> ", b">"), delsp=delsp
    )
    kind = "text/plain; charset=utf-8; format=flowed" + ("; delsp=yes" if delsp else "")
    found = read_message(text_message(body, kind))
    (order,) = found.orders
    assert signed_as_any(order, alice.public) == LONG_COMMENT + INDENTED


@pytest.mark.parametrize("cte", ["quoted-printable", "8bit"])
def test_pasted_order_with_no_break_spaces(alice: Signer, cte: str) -> None:
    """A rich-text editor's &nbsp; for runs of spaces, carried into the text alternative."""
    signed = alice.appended(INDENTED)
    nbsp = "\u00a0".encode()
    text = b"Hi GM,\n\n" + signed.replace(b"  ", nbsp + b" ") + b"\nBest\n"
    message = new_message(None)
    message.set_content(text.decode(), cte=cte)
    message.add_alternative("<p>Hi GM,</p>", subtype="html")
    (order,) = read_message(message.as_bytes()).orders
    assert nbsp in order.order
    assert signed_as_any(order, alice.public) == INDENTED


def test_two_pasted_orders_in_one_body(alice: Signer) -> None:
    """A new order above the quoted old one: both are handed on, each with its own readings."""
    old = alice.appended(ORDER)
    new = alice.appended(INDENTED)
    body = b"New one:\n" + new + b"\nOn Monday I wrote:\n" + quoted(b"Hi\n" + old, b"> ", b">")
    found = read_message(text_message(body, "text/plain"))
    assert [signed_as_any(order, alice.public) for order in found.orders] == [INDENTED, ORDER]


def test_pasted_order_readings_are_bounded(alice: Signer) -> None:
    chatter = b"".join(b"line %d of a long letter\n" % index for index in range(3000))
    body = chatter + alice.appended(ORDER)
    (order,) = read_message(text_message(body, "text/plain")).orders
    assert order.order == ORDER
    assert len(order.alternatives) == MAX_READINGS - 1
    assert all(len(data) <= 64 * 1024 + 1024 for data, _ in order.alternatives)


def test_many_pasted_signatures_are_bounded(alice: Signer) -> None:
    orders = [ORDER.replace(b"turn: 4", b"turn: %d" % turn) for turn in range(10)]
    body = b"".join(alice.appended(order) for order in orders)
    found = read_message(text_message(body, "text/plain"))
    assert len(found.orders) == MAX_PASTED
    assert [signed_as_any(order, alice.public) for order in found.orders] == orders[:8]
    message = new_message(None)  # the limit is the message's, not each text part's
    message.make_mixed()
    for first in range(0, 10, 2):
        text = EmailMessage()
        text.set_content(
            (alice.appended(orders[first]) + alice.appended(orders[first + 1])).decode()
        )
        message.attach(text)
    found = read_message(message.as_bytes())
    assert [signed_as_any(order, alice.public) for order in found.orders] == orders[:8]


def test_a_signature_without_end_or_with_broken_quotes_is_no_order(alice: Signer) -> None:
    signature = alice.sign(ORDER)
    cut = ORDER + signature[: signature.index(sshsig.ARMOR_END)]
    assert read_message(text_message(cut, "text/plain")).orders == ()
    mixed = quoted(ORDER + signature, b"> ", b">").replace(b"> -----END", b"-----END")
    assert read_message(text_message(mixed, "text/plain")).orders == ()


@pytest.mark.parametrize(
    ("flowed_text", "delsp", "plain"),
    [
        (b"one \ntwo\n", False, b"one two\n"),
        (b"one\ntwo \n", False, b"one\ntwo \n"),
        (b"wo\nrd\n", True, b"wo\nrd\n"),
        (b"wo \nrd\n", True, b"word\n"),
        (b"  two spaces\n", False, b" two spaces\n"),
        (b"-- \nsignature\n", False, b"-- \nsignature\n"),
        (b"> quoted \n> on\nnot quoted\n", False, b"> quoted on\nnot quoted\n"),
        (b"> flowed into \nanother depth\n", False, b"> flowed into \nanother depth\n"),
        (b"flowed last line \n", False, b"flowed last line \n"),
        (b"no final newline", False, b"no final newline"),
        (b"a \r\nb\r\n", False, b"a b\r\n"),
        (b"", False, b""),
    ],
)
def test_unflow(flowed_text: bytes, delsp: bool, plain: bytes) -> None:
    assert unflow(flowed_text, delsp=delsp) == plain


# --- headers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("from_header", "sender"),
    [
        ("Alice <alice@example.org>", "alice@example.org"),
        ("=?UTF-8?Q?Zo=C3=AB?= <zoe@example.org>", "zoe@example.org"),
        ("zoe@example.org (Zoë)", "zoe@example.org"),
        ('"Meier, Zoë" <zoe@example.org>', "zoe@example.org"),
        ("undisclosed", None),
        ("<>", None),
        ("a@example.org, b@example.org", None),
        ('"a\x01b"@example.org', None),
        ('"a\u202eb"@example.org', None),
        ("", None),
    ],
)
def test_sender(from_header: str, sender: str | None) -> None:
    raw = b"From: " + from_header.encode() + b"\nSubject: x\n\nhello\n"
    assert read_message(raw).sender == sender


def test_headers_missing() -> None:
    found = read_message(b"To: gm@example.net\n\nhello\n")
    assert (found.message_id, found.sender, found.subject, found.references) == (None, None, "", ())
    assert found.problem is None


def test_subject_and_ids() -> None:
    raw = (
        b"From: alice@example.org\n"
        b"Subject: =?UTF-8?B?QmVmZWhsZSBmw7xy?=\n =?UTF-8?Q?_Runde_4?=\n"
        b"Message-ID:\n   <abc.123@example.org>  \n"
        b"In-Reply-To: <turn4@gm.example.net>\n\nhello\n"
    )
    found = read_message(raw)
    assert found.subject == "Befehle für Runde 4"
    assert found.message_id == "<abc.123@example.org>"
    assert found.references == ("<turn4@gm.example.net>",)  # no References: the In-Reply-To id


def test_raw_utf8_headers() -> None:
    raw = "From: Zoë <zoe@example.org>\nSubject: Befehle für Runde 4\n\nhallo\n".encode()
    found = read_message(raw)
    assert (found.sender, found.subject) == ("zoe@example.org", "Befehle für Runde 4")


@pytest.mark.parametrize(
    ("header", "message_id"),
    [
        ("<abc.123@example.org>", "<abc.123@example.org>"),
        ("  <CAF=+x_q1-Z@mail.gmail.com>  ", "<CAF=+x_q1-Z@mail.gmail.com>"),
        ("<a@[192.0.2.1]>", "<a@[192.0.2.1]>"),
        ("<a@b> (the first)", "<a@b>"),
        ("<no-at-sign>", None),
        ("<two@at@signs>", None),
        ("<with space@example.org>", None),
        ("<a@b> <c@d>", None),
        ("abc@example.org", None),
        ('<"quoted"@example.org>', None),
        ("<caf\u00e9@example.org>", None),
        ("<a@b>\r\nBcc: victim@example.org", "<a@b>"),
        ("<" + "x" * 240 + "@example.org>", "<" + "x" * 240 + "@example.org>"),
        ("<" + "x" * 973 + "@example.org>", None),  # 987 characters: over a line's worth
        ("<>", None),
    ],
)
def test_message_id_is_a_valid_msg_id_or_none(header: str, message_id: str | None) -> None:
    raw = b"From: a@example.org\nMessage-ID: " + header.encode() + b"\n\nhi\n"
    assert read_message(raw).message_id == message_id


def test_references_keep_only_valid_ids() -> None:
    raw = (
        b"From: a@example.org\nReferences: <one@x> <bad id@x> <two@x>\n <three@x>"
        b' "<four@x>" <no-at>\nIn-Reply-To: <three@x>\n\nhi\n'
    )
    assert read_message(raw).references == ("<one@x>", "<two@x>", "<three@x>", "<four@x>")
    raw = b"From: a@example.org\nIn-Reply-To: <bad id@x>\n\nhi\n"
    assert read_message(raw).references == ()


def test_header_lines_split_only_at_line_ends() -> None:
    """A form feed or a Unicode line separator inside a value starts no new field."""
    raw = "From: a@example.org\nSubject: a\x0cMessage-ID: <fake@x>\u2028Date: x\n\nhi\n"
    found = read_message(raw.encode())
    assert (found.message_id, found.date) == (None, None)
    assert found.subject == "a Message-ID: <fake@x> Date: x"


def test_many_references_keep_the_first_and_the_latest() -> None:
    ids = [f"<id{index}@example.org>" for index in range(300)]
    raw = b"From: a@example.org\nReferences: " + "\n ".join(ids).encode() + b"\n\nhi\n"
    references = read_message(raw).references
    assert len(references) == MAX_REFERENCES
    assert references[0] == ids[0]
    assert references[1:] == tuple(ids[-(MAX_REFERENCES - 1) :])


@pytest.mark.parametrize(
    ("header", "subject"),
    [
        (b"Befehle f\xc3\xbcr Runde 4", "Befehle f\u00fcr Runde 4"),
        (b"=?UTF-8?Q?line=0Abreak=0D=0Aand=09tab?=", "line break and tab"),
        (b"=?UTF-8?Q?bidi_=E2=80=AEevil?= x", "bidi evil x"),
        (b"nul =?UTF-8?Q?=00?= and =?UTF-8?Q?=1B[31m?=", "nul and [31m"),
        (b"  lots   of\n   folded   space  ", "lots of folded space"),
        (b"=?UTF-8?B?" + b"QUJD" * 200 + b"?=", "ABC" * 66 + "AB"),
    ],
)
def test_subject_is_one_printable_line(header: bytes, subject: str) -> None:
    raw = b"From: a@example.org\nSubject: " + header + b"\n\nhi\n"
    found = read_message(raw).subject
    assert found == subject
    assert len(found) <= MAX_SUBJECT


@pytest.mark.parametrize(
    ("header", "date"),
    [
        (b"Date: Wed, 25 Nov 2026 10:02:11 +0100", "Wed, 25 Nov 2026 10:02:11 +0100"),
        (b"Date: Wed, 25 Nov 2026\n 10:02:11 +0100 (CET)", "Wed, 25 Nov 2026 10:02:11 +0100 (CET)"),
        (b"Date: Mittwoch, 25. November 2026 10:02 \xc3\xa4", None),
        (b"Date: " + b"1" * 81, None),
        (b"Date: \x1b[2J", None),
        (b"Date:", None),
        (b"Subject: no date", None),
    ],
)
def test_date(header: bytes, date: str | None) -> None:
    assert read_message(b"From: a@example.org\n" + header + b"\n\nhi\n").date == date


AUTOMATIC = {
    b"Auto-Submitted: auto-replied": "Auto-Submitted: auto-replied",
    b"Auto-Submitted: Auto-Generated; owner-email=x@example.org": "Auto-Submitted: Auto-Generated",
    b"auto-submitted:   AUTO-NOTIFIED  ": "Auto-Submitted: AUTO-NOTIFIED",
    b"Auto-Submitted: \x1b[31mevil": "Auto-Submitted: ?",
    b"Precedence: bulk": "Precedence: bulk",
    b"Precedence: JUNK": "Precedence: junk",
    b"Precedence: list": "Precedence: list",
    b"List-Id: Sultan players <players.example.org>": "mailing list (List-Id)",
    b"List-Unsubscribe: <mailto:leave@example.org>": "mailing list (List-Unsubscribe)",
    b"Return-Path: <>": "empty return path (Return-Path: <>)",
    b"Return-Path: < >": "empty return path (Return-Path: <>)",
    b"Return-Path: <MAILER-DAEMON@mx.example.org>": "sent by a mailer daemon or postmaster",
    b"Sender: Mailer-Daemon@example.org": "sent by a mailer daemon or postmaster",
    b"Sender: postmaster": "sent by a mailer daemon or postmaster",
    b"Content-Type: multipart/report; report-type=delivery-status; boundary=x": (
        "a delivery or disposition report (multipart/report)"
    ),
    b"X-Autoreply: yes": "X-Autoreply",
    b"X-Autorespond: on": "X-Autorespond",
    b"X-Auto-Response-Suppress: All": "X-Auto-Response-Suppress",
    b"X-Auto-Response-Suppress: DR, AutoReply": "X-Auto-Response-Suppress",
}
NOT_AUTOMATIC = [
    b"Auto-Submitted: no",
    b"Auto-Submitted: No (a person)",
    b"Precedence: first-class",
    b"Return-Path: <alice@example.org>",
    b"Sender: postmaster-fan@example.org",
    b"X-Auto-Response-Suppress: DR, RN, NRN",
    b"Content-Type: multipart/mixed; boundary=x",
]


@pytest.mark.parametrize("header", sorted(AUTOMATIC))
def test_automatic_mail(header: bytes) -> None:
    raw = b"From: Alice <alice@example.org>\n" + header + b"\nSubject: x\n\nhi\n--x--\n"
    assert read_message(raw).automatic == AUTOMATIC[header]


def test_automatic_mail_from_a_mailer_daemon() -> None:
    for sender in (b"MAILER-DAEMON@mx.example.org", b"Mail Delivery <postmaster@example.org>"):
        raw = b"From: " + sender + b"\nSubject: Undelivered Mail\n\nhi\n"
        assert read_message(raw).automatic == "sent by a mailer daemon or postmaster"


@pytest.mark.parametrize("header", NOT_AUTOMATIC)
def test_mail_a_person_sent(header: bytes) -> None:
    raw = b"From: Alice <alice@example.org>\n" + header + b"\nSubject: x\n\nhi\n--x--\n"
    assert read_message(raw).automatic is None


def test_automatic_mail_keeps_its_orders(alice: Signer) -> None:
    """Orders in automatic mail are taken; only the answer is held back (docs/mail.md)."""
    message = new_message(Auto_Submitted="auto-generated")
    attach(message, alice.appended(ORDER), "alice.yaml")
    found = read_message(message.as_bytes())
    assert found.automatic == "Auto-Submitted: auto-generated"
    assert verified(found, alice.public) == [ORDER]


def test_the_samples_are_not_automatic() -> None:
    for name in EXPECTED:
        assert read_message(sample(name)).automatic is None, name


# --- size and time stay bounded -----------------------------------------------------------------


class ParserCalled(Exception):
    pass


def no_parser(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the stdlib parser refuse to run; the sizes it was asked to parse."""
    calls: list[int] = []

    class Refusing:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def parsebytes(self, raw: bytes, headersonly: bool = False) -> NoReturn:
            calls.append(len(raw))
            raise ParserCalled

    monkeypatch.setattr(incoming, "BytesParser", Refusing)
    return calls


def test_header_over_the_cap_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = no_parser(monkeypatch)
    head = b"From: Alice <alice@example.org>\nMessage-ID: <big-head@example.org>\nSubject: hi\n"
    raw = head + b"X-Filler: " + b"x" * 100 + (b"\n " + b"y" * 70) * 4000 + b"\n\nbody\n"
    assert len(raw) > MAX_HEADER
    found = read_message(raw)
    assert said(found.problem) == (
        f"the message's header is larger than {MAX_HEADER} bytes (256 KiB) and was set aside unread"
    )
    assert calls == []
    assert (found.message_id, found.sender, found.subject) == (
        "<big-head@example.org>",
        "alice@example.org",
        "hi",
    )
    assert found.orders == ()


def test_header_just_under_the_cap_is_read(alice: Signer) -> None:
    message = new_message()
    attach(message, alice.appended(ORDER), "alice.yaml")
    raw = message.as_bytes()
    head = raw.index(b"\n\n")
    filler = (b"\n " + b"y" * 70) * ((MAX_HEADER - head - 100) // 72)
    raw = b"X-Filler: x" + filler + b"\n" + raw
    assert MAX_HEADER - 1000 < raw.index(b"\n\n") < MAX_HEADER
    found = read_message(raw)
    assert found.problem is None
    assert verified(found, alice.public) == [ORDER]


def test_too_many_header_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = no_parser(monkeypatch)
    raw = b"From: a@example.org\nMessage-ID: <m@x>\n" + b"X-A: b\n" * 1000 + b"\nhi\n"
    found = read_message(raw)
    assert said(found.problem) == (
        f"the message has more than {incoming.MAX_FIELDS} header fields and was set aside unread"
    )
    assert (calls, found.message_id) == ([], "<m@x>")


def test_a_megabyte_subject_of_encoded_words() -> None:
    words = b" ".join([b"=?UTF-8?Q?Befehle_f=C3=BCr?="] * 40_000)
    raw = b"From: a@example.org\nMessage-ID: <m@x>\nSubject: " + words + b"\n\nhi\n"
    assert len(raw) > 1_000_000
    found = read_message(raw)
    assert "header is larger" in said(found.problem)
    assert found.subject == ("Befehle f\u00fcr" * 100)[:MAX_SUBJECT]
    assert found.message_id == "<m@x>"


def test_a_long_subject_under_the_cap() -> None:
    words = b"\n ".join([b"=?UTF-8?B?" + b"QUJD" * 10 + b"?="] * 4000)
    raw = b"From: a@example.org\nSubject: " + words + b"\n\nhi\n"
    assert 200_000 < len(raw) < MAX_HEADER
    found = read_message(raw)
    assert (found.problem, found.subject) == (None, ("ABC" * 10 * 100)[:MAX_SUBJECT])


def test_a_long_mime_field_makes_the_message_unreadable(alice: Signer) -> None:
    message = new_message()
    attach(message, alice.appended(ORDER), "alice.yaml")
    part = list(message.iter_parts())[-1]
    part.set_param("x-padding", "p" * MAX_MIME_FIELD)
    found = read_message(message.as_bytes())
    assert said(found.problem) == (
        f"a part's Content-Type header field is longer than {MAX_MIME_FIELD} characters"
    )
    assert found.orders == ()


@pytest.mark.parametrize("where", ["message", "part"])
def test_long_fields_never_reach_the_stdlib_header_parser(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The stdlib parses each Content-Type while it splits parts, in quadratic time: a field
    over the cap is refused before it is parsed, wherever it is."""
    parsed: list[int] = []
    original = EmailPolicy.header_fetch_parse

    def recording(self: EmailPolicy, name: str, value: str) -> object:
        parsed.append(len(value))
        return original(self, name, value)

    monkeypatch.setattr(EmailPolicy, "header_fetch_parse", recording)
    params = b"".join(b';\r\n x%d="%s"' % (index, b"v" * 60) for index in range(1500))
    head = b"From: a@example.org\r\nMessage-ID: <m@x>\r\n"
    if where == "message":
        raw = head + b"Content-Type: multipart/mixed; boundary=b" + params + b"\r\n\r\n"
        raw += b"--b\r\n\r\nhi\r\n--b--\r\n"
    else:
        raw = head + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
        raw += b"Content-Type: text/plain" + params + b"\r\n\r\nhi\r\n--b--\r\n"
    assert len(raw) > 100_000
    found = read_message(raw)
    assert said(found.problem) == (
        f"a part's Content-Type header field is longer than {MAX_MIME_FIELD} characters"
    )
    assert found.message_id == "<m@x>"
    assert max(parsed, default=0) <= MAX_MIME_FIELD


def test_parsing_stops_after_the_last_part_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stdlib takes tens of microseconds per part: it is stopped at the part after MAX_PARTS."""
    made: list[int] = []

    class Counted(EmailMessage):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(incoming, "EmailMessage", Counted)
    raw = b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n"
    raw += b"--b\n\nx\n" * 100_000 + b"--b--\n"
    found = read_message(raw)
    assert said(found.problem) == f"the message has more than {incoming.MAX_PARTS} MIME parts"
    assert len(made) == incoming.MAX_PARTS


def test_a_part_with_too_many_fields(alice: Signer) -> None:
    message = new_message()
    attach(message, alice.appended(ORDER), "alice.yaml")
    part = list(message.iter_parts())[-1]
    for index in range(incoming.MAX_FIELDS):
        part[f"X-Field-{index}"] = "x"
    found = read_message(message.as_bytes())
    assert said(found.problem) == (
        f"a part of the message has more than {incoming.MAX_FIELDS} header fields"
    )


def test_many_begin_lines_inside_an_attachment(alice: Signer) -> None:
    """The appended signature is the last BEGIN at a line start, however many come before."""
    data = b"# " + sshsig.ARMOR_BEGIN * 20_000 + b"\n" + alice.appended(ORDER)
    message = new_message()
    attach(message, data, "alice.yaml")
    (order,) = read_message(message.as_bytes()).orders
    assert order.order + order.signature == data


# --- messages that cannot be read ---------------------------------------------------------------


def truncated(alice: Signer) -> bytes:
    message = new_message()
    attach(message, alice.appended(ORDER), "alice.yaml")
    raw = message.as_bytes()
    return raw[: len(raw) - 40]


MALFORMED = {
    "empty": b"",
    "not mail": b"\x00\x01\x02 this is not a mail message \xff\xfe",
    "header broken": b"From: alice@example.org\nthis line is no header\nSubject: x\n\nbody\n",
    "continuation first": b" folded: nothing\nFrom: a@example.org\n\nbody\n",
    "no boundary": (
        b"From: a@example.org\nMessage-ID: <m@x>\nContent-Type: multipart/mixed\n\n"
        b"--b\n\nx\n--b--\n"
    ),
    "boundary never found": (
        b"From: a@example.org\nMessage-ID: <m@x>\n"
        b"Content-Type: multipart/mixed; boundary=b\n\njust text\n"
    ),
    "part without header": (
        b"From: a@example.org\nMessage-ID: <m@x>\nContent-Type: multipart/mixed; boundary=b\n\n"
        b"--b\njust some text\n--b--\n"
    ),
    "bad base64": (
        b"From: a@example.org\nMessage-ID: <m@x>\nContent-Type: multipart/mixed; boundary=b\n\n"
        b"--b\nContent-Type: application/octet-stream; name=o.yaml\n"
        b"Content-Transfer-Encoding: base64\n\naWQ6IHgK!\n--b--\n"
    ),
    "bad base64 length": (
        b"From: a@example.org\nMessage-ID: <m@x>\nContent-Transfer-Encoding: base64\n\naWQ6IHgKx\n"
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed(name: str) -> None:
    found = read_message(MALFORMED[name])
    assert found.problem
    assert (found.orders, found.unsigned) == ((), ())
    if b"<m@x>" in MALFORMED[name]:
        assert found.message_id == "<m@x>"


def test_problems_quote_the_message_only_as_printable_ascii() -> None:
    name = "zo\u00eb\u202e\x1b[31m" + "x" * 200 + ".yaml"
    raw = (
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
        b"Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n"
        b"Content-Disposition: attachment; filename*=utf-8''"
        + quote(name).encode()
        + b"\n\naWQ6IHgK!\n--b--\n"
    )
    problem = said(read_message(raw).problem)
    assert problem.endswith(" is not valid base64")
    assert all(" " <= char <= "~" for char in problem)
    assert len(problem) < 120
    assert problem.startswith("the attachment 'zo\\xeb\\u202e\\x1b[31mxxx")


def test_cut_off_message(alice: Signer) -> None:
    found = read_message(truncated(alice))
    assert "cut off" in said(found.problem)
    assert found.orders == ()
    assert found.message_id == "<built@example.org>"


def test_deeply_nested_message() -> None:
    for depth in (60, 3000):
        raw = b"From: a@example.org\nMessage-ID: <deep@x>\n"
        raw += b"Content-Type: multipart/mixed; boundary=b0\n\n"
        for level in range(1, depth):
            raw += b"--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (level - 1, level)
        raw += b"--b%d\n\nhello\n" % (depth - 1)
        raw += b"".join(b"--b%d--\n" % level for level in reversed(range(depth)))
        found = read_message(raw)
        assert said(found.problem) == (
            "the message's MIME parts are nested more than 40 deep"
            if depth < incoming.MAX_PARTS
            else f"the message has more than {incoming.MAX_PARTS} MIME parts"
        )
        assert found.message_id == "<deep@x>"


def test_oversized_message() -> None:
    head = b"From: Alice <alice@example.org>\nMessage-ID: <big@example.org>\nSubject: big\n\n"
    raw = head + b"x" * (MAX_MESSAGE + 1 - len(head))
    assert len(raw) == MAX_MESSAGE + 1
    found = read_message(raw)
    assert "10 MiB" in said(found.problem)
    assert (found.message_id, found.sender, found.subject) == (
        "<big@example.org>",
        "alice@example.org",
        "big",
    )
    assert found.orders == ()
    assert read_message(raw[:MAX_MESSAGE]).problem is None


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2000))
def test_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    assert isinstance(read_message(raw), Incoming)


SAMPLE_BYTES = [sample(name) for name in sorted(EXPECTED)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SAMPLE_BYTES),
    st.lists(
        st.tuples(st.integers(0, 4000), st.integers(0, 40), st.binary(max_size=12)), max_size=4
    ),
)
def test_never_raises_on_damaged_messages(raw: bytes, edits: list[tuple[int, int, bytes]]) -> None:
    for position, length, replacement in edits:
        position %= len(raw) + 1
        raw = raw[:position] + replacement + raw[position + length :]
    found = read_message(raw)
    assert isinstance(found, Incoming)
    assert found.problem is None or found.orders == ()


# --- sources: standard input --------------------------------------------------------------------


def test_stdin() -> None:
    raw = sample("apple-mail-appended.eml")
    assert list(from_stdin(io.BytesIO(raw))) == [Raw("stdin", raw)]


def test_stdin_reads_no_more_than_needed() -> None:
    stream = io.BytesIO(b"x" * (MAX_MESSAGE + 500))
    (message,) = from_stdin(stream)
    assert len(message.data) == MAX_MESSAGE + 1
    assert read_message(message.data).problem is not None


# --- sources: Maildir ---------------------------------------------------------------------------


def make_maildir(path: Path, messages: list[bytes]) -> list[str]:
    """A Maildir with ``messages`` in new/, each a second older than the next; their keys."""
    box = mailbox.Maildir(path, create=True)
    keys = [box.add(raw) for raw in messages]
    for age, key in enumerate(keys):
        stamp = 1_700_000_000 + age
        os.utime(path / "new" / key, (stamp, stamp))
    return keys


def file_in_cur(folder: Path, raw: bytes, flags: str, stamp: int) -> str:
    """A message a mail reader has moved to cur/ with ``flags``; its key."""
    key = mailbox.Maildir(folder, create=True).add(raw)
    target = folder / "cur" / f"{key}{mailbox.Maildir.colon}2,{flags}"
    os.rename(folder / "new" / key, target)
    os.utime(target, (stamp, stamp))
    return key


def test_maildir_new_and_cur_oldest_first(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    raws = [sample(name) for name in ("thunderbird-pair.eml", "gmail-pasted-qp.eml")]
    keys = make_maildir(folder, raws)
    older = file_in_cur(folder, sample("outlook-two-orders.eml"), "R", 1_600_000_000)
    file_in_cur(folder, sample("apple-mail-appended.eml"), "RS", 1_500_000_000)
    (folder / "new" / ".hidden").write_bytes(b"not a message")
    found = list(from_maildir(folder))
    assert [raw.key for raw in found] == [older, *keys]
    assert [raw.data for raw in found] == [sample("outlook-two-orders.eml"), *raws]


def test_maildir_mark_seen(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    raw = sample("thunderbird-pair.eml")
    first, second = make_maildir(folder, [raw, b"From: b@example.org\n\nhi\n"])
    mark_seen_maildir(folder, first)
    assert os.listdir(folder / "new") == [second]
    assert os.listdir(folder / "cur") == [f"{first}{mailbox.Maildir.colon}2,S"]
    assert (folder / "cur" / f"{first}{mailbox.Maildir.colon}2,S").read_bytes() == raw
    assert [message.key for message in from_maildir(folder)] == [second]
    mark_seen_maildir(folder, first)  # twice: nothing changes
    assert len(os.listdir(folder / "cur")) == 1
    box = mailbox.Maildir(folder, create=False)
    assert box.get_message(first).get_flags() == "S"


@pytest.mark.seconds
def test_maildir_mark_seen_keeps_other_flags(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    key = file_in_cur(folder, b"From: a@example.org\n\nhi\n", "FR", 1_700_000_000)
    mark_seen_maildir(folder, key)
    assert os.listdir(folder / "cur") == [f"{key}{mailbox.Maildir.colon}2,FRS"]
    assert list(from_maildir(folder)) == []


def test_maildir_read_then_mark(tmp_path: Path) -> None:
    """The way ingest goes: read each message, then mark it seen."""
    folder = tmp_path / "Mail"
    make_maildir(folder, [sample(name) for name in sorted(EXPECTED)])
    keys = signers()
    orders = 0
    for raw in from_maildir(folder):
        for order in read_message(raw.data).orders:
            assert any(_verifies(order, key) for key in keys.values())
            orders += 1
        mark_seen_maildir(folder, raw.key)
    assert orders == sum(len(expected[2]) for expected in EXPECTED.values())
    assert list(from_maildir(folder)) == []
    assert len(os.listdir(folder / "cur")) == len(EXPECTED)


def _verifies(order: FoundOrder, key: str) -> bool:
    try:
        signed_as(order, key)
    except sshsig.SignatureError:
        return False
    return True


def test_maildir_message_taken_away_meanwhile(tmp_path: Path) -> None:
    folder = tmp_path / "Mail"
    first, second = make_maildir(folder, [b"From: a@example.org\n\n1\n", b"From: b@x\n\n2\n"])
    messages = from_maildir(folder)
    (folder / "new" / first).unlink()
    assert [raw.key for raw in messages] == [second]


def test_maildir_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(SourceError, match="nowhere: no such Maildir folder"):
        from_maildir(missing)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SourceError, match="file: not a Maildir folder"):
        from_maildir(tmp_path / "file")
    (tmp_path / "half" / "new").mkdir(parents=True)
    with pytest.raises(SourceError, match=r"half: not a Maildir folder .*cur/"):
        from_maildir(tmp_path / "half")
    with pytest.raises(SourceError, match="nowhere"):
        mark_seen_maildir(missing, "123.abc")
    folder = tmp_path / "Mail"
    make_maildir(folder, [])
    with pytest.raises(SourceError, match=r"no message 123\.abc"):
        mark_seen_maildir(folder, "123.abc")
    with pytest.raises(SourceError, match="not a Maildir message key"):
        mark_seen_maildir(folder, "../cur/x")


def denied(*args: object, **kwargs: object) -> NoReturn:
    raise PermissionError(13, "Permission denied")


def test_maildir_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "Mail"
    make_maildir(folder, [b"From: a@example.org\n\nhi\n"])
    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(SourceError, match="new: cannot read the folder: Permission denied"):
        from_maildir(folder)


# --- sources: mbox ------------------------------------------------------------------------------


@pytest.mark.seconds
def test_mbox_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "inbox.mbox"
    names = sorted(EXPECTED)
    box = mailbox.mbox(path, create=True)
    for name in names:
        box.add(sample(name))
    box.close()
    found = list(from_mbox(path))
    assert [raw.key for raw in found] == [f"mbox:{index}" for index in range(len(names))]
    keys = signers()
    for raw, name in zip(found, names, strict=True):
        assert not raw.data.startswith(b"From ")
        read = read_message(raw.data)
        assert read.message_id == read_message(sample(name)).message_id
        assert len(read.orders) == len(EXPECTED[name][2])
        for order, (_, _, player) in zip(read.orders, EXPECTED[name][2], strict=True):
            signed_as(order, keys[player])


def test_mbox_empty_and_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.mbox"
    empty.write_bytes(b"")
    assert list(from_mbox(empty)) == []
    with pytest.raises(SourceError, match=r"nowhere\.mbox: no such mbox file"):
        from_mbox(tmp_path / "nowhere.mbox")
    with pytest.raises(SourceError, match="not an mbox file"):
        from_mbox(tmp_path)


def test_mbox_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.mbox"
    path.write_bytes(b"From a@b Thu Jan  1 00:00:00 2026\nFrom: a@b\n\nhi\n")
    monkeypatch.setattr(Path, "open", denied)
    with pytest.raises(SourceError, match=r"locked\.mbox: cannot read the mbox file: Permission"):
        from_mbox(path)
