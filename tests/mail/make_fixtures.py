"""Write the sample messages ``<program>-<case>.eml`` in this folder, with real signatures.

Run by hand from the project's root after changing an order or a message shape here:

    .venv/bin/python tests/mail/make_fixtures.py

Each order is signed by ``ssh-keygen -Y sign -n adjudicator-orders`` with ``fixture-key`` (a test
key kept here on purpose; its public half is ``sam`` in ``allowed_signers``). Ed25519 signatures
are deterministic and nothing here reads the clock, so a second run writes the same bytes:
``tests/test_mail_fixtures.py`` checks that. Each message reproduces what its program sends (MIME
tree, boundaries, transfer encodings, line ends, format=flowed, quoting); the ``X-Fixture-Note``
header and ``README.md`` say where that is documented.
"""

from __future__ import annotations

import base64
import quopri
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEY = HERE / "fixture-key"
NAMESPACE = "adjudicator-orders"

#: A filled-in Sultan form (lines up to 72 characters, as forms are made).
FORM = (
    b"# Sultan, game cairo-2026, turn 4: sam's order.\n"
    b"# Fill in the values after the colons, then check, sign and send this\n"
    b"# file.\n"
    b"# Your hand: 3, 7, 12, 15\n"
    b"# On offer: cushion 1 red, cushion 2 blue, cushion 3 green\n"
    b"\n"
    b"id: cairo-2026\n"
    b"player: sam\n"
    b"turn: 4\n"
    b"bids:\n"
    b"  - cushion: 2  # 1 (red), 2 (blue), 3 (green)\n"
    b"    card: 12    # one of your cards: 3, 7, 12, 15\n"
    b"  - cushion: 1  # another cushion\n"
    b"    card: 7     # another of your cards\n"
)
#: An order written by hand.
PLAIN = (
    b"id: cairo-2026\nplayer: sam\nturn: 4\n"
    b"bids:\n  - {cushion: 2, card: 12}\n  - {cushion: 1, card: 7}\n"
)
#: A Court order with a comment longer than a mail line (format=flowed wraps it).
COURT = (
    b"# my moves this round: the fat vizir goes to Kaffa, the big one takes the seat of the "
    b"Grand Vizir\n"
    b"id: court-7\n"
    b"player: sam\n"
    b"turn: 3\n"
    b"travel:\n"
    b"  fat: Kaffa\n"
    b"  big: 7\n"
)
#: Saved by Windows Notepad: CRLF line ends.
WINDOWS = PLAIN.replace(b"\n", b"\r\n")

NOTES = {
    "thunderbird": "Thunderbird sends text/plain as format=flowed, RFC 3676 "
    "(mailnews.send_plaintext_flowed, wrap at 72), CRLF on the wire (RFC 5321 2.3.8)",
    "outlook": "Outlook: multipart/alternative with a quoted-printable text/plain (RFC 2045 6.7) "
    "and HTML, attachments application/octet-stream base64 (MS-OXCMAIL 2.2.3.4), CRLF",
    "apple": "Apple Mail: format=flowed; delsp=yes (RFC 3676 4.2), x-unix-mode parameters, "
    "stored with LF by a Maildir delivery (maildir(5))",
    "thunderbird-html": "Thunderbird composing in HTML: an <!DOCTYPE html> page indented by "
    "two, its source wrapped at 72 (mailnews.wraplength), runs of spaces as &nbsp; (Gecko's "
    "editor), a plain-text version beside it unless sent as HTML only, CRLF",
    "gmail-html": "Gmail's rich-text window: <div dir=ltr> of <div> lines, &nbsp; and spaces "
    "in turn (Chromium's editor), quoted-printable, CRLF",
    "apple-html": "Apple Mail's rich text: <div> lines, -webkit-nbsp-mode: space, "
    "quoted-printable, stored with LF by a Maildir delivery (maildir(5))",
    "gmail": "Gmail: multipart/alternative text/plain UTF-8 and text/html, no format=flowed, "
    "quoted replies with '> ' (RFC 3676 4.5 style, unflowed), CRLF",
}


@dataclass(frozen=True)
class Fixture:
    name: str
    order: bytes  # the bytes as signed
    build: Callable[[bytes, bytes], bytes]  # (order, signature) -> the message, LF line ends
    crlf: bool  # the message is written with CRLF line ends
    note: str


def sign(order: bytes) -> bytes:
    """The armored signature of ``order`` by fixture-key, made by ssh-keygen."""
    tool = shutil.which("ssh-keygen")
    if tool is None:
        raise SystemExit("ssh-keygen is needed (openssh-client)")
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "key"
        key.write_bytes(KEY.read_bytes())
        key.chmod(0o600)
        done = subprocess.run(
            [tool, "-q", "-Y", "sign", "-n", NAMESPACE, "-f", str(key)],
            input=order,
            capture_output=True,
            check=True,
        )
    return done.stdout


# --- encodings ----------------------------------------------------------------------------------


def b64(data: bytes, width: int = 76) -> bytes:
    encoded = base64.b64encode(data)
    return b"\n".join(encoded[i : i + width] for i in range(0, len(encoded), width)) + b"\n"


def qp(text: bytes) -> bytes:
    return quopri.encodestring(text.replace(b"\r\n", b"\n"))


def flowed(text: bytes, *, delsp: bool = False, width: int = 72) -> bytes:
    """``text`` (LF, quotes written "> ") as format=flowed: space-stuffed and soft-wrapped."""
    out: list[bytes] = []
    for line in text.split(b"\n")[:-1]:
        depth = 0
        while line.startswith(b">"):
            line = line[1:]
            depth += 1
            if line.startswith(b" "):
                line = line[1:]
        marks = b">" * depth
        if line.startswith((b" ", b">", b"From ")) or (depth and line):
            line = b" " + line
        limit = width - len(marks)
        while len(line) > limit:
            cut = line.rfind(b" ", 1, limit)
            if cut <= 0:
                break
            head, line = line[: cut + 1], line[cut + 1 :]
            out.append(marks + (head + b" " if delsp else head))
            if depth:
                line = b" " + line
        out.append(marks + line)
    return b"\n".join(out) + b"\n"


