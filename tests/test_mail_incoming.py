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
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator import sshsig
from adjudicator.mail import incoming
from adjudicator.mail.incoming import MAX_MESSAGE, FoundOrder, Incoming, read_message
from adjudicator.mail.sources import (
    Raw,
    SourceError,
    from_maildir,
    from_mbox,
    from_stdin,
    mark_seen_maildir,
)
from tests.ssh import make_key, pub_line, ssh_sign

SAMPLES = Path(__file__).parent / "mail"
BOM = b"\xef\xbb\xbf"
ORDER = b"id: cairo-2026\nplayer: alice\nturn: 4\nbid: {cushion: 2, card: 12}\n"
LONG_COMMENT = (
    b"# a comment line long enough that every mail client wraps it when it sends the text as "
    b"format=flowed, which the reader must undo\n"
)
INDENTED = b"id: court-7\nplayer: alice\nturn: 3\ntravel:\n  fat: Kaffa\n  big: 7\n"


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


def test_attached_messages_are_not_looked_into(alice: Signer) -> None:
    inner = new_message()
    attach(inner, alice.appended(ORDER), "alice.yaml")
    message = new_message()
    message.add_attachment(inner)
    found = read_message(message.as_bytes())
    assert (found.orders, found.problem) == ((), None)


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


def test_pasted_order_after_a_greeting_is_passed_on_as_is(alice: Signer) -> None:
    """The signed bytes are everything before the signature: a greeting breaks the signature,
    and the receipt (elsewhere) asks for the file as an attachment."""
    raw = text_message(b"Hi GM,\n\n" + alice.appended(ORDER), "text/plain")
    (order,) = read_message(raw).orders
    assert order.order == b"Hi GM,\n\n" + ORDER
    with pytest.raises(sshsig.SignatureError):
        signed_as(order, alice.public)


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
    assert incoming._unflow(flowed_text, delsp=delsp) == plain


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


def test_cut_off_message(alice: Signer) -> None:
    found = read_message(truncated(alice))
    assert found.problem is not None and "cut off" in found.problem
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
        assert found.problem is not None and "nested" in found.problem
        assert found.message_id == "<deep@x>"


def test_oversized_message() -> None:
    head = b"From: Alice <alice@example.org>\nMessage-ID: <big@example.org>\nSubject: big\n\n"
    raw = head + b"x" * (MAX_MESSAGE + 1 - len(head))
    assert len(raw) == MAX_MESSAGE + 1
    found = read_message(raw)
    assert found.problem is not None and "10 MiB" in found.problem
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
