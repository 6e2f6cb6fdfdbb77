"""Answers thread for every Message-ID a real program writes, however long.

Exchange and Outlook write Message-IDs of 80 to 150 characters; RFC 5322 sets no limit below a
line's 998 characters. An answer's In-Reply-To and References carry them as they were written:
never as RFC 2047 encoded-words (a structured field may not hold them, and no mail program
threads on them), folded only at the white space between two ids, every line at most 998
characters. A References chain that is too long keeps the first id and the latest ones.

Checked on the bytes written, through ``ingest`` and ``send``, and by real programs: Dovecot
threads the player's message and the answer (IMAP ``THREAD=REFERENCES``, RFC 5256), and
s-nail's reply to the answer carries the whole chain on.
"""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from adjudicator.mail.incoming import read_message
from adjudicator.mail.outgoing import (
    MAX_REFERENCES,
    MAX_REFERENCES_LENGTH,
    POLICY,
    receipt_mail,
)
from adjudicator.present.quoting import MAX_MSG_ID, msg_id
from tests import imapserver, test_mail_answers
from tests.helpers import Table
from tests.imapserver import ImapServer
from tests.test_mail_answers import ingest, mail, sent, signed_order
from tests.test_mail_programs import SNail, mbox_of

table = test_mail_answers.table
config = test_mail_answers.config
owes = test_mail_answers.owes
authority = imapserver.authority

PARSER = BytesParser(policy=email.policy.default)

#: As Exchange Online writes them (the id-left is the mailbox server and a hex GUID).
EXCHANGE = "<DB7PR04MB1234567890ABCDEF1234567890ABCDEF@DB7PR04MB1234.eurprd04.prod.outlook.com>"
EXCHANGE_LONG = (
    "<AM0PR10MB2675A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F6071829@"
    "AM0PR10MB2675.EURPRD10.PROD.OUTLOOK.COM>"
)
#: Longer than a folded line (78), and the longest an id may be: one on a line of its own.
OVER_A_LINE = "<" + "CAF" * 40 + "=Xq+z_w@mail.gmail.com>"
LONGEST = "<" + "x" * (MAX_MSG_ID - len("<@example.org>")) + "@example.org>"

IDS = [EXCHANGE, EXCHANGE_LONG, OVER_A_LINE, LONGEST]


def header_lines(raw: bytes, name: str) -> list[bytes]:
    """The lines of the header field ``name`` as written (the first and its continuations)."""
    head = raw.split(b"\r\n\r\n", 1)[0]
    lines = head.split(b"\r\n")
    for index, line in enumerate(lines):
        if line.lower().startswith(name.lower().encode() + b":"):
            out = [line]
            for more in lines[index + 1 :]:
                if more[:1] not in (b" ", b"\t"):
                    break
                out.append(more)
            return out
    return []


def ids_as_written(raw: bytes, name: str) -> list[str]:
    """The ids of a field as written, unfolded by removing each CRLF (RFC 5322 2.2.3)."""
    lines = header_lines(raw, name)
    value = b"".join(lines).split(b":", 1)[1].decode("ascii")
    return value.split()


def check_written(raw: bytes, name: str, ids: list[str]) -> None:
    lines = header_lines(raw, name)
    assert lines, f"no {name}"
    assert b"=?" not in b"".join(lines), b"\r\n".join(lines)
    assert all(len(line) <= 998 for line in lines)
    # Folded only between ids: every line is the name and ids, or white space and ids.
    for number, line in enumerate(lines):
        words = line.decode("ascii").split()
        if number == 0:
            assert words[0] == f"{name}:"
            words = words[1:]
        assert words and all(msg_id(word) for word in words), line
        if len(words) > 1:  # a line longer than 78 holds one id alone
            assert len(line) <= 78, line
    assert ids_as_written(raw, name) == ids


def answer(in_reply_to: str | None, references: list[str]) -> bytes:
    message = receipt_mail(
        sender="Sultan <gm-bot@example.org>",
        to="alice@example.org",
        game_id="cairo-2026",
        subject="[cairo-2026] turn 1: order accepted",
        in_reply_to=in_reply_to,
        references=references,
        body="Your order was accepted.\n",
        message_id="<receipt.0123456789abcdef@example.org>",
    )
    return message.as_bytes(policy=POLICY)


@pytest.mark.parametrize("parent", IDS)
def test_a_long_message_id_is_written_as_it_is(parent: str) -> None:
    raw = answer(parent, [EXCHANGE, EXCHANGE_LONG])
    check_written(raw, "In-Reply-To", [parent])
    chain = list(dict.fromkeys([EXCHANGE, EXCHANGE_LONG, parent]))
    check_written(raw, "References", chain)
    parsed = PARSER.parsebytes(raw)
    assert parsed["In-Reply-To"] == parent
    assert str(parsed["References"]).split() == chain


def test_short_ids_share_lines_of_at_most_78_characters() -> None:
    chain = [f"<m{n}.{'a' * 20}@example.org>" for n in range(12)]
    raw = answer(chain[-1], chain[:-1])
    lines = header_lines(raw, "References")
    assert len(lines) > 1 and all(len(line) <= 78 for line in lines)
    assert ids_as_written(raw, "References") == chain