def quote(text: bytes, mark: bytes = b"> ", empty: bytes = b">") -> bytes:
    return b"".join((mark + line if line else empty) + b"\n" for line in text.split(b"\n")[:-1])


def headers(*pairs: tuple[str, str]) -> bytes:
    return b"".join(f"{name}: {value}\n".encode() for name, value in pairs)


def multipart(boundary: str, parts: list[bytes], preamble: bytes = b"") -> bytes:
    mark = b"--" + boundary.encode()
    body = preamble
    for part in parts:
        body += mark + b"\n" + part
        if not part.endswith(b"\n"):
            body += b"\n"
    return body + mark + b"--\n"


def part(content_type: str, body: bytes, *extra: tuple[str, str]) -> bytes:
    return headers(("Content-Type", content_type), *extra) + b"\n" + body


def html(text: bytes) -> bytes:
    lines = text.decode().split("\n")[:-1]
    paragraphs = "".join(
        f"<p class=MsoNormal>{escape(line, quote=False) or '&nbsp;'}</p>\n" for line in lines
    )
    return f"<html><body>\n{paragraphs}</body></html>\n".encode()


def signed(order: bytes, signature: bytes) -> bytes:
    return order + signature


# --- Thunderbird --------------------------------------------------------------------------------

TB_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.5.0"


def tb_head(subject: str, mid: str, *extra: tuple[str, str]) -> bytes:
    return headers(
        ("Message-ID", f"<{mid}@example.org>"),
        ("Date", "Wed, 25 Nov 2026 10:02:11 +0100"),
        ("MIME-Version", "1.0"),
        ("User-Agent", TB_AGENT),
        ("Content-Language", "en-GB"),
        ("To", "gm@example.net"),
        ("From", "Sam Example <sam@example.org>"),
        ("Subject", subject),
        *extra,
        ("X-Fixture-Note", NOTES["thunderbird"]),
    )


TB_FLOWED = "text/plain; charset=UTF-8; format=flowed"


def tb_pair(order: bytes, signature: bytes) -> bytes:
    boundary = "------------0Hc3kPq7Rz2WbXn9LmT4vYs1"
    text = part(
        TB_FLOWED,
        flowed(b"Hi GM,\n\nmy orders for turn 4 are attached.\n\nSam\n"),
        ("Content-Transfer-Encoding", "7bit"),
    )
    return (
        tb_head("Orders turn 4", "a4e1c2d3-tb-pair")
        + headers(("Content-Type", f'multipart/mixed; boundary="{boundary}"'))
        + b"\n"
        + multipart(
            boundary,
            [
                text,
                part(
                    'application/x-yaml; name="sam-turn4.yaml"',
                    b64(order, 72),
                    ("Content-Disposition", 'attachment; filename="sam-turn4.yaml"'),
                    ("Content-Transfer-Encoding", "base64"),
                ),
                part(
                    'application/pgp-signature; name="sam-turn4.yaml.sig"',
                    b64(signature, 72),
                    ("Content-Disposition", 'attachment; filename="sam-turn4.yaml.sig"'),
                    ("Content-Transfer-Encoding", "base64"),
                ),
            ],
            b"This is a multi-part message in MIME format.\n",
        )
    )


def tb_forward_attachment(order: bytes, signature: bytes) -> bytes:
    boundary = "------------7Qm2Wc9Xv4Bn8Kp1Rt6Zy3Ls"
    inner = tb_pair(order, signature)
    text = part(
        TB_FLOWED,
        flowed(b"Forwarding the orders Sam sent me.\n"),
        ("Content-Transfer-Encoding", "7bit"),
    )
    return (
        tb_head("Fwd: Orders turn 4", "b7d2e3f4-tb-fwd-att")
        + headers(("Content-Type", f'multipart/mixed; boundary="{boundary}"'))
        + b"\n"
        + multipart(
            boundary,
            [
                text,
                part(
                    'message/rfc822; charset=UTF-8; name="Orders turn 4.eml"',
                    inner,
                    ("Content-Disposition", 'attachment; filename="Orders turn 4.eml"'),
                    ("Content-Transfer-Encoding", "7bit"),
                ),
            ],
            b"This is a multi-part message in MIME format.\n",
        )
    )


def tb_pasted(order: bytes, signature: bytes) -> bytes:
    text = b"Hi GM,\n\nhere are my orders:\n\n" + order + signature + b"\nThanks!\n-- \nSam\n"
    return (
        tb_head("Orders turn 3", "c1f3a4b5-tb-pasted")
        + headers(("Content-Type", TB_FLOWED), ("Content-Transfer-Encoding", "7bit"))
        + b"\n"
        + flowed(text)
    )


def tb_quoted(order: bytes, signature: bytes) -> bytes:
    earlier = b"Hi GM,\n\n" + order + signature + b"\n-- \nSam\n"
    text = b"Sending them again, see below.\n\nOn 24/11/2026 21:14, Sam Example wrote:\n"
    text += quote(earlier)
    return (
        tb_head(
            "Re: Orders turn 3",
            "d5a6b7c8-tb-quoted",
            ("References", "<c1f3a4b5-tb-pasted@example.org>"),
            ("In-Reply-To", "<c1f3a4b5-tb-pasted@example.org>"),
        )
        + headers(("Content-Type", TB_FLOWED), ("Content-Transfer-Encoding", "7bit"))
        + b"\n"
        + flowed(text)
    )


def tb_inline_forward(order: bytes, signature: bytes) -> bytes:
    text = (
        b"For the record, my orders.\n\n\n-------- Forwarded Message --------\n"
        b"Subject: \tOrders turn 4\nDate: \tTue, 24 Nov 2026 21:14:02 +0100\n"
        b"From: \tSam Example <sam@example.org>\nTo: \tgm@example.net\n\n\n\n"
    )
    text += order + signature
    return (
        tb_head("Fwd: Orders turn 4", "e9b8c7d6-tb-fwd-inline")
        + headers(("Content-Type", TB_FLOWED), ("Content-Transfer-Encoding", "7bit"))
        + b"\n"
        + flowed(text)
    )


# --- Outlook ------------------------------------------------------------------------------------


def ol_head(
    subject: str, mid: str, content_type: str, *extra: tuple[str, str], attach: bool = False
) -> bytes:
    return headers(
        ("From", "Sam Example <sam@example.org>"),
        ("To", '"gm@example.net" <gm@example.net>'),
        ("Subject", subject),
        ("Thread-Topic", subject),
        ("Thread-Index", "AdtfR2Vq0m1x1B2cR8q3l9m2Yv5wAA=="),
        ("Date", "Wed, 25 Nov 2026 09:02:11 +0000"),
        ("Message-ID", "\n <" + mid + "@AM0PR07MB6115.eurprd07.prod.outlook.com>"),
        *extra,
        ("Accept-Language", "en-GB, en-US"),
        ("Content-Language", "en-GB"),
        ("X-MS-Has-Attach", "yes" if attach else ""),
        ("X-MS-TNEF-Correlator", ""),
        ("Content-Type", content_type),
        ("MIME-Version", "1.0"),
        ("X-Fixture-Note", NOTES["outlook"]),
    ).replace(b": \n", b":\n")


def ol_alternative(boundary: str, text: bytes) -> bytes:
    return multipart(
        boundary,
        [
            part(
                'text/plain; charset="us-ascii"',
                qp(text),
                ("Content-Transfer-Encoding", "quoted-printable"),
            ),
            part(
                'text/html; charset="us-ascii"',
                qp(html(text)),
                ("Content-Transfer-Encoding", "quoted-printable"),
            ),
        ],
    )


def ol_attachment(name: str, data: bytes) -> bytes:
    return part(
        f'application/octet-stream; name="{name}"',
        b64(data),
        ("Content-Description", name),
        (
            "Content-Disposition",
            f'attachment; filename="{name}"; size={len(data)};\n'
            '\tcreation-date="Wed, 25 Nov 2026 09:01:40 GMT";\n'
            '\tmodification-date="Wed, 25 Nov 2026 09:01:40 GMT"',
        ),
        ("Content-Transfer-Encoding", "base64"),
    )


def ol_pair(order: bytes, signature: bytes) -> bytes:
    mixed = "_004_AM0PR07MB6115A1B2C3D4E5F6A7B8AM0PR07MB6115eurp_"
    alternative = "_000_AM0PR07MB6115A1B2C3D4E5F6A7B8AM0PR07MB6115eurp_"
    text = b"Hello,\n\nMy orders are attached.\n\nKind regards,\nSam\n"
    return (
        ol_head(
            "Orders turn 4",
            "AM0PR07MB6115A1B2C3D4E5F6A7B8",
            f'multipart/mixed;\n\tboundary="{mixed}"',
            attach=True,
        )
        + b"\n"
        + multipart(
            mixed,
            [
                part(
                    f'multipart/alternative;\n\tboundary="{alternative}"',
                    ol_alternative(alternative, text),
                ),
                ol_attachment("sam-turn4.yaml", order),
                ol_attachment("sam-turn4.yaml.sig", signature),
            ],
        )
    )


def ol_forward_attachment(order: bytes, signature: bytes) -> bytes:
    mixed = "_005_AM0PR07MB6115C7D8E9F0A1B2C3D4AM0PR07MB6115eurp_"
    alternative = "_000_AM0PR07MB6115C7D8E9F0A1B2C3D4AM0PR07MB6115eurp_"
    text = b"Please see the attached message.\n\nSam\n"
    return (
        ol_head(
            "FW: Orders turn 4",
            "AM0PR07MB6115C7D8E9F0A1B2C3D4",
            f'multipart/mixed;\n\tboundary="{mixed}"',
            attach=True,
        )
        + b"\n"
        + multipart(
            mixed,
            [
                part(
                    f'multipart/alternative;\n\tboundary="{alternative}"',
                    ol_alternative(alternative, text),
                ),
                part(
                    "message/rfc822",
                    ol_pair(order, signature),
                    (
                        "Content-Disposition",
                        'attachment;\n\tcreation-date="Wed, 25 Nov 2026 09:05:00 GMT";\n'
                        '\tmodification-date="Wed, 25 Nov 2026 09:05:00 GMT"',
                    ),
                ),
            ],
        )
    )


def ol_single(subject: str, mid: str, text: bytes, *extra: tuple[str, str]) -> bytes:
    alternative = f"_000_{mid}AM0PR07MB6115eurp_"
    return (
        ol_head(subject, mid, f'multipart/alternative;\n\tboundary="{alternative}"', *extra)
        + b"\n"
        + ol_alternative(alternative, text)
    )


def ol_pasted(order: bytes, signature: bytes) -> bytes:
    text = b"Hello GM,\n\nHere are my orders for this turn:\n\n" + order + signature
    text += b"\nKind regards,\nSam Example\nSenior Vizir Wrangler\n"
    return ol_single("Orders turn 4", "AM0PR07MB6115E5F6A7B8C9D0E1F2", text)


def ol_quoted(order: bytes, signature: bytes) -> bytes:
    text = (
        b"Resending, as asked.\n\nSam\n\n-----Original Message-----\n"
        b"From: Sam Example <sam@example.org> \nSent: Tuesday, November 24, 2026 9:14 PM\n"
        b"To: gm@example.net\nSubject: Orders turn 4\n\n"
    )
    text += order + signature + b"\nKind regards,\nSam\n"
    return ol_single(
        "RE: Orders turn 4",
        "AM0PR07MB61150A1B2C3D4E5F6A7B",
        text,
        ("References", "<AM0PR07MB6115E5F6A7B8C9D0E1F2@AM0PR07MB6115.eurprd07.prod.outlook.com>"),
        ("In-Reply-To", "<AM0PR07MB6115E5F6A7B8C9D0E1F2@AM0PR07MB6115.eurprd07.prod.outlook.com>"),
    )