def test_a_chain_too_long_keeps_the_first_id_and_the_latest() -> None:
    many = [f"<m{n}@x>" for n in range(50)]
    chain = ids_as_written(answer("<last@x>", many), "References")
    assert len(chain) == MAX_REFERENCES
    assert chain[0] == "<m0@x>"
    assert chain[1:] == [*many[-(MAX_REFERENCES - 2) :], "<last@x>"]


def test_a_chain_of_long_ids_is_trimmed_to_its_length_cap() -> None:
    longest = [f"<{n:03d}" + "x" * (MAX_MSG_ID - 17) + "@example.org>" for n in range(30)]
    assert all(len(ident) == MAX_MSG_ID and msg_id(ident) for ident in longest)
    raw = answer(longest[-1], longest[:-1])
    chain = ids_as_written(raw, "References")
    assert 2 <= len(chain) < MAX_REFERENCES
    assert chain[0] == longest[0]
    assert chain[1:] == longest[-(len(chain) - 1) :]
    assert len(" ".join(chain)) <= MAX_REFERENCES_LENGTH
    check_written(raw, "References", chain)


def test_the_longest_message_id_read_is_the_longest_written() -> None:
    """What incoming mail keeps, outgoing mail can write on one line."""
    assert len("In-Reply-To: ") + MAX_MSG_ID <= 998
    head = (
        f"From: alice@example.org\r\nMessage-ID:\r\n {LONGEST}\r\n"
        f"References: {EXCHANGE}\r\n {OVER_A_LINE}\r\n\tmangled <no id>\r\n"
        "Subject: x\r\n\r\nhello\r\n"
    )
    found = read_message(head.encode())
    assert found.message_id == LONGEST
    assert found.references == (EXCHANGE, OVER_A_LINE)
    too_long = LONGEST.replace("@", "y@", 1)
    assert read_message(head.replace(LONGEST, too_long).encode()).message_id is None


@pytest.mark.parametrize("parent", [EXCHANGE, OVER_A_LINE, LONGEST])
def test_ingest_answers_in_the_thread_of_a_long_message_id(
    table: Table, config: Path, owes: str, parent: str
) -> None:
    raw = mail(signed_order(table, owes), sender=f"{owes}@example.org", message_id=parent)
    raw = raw.replace(b"Subject:", f"References: {EXCHANGE_LONG}\r\nSubject:".encode(), 1)
    lines = ingest(table, config, raw)
    assert lines[0].endswith("1 accepted")
    [receipt] = sent(table, config)
    written = receipt.as_bytes(policy=POLICY)
    check_written(written, "In-Reply-To", [parent])
    check_written(written, "References", [EXCHANGE_LONG, parent])
    [path] = [
        p for p in (table.gamedir / "outbox").glob("*.eml") if b"auto-replied" in p.read_bytes()
    ]
    check_written(path.read_bytes(), "In-Reply-To", [parent])


# --- real programs --------------------------------------------------------------------------------


def player_message(message_id: str, references: list[str]) -> bytes:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "my orders"
    message["Date"] = "Mon, 23 Nov 2026 19:58:00 +0000"
    message["Message-ID"] = message_id
    message.set_content("Here are my orders.\n")
    raw = message.as_bytes(policy=email.policy.SMTP)
    if references:
        folded = "\r\n ".join(references)
        raw = raw.replace(b"Subject:", f"References: {folded}\r\nSubject:".encode(), 1)
    return raw


def test_dovecot_threads_the_answer_with_the_message(imap_server: ImapServer) -> None:
    """IMAP THREAD=REFERENCES (RFC 5256) on a real server: one thread, the answer under it."""
    root = player_message(EXCHANGE, [])
    parent = player_message(LONGEST, [EXCHANGE])
    raw = answer(LONGEST, [EXCHANGE])
    imap_server.append(root, parent, raw)
    with imap_server.client() as client:
        client.select_folder("INBOX", readonly=True)
        threads = client.thread(algorithm="REFERENCES", criteria="ALL")
        first, second, third = sorted(client.search("ALL"))  # UIDs, in the order appended
    # One thread: the root, the player's message under it, the answer under that (without the
    # fix the answer stood alone: ((1, 2), (3,)) on a new server).
    assert tuple(threads) == ((first, second, third),), threads


def test_a_reply_by_s_nail_carries_the_chain_on(tmp_path: Path) -> None:
    """s-nail reads the folded In-Reply-To and References and replies in the same thread."""
    raw = answer(OVER_A_LINE, [EXCHANGE, EXCHANGE_LONG])
    snail = SNail(tmp_path)
    reply = snail.command(mbox_of(tmp_path, raw), "reply 1\n", b"Thanks.\n")
    ours = "<receipt.0123456789abcdef@example.org>"
    parsed = PARSER.parsebytes(reply)
    assert parsed["In-Reply-To"] == ours
    assert str(parsed["References"]).split() == [EXCHANGE, EXCHANGE_LONG, OVER_A_LINE, ours]