def ol_inline_forward(order: bytes, signature: bytes) -> bytes:
    text = (
        b"FYI, my orders below.\n\n________________________________\n"
        b"From: Sam Example <sam@example.org>\nSent: Tuesday, November 24, 2026 21:14\n"
        b"To: gm@example.net <gm@example.net>\nSubject: Orders turn 4\n\n"
    )
    text += order + signature
    return ol_single("FW: Orders turn 4", "AM0PR07MB6115B2C3D4E5F6A7B8C9", text)


# --- Apple Mail ---------------------------------------------------------------------------------

AP_FLOWED = "text/plain;\n\tcharset=us-ascii;\n\tdelsp=yes;\n\tformat=flowed"


def ap_head(subject: str, mid: str, content_type: str, *extra: tuple[str, str]) -> bytes:
    encoding = [("Content-Transfer-Encoding", "7bit")] if content_type.startswith("text/") else []
    return headers(
        ("From", "Sam Example <sam@example.org>"),
        ("Content-Type", content_type),
        *encoding,
        ("Mime-Version", "1.0 (Mac OS X Mail 16.0 \\(3826.200.121\\))"),
        ("Subject", subject),
        ("Date", "Wed, 25 Nov 2026 10:02:11 +0100"),
        *extra,
        ("To", "gm@example.net"),
        ("Message-Id", f"<{mid}@example.org>"),
        ("X-Mailer", "Apple Mail (2.3826.200.121)"),
        ("X-Fixture-Note", NOTES["apple"]),
    )


def ap_pair(order: bytes, signature: bytes) -> bytes:
    boundary = "Apple-Mail=_8F2C6D1E-4A1B-4C3D-9E8F-0A1B2C3D4E5F"
    return (
        ap_head(
            "Orders turn 4",
            "8F2C6D1E-4A1B-4C3D-9E8F-0A1B2C3D4E5F",
            f'multipart/mixed;\n\tboundary="{boundary}"',
        )
        + b"\n"
        + multipart(
            boundary,
            [
                part(
                    "text/plain;\n\tcharset=us-ascii",
                    b"Hi GM,\n\nmy orders.\n\n",
                    ("Content-Transfer-Encoding", "7bit"),
                ),
                part(
                    'application/octet-stream;\n\tx-unix-mode=0644;\n\tname="sam-turn4.yaml"',
                    b64(order),
                    ("Content-Disposition", "attachment;\n\tfilename=sam-turn4.yaml"),
                    ("Content-Transfer-Encoding", "base64"),
                ),
                part(
                    'application/octet-stream;\n\tx-unix-mode=0644;\n\tname="sam-turn4.yaml.sig"',
                    signature,
                    ("Content-Disposition", "attachment;\n\tfilename=sam-turn4.yaml.sig"),
                    ("Content-Transfer-Encoding", "7bit"),
                ),
                part(
                    "text/plain;\n\tcharset=us-ascii",
                    b"\n\nSam\n",
                    ("Content-Transfer-Encoding", "7bit"),
                ),
            ],
        )
    )


def ap_forward_attachment(order: bytes, signature: bytes) -> bytes:
    boundary = "Apple-Mail=_1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D"
    inner = ap_pasted(order, signature)
    return (
        ap_head(
            "Fwd: Orders turn 4",
            "1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D",
            f'multipart/mixed;\n\tboundary="{boundary}"',
        )
        + b"\n"
        + multipart(
            boundary,
            [
                part(
                    "text/plain;\n\tcharset=us-ascii",
                    b"Here you go.\n\n",
                    ("Content-Transfer-Encoding", "7bit"),
                ),
                part(
                    'message/rfc822;\n\tx-unix-mode=0666;\n\tname="Orders turn 4.eml"',
                    inner,
                    ("Content-Disposition", 'attachment;\n\tfilename="Orders turn 4.eml"'),
                    ("Content-Transfer-Encoding", "7bit"),
                ),
            ],
        )
    )


def ap_pasted(order: bytes, signature: bytes) -> bytes:
    text = (
        b"Dear GM,\n\nmy orders for this round:\n\n"
        + order
        + signature
        + b"\nBest,\nSam\n\nSent from my Mac\n"
    )
    return (
        ap_head("Orders turn 3", "2B3C4D5E-6F7A-4B8C-9D0E-1F2A3B4C5D6E", AP_FLOWED)
        + b"\n"
        + flowed(text, delsp=True)
    )


def ap_quoted(order: bytes, signature: bytes) -> bytes:
    earlier = (
        b"On 24 Nov 2026, at 21:14, Sam Example <sam@example.org> wrote:\n\n" + order + signature
    )
    text = b"Again, in case the first one got lost.\n\nSam\n\n" + quote(earlier, b"> ", b"> ")
    return (
        ap_head(
            "Re: Orders turn 3",
            "3C4D5E6F-7A8B-4C9D-0E1F-2A3B4C5D6E7F",
            AP_FLOWED,
            ("References", "<2B3C4D5E-6F7A-4B8C-9D0E-1F2A3B4C5D6E@example.org>"),
            ("In-Reply-To", "<2B3C4D5E-6F7A-4B8C-9D0E-1F2A3B4C5D6E@example.org>"),
        )
        + b"\n"
        + flowed(text, delsp=True)
    )


def ap_inline_forward(order: bytes, signature: bytes) -> bytes:
    original = (
        b"From: Sam Example <sam@example.org>\nSubject: Orders turn 3\n"
        b"Date: 24 November 2026 at 21:14:02 CET\nTo: gm@example.net\n\n"
    )
    text = b"\n\nBegin forwarded message:\n\n" + quote(original + order + signature, b"> ", b"> ")
    return (
        ap_head("Fwd: Orders turn 3", "4D5E6F7A-8B9C-4D0E-1F2A-3B4C5D6E7F80", AP_FLOWED)
        + b"\n"
        + flowed(text, delsp=True)
    )


# --- Gmail --------------------------------------------------------------------------------------


def gm_head(subject: str, mid: str, boundary: str, kind: str, *extra: tuple[str, str]) -> bytes:
    return headers(
        ("MIME-Version", "1.0"),
        ("From", "Sam Example <sam.example@gmail.com>"),
        ("Date", "Wed, 25 Nov 2026 10:02:11 +0100"),
        *extra,
        ("Message-ID", f"<{mid}@mail.gmail.com>"),
        ("Subject", subject),
        ("To", "gm@example.net"),
        ("Content-Type", f'multipart/{kind}; boundary="{boundary}"'),
        ("X-Fixture-Note", NOTES["gmail"]),
    )


def gm_alternative(boundary: str, text: bytes) -> bytes:
    plain_cte = "quoted-printable" if any(byte > 127 for byte in text) else "7bit"
    plain = qp(text) if plain_cte == "quoted-printable" else text
    return multipart(
        boundary,
        [
            part('text/plain; charset="UTF-8"', plain, ("Content-Transfer-Encoding", plain_cte)),
            part(
                'text/html; charset="UTF-8"',
                qp(html(text).replace(b"class=MsoNormal", b'dir="ltr"')),
                ("Content-Transfer-Encoding", "quoted-printable"),
            ),
        ],
    )


def gm_attachment(name: str, content_type: str, data: bytes, ident: str) -> bytes:
    return part(
        f'{content_type}; name="{name}"',
        b64(data),
        ("Content-Disposition", f'attachment; filename="{name}"'),
        ("Content-Transfer-Encoding", "base64"),
        ("Content-ID", f"<{ident}>"),
        ("X-Attachment-Id", ident),
    )


def gm_pair(order: bytes, signature: bytes) -> bytes:
    mixed, alternative = "000000000000c3a1f2061a2b3c4d", "000000000000c3a1f0061a2b3c4d"
    text = "Hi GM,\n\nmy orders are attached.\n\nGrüße\nSam\n".encode()
    return (
        gm_head("Orders turn 4", "CAF=+xq1Pair0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT", mixed, "mixed")
        + b"\n"
        + multipart(
            mixed,
            [
                part(
                    f'multipart/alternative; boundary="{alternative}"',
                    gm_alternative(alternative, text),
                ),
                gm_attachment("sam-turn4.yaml", "application/x-yaml", order, "f_m3x1a2b30"),
                gm_attachment(
                    "sam-turn4.yaml.sig", "application/pgp-signature", signature, "f_m3x1a2b41"
                ),
            ],
        )
    )


def gm_forward_attachment(order: bytes, signature: bytes) -> bytes:
    mixed, alternative = "000000000000d4b2f3071b2c3d4e", "000000000000d4b2f1071b2c3d4e"
    inner = gm_pasted(order, signature)
    text = b"Forwarded as an attachment.\n"
    return (
        gm_head("Fwd: Orders turn 4", "CAF=+xq1FwdAtt1bC2dE3fG4hI5jK6lM7nO8pQ9rS", mixed, "mixed")
        + b"\n"
        + multipart(
            mixed,
            [
                part(
                    f'multipart/alternative; boundary="{alternative}"',
                    gm_alternative(alternative, text),
                ),
                part(
                    'message/rfc822; name="Orders turn 4.eml"',
                    inner,
                    ("Content-Disposition", 'attachment; filename="Orders turn 4.eml"'),
                    ("Content-ID", "<f_m3x1fwd0>"),
                    ("X-Attachment-Id", "f_m3x1fwd0"),
                ),
            ],
        )
    )


def gm_pasted(order: bytes, signature: bytes) -> bytes:
    alternative = "000000000000e5c3f4081c2d3e4f"
    text = b"Hi GM,\n\nmy orders:\n\n" + order + signature + "\nGrüße\n-- \nSam\n".encode()
    return (
        gm_head(
            "Orders turn 4", "CAF=+xq1Paste2cD3eF4gH5iJ6kL7mN8oP9qR0sT", alternative, "alternative"
        )
        + b"\n"
        + gm_alternative(alternative, text)
    )


def gm_quoted(order: bytes, signature: bytes) -> bytes:
    alternative = "000000000000f6d4f5091d2e3f40"
    first = b"Hi GM,\n\n" + order + signature
    gm_reply = (
        b"Got it, but please confirm it is final.\n\n"
        b"On Tue, Nov 24, 2026 at 9:14\xe2\x80\xafPM Sam Example <\n"
        b"sam.example@gmail.com> wrote:\n\n"
    )
    second = gm_reply + quote(first)
    text = (
        b"Confirmed, this is final.\n\n"
        b"On Wed, Nov 25, 2026 at 8:30\xe2\x80\xafAM GM <gm@example.net> wrote:\n\n" + quote(second)
    )
    return (
        gm_head(
            "Re: Orders turn 4",
            "CAF=+xq1Quote3dE4fG5hI6jK7lM8nO9pQ0rS1tU",
            alternative,
            "alternative",
            (
                "References",
                "<CAF=+xq1Paste2cD3eF4gH5iJ6kL7mN8oP9qR0sT@mail.gmail.com> <turn4-ack@example.net>",
            ),
            ("In-Reply-To", "<turn4-ack@example.net>"),
        )
        + b"\n"
        + gm_alternative(alternative, text)
    )


def gm_inline_forward(order: bytes, signature: bytes) -> bytes:
    alternative = "000000000000a7e5f60a1e2f4051"
    text = (
        b"\n\n---------- Forwarded message ---------\nFrom: Sam Example <sam.example@gmail.com>\n"
        b"Date: Tue, Nov 24, 2026 at 9:14\xe2\x80\xafPM\nSubject: Orders turn 4\n"
        b"To: <gm@example.net>\n\n\n"
    )
    text += b"Hi GM,\n\n" + order + signature
    return (
        gm_head(
            "Fwd: Orders turn 4",
            "CAF=+xq1Inline4eF5gH6iJ7kL8mN9oP0qR1sT2uV",
            alternative,
            "alternative",
        )
        + b"\n"
        + gm_alternative(alternative, text)
    )


FIXTURES = [
    Fixture("thunderbird-attachment-pair.eml", FORM, tb_pair, True, "order + .sig, base64 at 72"),
    Fixture(
        "thunderbird-forward-attachment.eml",
        FORM,
        tb_forward_attachment,
        True,
        "Forward > As Attachment: message/rfc822 holding the pair",
    ),
    Fixture(
        "thunderbird-pasted-greeting.eml",
        COURT,
        tb_pasted,
        True,
        "pasted between greeting and '-- ' signature, long comment soft-wrapped",
    ),
    Fixture(
        "thunderbird-quoted-reply.eml",
        COURT,
        tb_quoted,
        True,
        "reply quoting the pasted order, '> ' quotes, flowed",
    ),
    Fixture(
        "thunderbird-inline-forward.eml",
        FORM,
        tb_inline_forward,
        True,
        "'-------- Forwarded Message --------' block, form with comments",
    ),
    Fixture(
        "outlook-attachment-pair.eml",
        WINDOWS,
        ol_pair,
        True,
        "order (CRLF, Notepad) + .sig, octet-stream base64",
    ),
    Fixture(
        "outlook-forward-attachment.eml",
        WINDOWS,
        ol_forward_attachment,
        True,
        "Forward as Attachment: message/rfc822 holding the pair",
    ),
    Fixture(
        "outlook-pasted-greeting.eml",
        PLAIN,
        ol_pasted,
        True,
        "pasted in the QP text/plain alternative, greeting and signature",
    ),
    Fixture(
        "outlook-quoted-reply.eml",
        PLAIN,
        ol_quoted,
        True,
        "'-----Original Message-----' header block, no quote marks",
    ),
    Fixture(
        "outlook-inline-forward.eml",
        PLAIN,
        ol_inline_forward,
        True,
        "'____' line and From/Sent/To/Subject block",
    ),
    Fixture(
        "apple-mail-attachment-pair.eml",
        PLAIN,
        ap_pair,
        False,
        "order base64 + .sig 7bit, x-unix-mode, text parts around",
    ),
    Fixture(
        "apple-mail-forward-attachment.eml",
        COURT,
        ap_forward_attachment,
        False,
        "message/rfc822 holding a pasted order",
    ),
    Fixture(
        "apple-mail-pasted-greeting.eml",
        COURT,
        ap_pasted,
        False,
        "pasted, flowed delsp=yes, 'Sent from my Mac'",
    ),
    Fixture(
        "apple-mail-quoted-reply.eml",
        PLAIN,
        ap_quoted,
        False,
        "'> ' quotes (empty lines '> '), flowed delsp=yes",
    ),
    Fixture(
        "apple-mail-inline-forward.eml",
        PLAIN,
        ap_inline_forward,
        False,
        "'Begin forwarded message:' with the original quoted '> '",
    ),
    Fixture(
        "gmail-attachment-pair.eml",
        PLAIN,
        gm_pair,
        True,
        "order + .sig, application/x-yaml, X-Attachment-Id",
    ),
    Fixture(
        "gmail-forward-attachment.eml",
        PLAIN,
        gm_forward_attachment,
        True,
        "message/rfc822 holding a pasted order",
    ),
    Fixture(
        "gmail-pasted-greeting.eml",
        FORM,
        gm_pasted,
        True,
        "pasted form between greeting and '-- ', QP for the umlaut",
    ),
    Fixture(
        "gmail-quoted-reply.eml",
        PLAIN,
        gm_quoted,
        True,
        "quoted twice ('> > '), empty quoted lines '>'",
    ),
    Fixture(
        "gmail-inline-forward.eml",
        PLAIN,
        gm_inline_forward,
        True,
        "'---------- Forwarded message ---------' block",
    ),
]


# --- orders pasted into a rich-text (HTML) compose window ----------------------------------------
#
# A player who composes in HTML pastes the order and its signature into the window: the editor
# keeps each line as a <br> break (Thunderbird, in a <p>), a <div> (Gmail, Apple Mail) or a <p>
# (Outlook), writes runs of spaces with no-break spaces so they show, and escapes <, > and &.
# Thunderbird's serializer then indents the source and wraps it at 72 columns at a space.

#: An order whose comment is longer than 72 columns and holds characters HTML escapes.
RICH = (
    "# Sultan, game cairo-2026, turn 4: sam's order (bids <= 2 & no ties).\n"
    "# Your hand: 3, 7, 12, 15 - Grüße an alle, and a comment long enough to wrap\n"
    "\n"
    "id: cairo-2026\n"
    "player: sam\n"
    "turn: 4\n"
    "bids:\n"
    "  - cushion: 2  # 1 (red), 2 (blue), 3 (green)\n"
    "    card: 12    # one of your cards: 3, 7, 12, 15\n"
    "  - cushion: 1\n"
    "    card: 7\n"
).encode()


def gecko_spaces(line: str) -> str:
    """A line as Gecko's editor (Thunderbird) keeps it: each run of spaces that HTML would
    collapse as no-break spaces ending with one plain space (all no-break at a line's ends)."""
    out: list[str] = []
    index = 0
    while index < len(line):
        if line[index] != " ":
            out.append(escape(line[index], quote=False))
            index += 1
            continue
        end = index
        while end < len(line) and line[end] == " ":
            end += 1
        run = end - index
        if index == 0 or end == len(line):
            out.append("&nbsp;" * run)
        else:
            out.append("&nbsp;" * (run - 1) + " ")
        index = end
    return "".join(out)


def blink_spaces(line: str) -> str:
    """A line as Chromium's and WebKit's editors (Gmail, Apple Mail) keep it: runs of spaces as
    no-break spaces and spaces in turn, a no-break one first at a line's start."""
    out: list[str] = []
    index = 0
    while index < len(line):
        if line[index] != " ":
            out.append(escape(line[index], quote=False))
            index += 1
            continue
        end = index
        while end < len(line) and line[end] == " ":
            end += 1
        run = end - index
        if run == 1 and index > 0 and end < len(line):
            out.append(" ")
        else:
            out.append("".join("&nbsp;" if n % 2 == 0 else " " for n in range(run)))
            if end == len(line) and out[-1].endswith(" "):
                out[-1] = out[-1][:-1] + "&nbsp;"
        index = end
    return "".join(out)


def tb_wrap(line: str, indent: str, width: int = 72) -> str:
    """One line of Thunderbird's HTML source, wrapped at a space outside a tag (the serializer
    wraps at mailnews.wraplength, 72), each continuation with the same indent."""
    out: list[str] = []
    line = indent + line
    while len(line) > width:
        cut = -1
        depth = 0
        for position, char in enumerate(line[:width]):
            depth += char == "<"
            depth -= char == ">"
            if char == " " and depth == 0 and position > len(indent):
                cut = position
        if cut < 0:
            break
        out.append(line[:cut])
        line = indent + line[cut + 1 :]
    out.append(line)
    return "\n".join(out)


def tb_html_page(body: str) -> bytes:
    return (
        "<!DOCTYPE html>\n<html>\n  <head>\n"
        '    <meta http-equiv="content-type" content="text/html; charset=UTF-8">\n'
        "  </head>\n  <body>\n" + body + "  </body>\n</html>\n"
    ).encode()


def tb_pasted_paragraph(text: bytes) -> str:
    """Lines pasted into one <p> of Thunderbird's editor: <br> breaks, Gecko's spaces, the
    source wrapped; an empty line is a <br> of its own."""
    lines = text.decode().split("\n")[:-1]
    body = "    <p>" + gecko_spaces(lines[0]) + "<br>\n"
    for line in lines[1:]:
        body += tb_wrap(gecko_spaces(line) + "<br>", "      ") + "\n"
    return body + "    </p>\n"


def tb_rich_head(subject: str, mid: str, *extra: tuple[str, str]) -> bytes:
    return tb_head(subject, mid, *extra).replace(
        NOTES["thunderbird"].encode(), NOTES["thunderbird-html"].encode()
    )


def tb_html_only(order: bytes, signature: bytes) -> bytes:
    body = (
        "    <p>Hi GM,</p>\n    <p>here are my orders, pasted as they were signed:</p>\n"
        + tb_pasted_paragraph(order + signature)
        + '    <div class="moz-signature">-- <br>\n      Sam</div>\n'
    )
    return (
        tb_rich_head("Orders turn 4", "f1a2b3c4-tb-html-only")
        + headers(
            ("Content-Type", "text/html; charset=UTF-8"), ("Content-Transfer-Encoding", "8bit")
        )
        + b"\n"
        + tb_html_page(body)
    )


def hard_wrapped(text: bytes, width: int = 72) -> bytes:
    """``text`` wrapped at ``width`` with hard line breaks (a plain-text version made with
    mailnews.send_plaintext_flowed off): what it does to a long comment line breaks the order."""
    out: list[bytes] = []
    for line in text.split(b"\n")[:-1]:
        while len(line) > width and b" " in line[1:width]:
            cut = line.rfind(b" ", 1, width)
            out.append(line[:cut])
            line = line[cut + 1 :]
        out.append(line)
    return b"\n".join(out) + b"\n"


def tb_html_alternative(order: bytes, signature: bytes) -> bytes:
    boundary = "------------3Fv8Tn1Qx6Jd2Ws9Hk4Pb7Ge"
    greeting = b"Hi GM,\n\nmy orders:\n\n"
    body = (
        "    <p>Hi GM,</p>\n    <p>my orders:</p>\n"
        + tb_pasted_paragraph(order + signature)
        + "    <p>Sam<br>\n    </p>\n"
    )
    plain = hard_wrapped(greeting + order + signature + b"\nSam\n")
    return (
        tb_rich_head("Orders turn 4", "a9b8c7d6-tb-html-alt")
        + headers(("Content-Type", f'multipart/alternative; boundary="{boundary}"'))
        + b"\n"
        + multipart(
            boundary,
            [
                part(
                    "text/plain; charset=UTF-8",
                    qp(plain),
                    ("Content-Transfer-Encoding", "quoted-printable"),
                ),
                part(
                    "text/html; charset=UTF-8",
                    qp(tb_html_page(body)),
                    ("Content-Transfer-Encoding", "quoted-printable"),
                ),
            ],
            b"This is a multi-part message in MIME format.\n",
        )
    )


def tb_html_quote_pre(order: bytes, signature: bytes) -> bytes:
    """An HTML reply quoting the player's own plain-text message (not flowed): Thunderbird
    quotes it in <pre class="moz-quote-pre"> inside <blockquote type="cite">."""
    earlier = (b"Hi GM,\n\n" + order + signature + b"\n-- \nSam\n").decode()
    body = (
        "    <p>Sending them again, see below.</p>\n"
        '    <div class="moz-cite-prefix">On 24/11/2026 21:14, Sam Example wrote:<br>\n'
        "    </div>\n"
        '    <blockquote type="cite" cite="mid:c1f3a4b5-tb-plain@example.org">\n'
        '      <pre class="moz-quote-pre" wrap="">' + escape(earlier, quote=False) + "</pre>\n"
        "    </blockquote>\n"
    )
    return (
        tb_rich_head(
            "Re: Orders turn 4",
            "b2c3d4e5-tb-html-quote-pre",
            ("References", "<c1f3a4b5-tb-plain@example.org>"),
            ("In-Reply-To", "<c1f3a4b5-tb-plain@example.org>"),
        )
        + headers(
            ("Content-Type", "text/html; charset=UTF-8"), ("Content-Transfer-Encoding", "8bit")
        )
        + b"\n"
        + tb_html_page(body)
    )


def tb_html_quote_flowed(order: bytes, signature: bytes) -> bytes:
    """An HTML reply quoting the player's own format=flowed message: Thunderbird shows flowed
    text as <div class="moz-text-flowed">, lines as <br>, leading spaces as &nbsp;."""
    earlier = b"Hi GM,\n\n" + order + signature + b"\n-- \nSam\n"
    lines = earlier.decode().split("\n")[:-1]
    flowed_html = "".join(tb_wrap(gecko_spaces(line) + "<br>", "        ") + "\n" for line in lines)
    body = (
        "    <p>Did this one reach you?</p>\n"
        '    <div class="moz-cite-prefix">On 24/11/2026 21:14, Sam Example wrote:<br>\n'
        "    </div>\n"
        '    <blockquote type="cite" cite="mid:c1f3a4b5-tb-pasted@example.org">\n'
        '      <div class="moz-text-flowed" style="font-family: -moz-fixed;\n'
        '        font-size: 12px;" lang="x-unicode">' + flowed_html + "      </div>\n"
        "    </blockquote>\n"
    )
    return (
        tb_rich_head(
            "Re: Orders turn 4",
            "c3d4e5f6-tb-html-quote-flowed",
            ("References", "<c1f3a4b5-tb-pasted@example.org>"),
            ("In-Reply-To", "<c1f3a4b5-tb-pasted@example.org>"),
        )
        + headers(
            ("Content-Type", "text/html; charset=UTF-8"), ("Content-Transfer-Encoding", "8bit")
        )
        + b"\n"
        + tb_html_page(body)
    )


def gm_rich(order: bytes, signature: bytes) -> bytes:
    """Gmail's rich-text window: each pasted line a <div>, an empty one <div><br></div>, spaces
    as &nbsp; and spaces in turn; the text version here lost the order's indentation."""
    boundary = "000000000000b8f6a70b2f3e5162"
    text = b"Hi GM,\n\n" + order + signature + b"\nSam\n"
    divs = "".join(
        f"<div>{blink_spaces(line)}</div>" if line else "<div><br></div>"
        for line in text.decode().split("\n")[:-1]
    )
    page = f'<div dir="ltr">{divs}</div>\n'.encode()
    plain = b"\n".join(line.lstrip(b" ") for line in text.split(b"\n"))
    return (
        gm_head("Orders turn 4", "CAJm8Qx3rich", boundary, "alternative").replace(
            NOTES["gmail"].encode(), NOTES["gmail-html"].encode()
        )
        + b"\n"
        + multipart(
            boundary,
            [
                part(
                    'text/plain; charset="UTF-8"',
                    qp(plain),
                    ("Content-Transfer-Encoding", "quoted-printable"),
                ),
                part(
                    'text/html; charset="UTF-8"',
                    qp(page),
                    ("Content-Transfer-Encoding", "quoted-printable"),
                ),
            ],
        )
    )


def ap_rich(order: bytes, signature: bytes) -> bytes:
    """Apple Mail's rich text, sent as HTML only here: <div> lines, <br> for empty ones,
    -webkit-nbsp-mode: space."""
    text = b"Hi GM,\n\n" + order + signature + b"\nSent from my Mac\n"
    divs = "".join(
        f"<div>{blink_spaces(line)}</div>" if line else "<div><br></div>"
        for line in text.decode().split("\n")[:-1]
    )
    page = (
        '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
        '<body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: '
        f'after-white-space;">{divs}</body></html>'
    ).encode()
    return (
        headers(
            ("From", "Sam Example <sam@example.org>"),
            ("Content-Type", "text/html;\n\tcharset=utf-8"),
            ("Content-Transfer-Encoding", "quoted-printable"),
            ("Mime-Version", "1.0 (Mac OS X Mail 16.0 \\(3826.300.87.4.3\\))"),
            ("Subject", "Orders turn 4"),
            ("Message-Id", "<5F0E1D2C-3B4A-4958-A6B7-C8D9E0F1A2B3@example.org>"),
            ("Date", "Wed, 25 Nov 2026 10:02:11 +0100"),
            ("To", "gm@example.net"),
            ("X-Mailer", "Apple Mail (2.3826.300.87.4.3)"),
            ("X-Fixture-Note", NOTES["apple-html"]),
        )
        + b"\n"
        + qp(page)
    )


RICH_FIXTURES = [
    Fixture(
        "thunderbird-html-only.eml",
        RICH,
        tb_html_only,
        True,
        "HTML only: pasted into a <p>, <br> lines, &nbsp; indentation, source wrapped at 72",
    ),
    Fixture(
        "thunderbird-html-alternative.eml",
        RICH,
        tb_html_alternative,
        True,
        "HTML and a text version hard-wrapped at 72, which breaks the order",
    ),
    Fixture(
        "thunderbird-html-quote-pre.eml",
        RICH,
        tb_html_quote_pre,
        True,
        "HTML reply quoting a plain message: <blockquote><pre class=moz-quote-pre>",
    ),
    Fixture(
        "thunderbird-html-quote-flowed.eml",
        RICH,
        tb_html_quote_flowed,
        True,
        "HTML reply quoting a flowed message: <blockquote><div class=moz-text-flowed>",
    ),
    Fixture(
        "gmail-html-divs.eml",
        RICH,
        gm_rich,
        True,
        "<div> lines, &nbsp; and spaces in turn; the text version lost the indentation",
    ),
    Fixture(
        "apple-mail-html-only.eml",
        RICH,
        ap_rich,
        False,
        "HTML only, quoted-printable, <div> lines",
    ),
]


def build(fixture: Fixture, signature: bytes) -> bytes:
    raw = fixture.build(fixture.order, signature)
    return raw.replace(b"\n", b"\r\n") if fixture.crlf else raw


def main() -> int:
    for fixture in [*FIXTURES, *RICH_FIXTURES]:
        (HERE / fixture.name).write_bytes(build(fixture, sign(fixture.order)))
        print(fixture.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
