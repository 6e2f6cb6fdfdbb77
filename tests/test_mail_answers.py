"""Who mail answers, through the commands (ingest, send), with ssh-keygen signatures and the
outbox folder: signatures are checked before anything is answered, nothing from a message
reaches a header or a line unescaped, automatic mail is never answered, an address gets at most
5 answers per game per hour (the rest as one digest), and the game master's notices name a
message without carrying it."""

from __future__ import annotations

import email.policy
import hashlib
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Table, run
from tests.ssh import make_key, ssh_sign

PARSER = BytesParser(policy=email.policy.default)
START = datetime.fromisoformat("2026-11-23T20:00:00+00:00")


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    monkeypatch.setenv("ADJUDICATOR_NOW", START.isoformat())
    table = Table(tmp_path, players=3)
    table.keys["mallory"] = make_key(tmp_path / "keys", "mallory")
    return table


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """Settings with no [smtp]: everything goes to GAMEDIR/outbox/."""
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "Sultan <gm-bot@example.org>"\ngm = "gm@example.org"\n')
    return path


def at(monkeypatch: pytest.MonkeyPatch, minutes: int) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", (START + timedelta(minutes=minutes)).isoformat())


def signed_order(
    table: Table,
    player: str,
    *,
    signer: str | None = None,
    game_id: str = "cairo-2026",
    n: int = 0,
    turn: int | None = None,
) -> tuple[bytes, bytes]:
    """(order bytes, signature) of a legal order of ``player`` (for ``turn``, default the
    current one), signed with ``signer``'s key; ``n`` makes the bytes differ (a comment)."""
    text = table.order_text(player, table.legal(player), turn=turn)
    text = text.replace("cairo-2026", game_id)
    path = table.write(f"{player}-{signer or player}-{game_id}-{n}.yaml", f"{text}# {n}\n")
    signature = ssh_sign(table.keys[signer or player], path)
    return path.read_bytes(), signature.read_bytes()


def mail(
    order: tuple[bytes, bytes] | None,
    *,
    sender: str = "alice@example.org",
    message_id: str = "<m@mail>",
    subject: str = "my orders",
    name: str = "orders.yaml",
    headers: dict[str, str] | None = None,
    body: str = "Here are my orders.\n",
) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm-bot@example.org"
    message["Subject"] = subject
    message["Message-ID"] = message_id
    message["Date"] = "Mon, 23 Nov 2026 19:58:00 +0000"
    for key, value in (headers or {}).items():
        message[key] = value
    message.set_content(body)
    if order is not None:
        message.add_attachment(order[0], maintype="text", subtype="yaml", filename=name)
        message.add_attachment(
            order[1], maintype="application", subtype="octet-stream", filename=f"{name}.sig"
        )
    return message.as_bytes(policy=email.policy.SMTP)


def ingest(table: Table, config: Path, raw: bytes) -> list[str]:
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def sent(table: Table, config: Path) -> list[EmailMessage]:
    """What a `send` now writes to the outbox (the first reports are sent by the fixture)."""
    before = set((table.gamedir / "outbox").glob("*.eml"))
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    new = sorted(set((table.gamedir / "outbox").glob("*.eml")) - before)
    return [PARSER.parsebytes(path.read_bytes()) for path in new]  # type: ignore[misc]


def text(message: EmailMessage) -> str:
    body: Any = message.get_body(("plain",))
    return str(body.get_content()).replace("\r\n", "\n")


@pytest.fixture
def owes(table: Table, config: Path) -> str:
    """The first player who owes an order, once the first reports are out."""
    sent(table, config)
    return str(table.status()["waiting_for"][0])


# -- check before you answer --------------------------------------------------------------------


def test_a_strangers_signature_makes_no_mail_to_the_player_named(
    table: Table, config: Path, owes: str
) -> None:
    order = signed_order(table, owes, signer="mallory")
    raw = mail(order, sender=f"{owes}@example.org", subject="Cheap pills", message_id="<s1@x>")
    assert ingest(table, config, raw) == [
        "<s1@x> set aside: orders.yaml: no signature that verifies against a registered key "
        "of game cairo-2026"
    ]
    assert table.status()["received"] == []
    assert (table.gamedir / "setaside").is_dir()
    assert [m["To"] for m in sent(table, config)] == ["gm@example.org"], "answered to nobody"


def test_a_players_signature_over_other_bytes_is_set_aside_unanswered(
    table: Table, config: Path, owes: str
) -> None:
    order, signature = signed_order(table, owes)
    tampered = (order.replace(b"turn:", b"turn:  "), signature)
    raw = mail(tampered, sender="mallory@evil.example", message_id="<t1@x>")
    assert ingest(table, config, raw) == [
        "<t1@x> set aside: orders.yaml: no signature that verifies against a registered key "
        "of game cairo-2026"
    ]
    [notice] = sent(table, config)
    assert notice["To"] == "gm@example.org"


def test_an_order_naming_another_player_is_refused_to_the_keys_owner_and_the_gm_told(
    table: Table, config: Path, owes: str
) -> None:
    other = next(name for name in table.names if name != owes)
    order = signed_order(table, owes, signer=other)
    raw = mail(order, sender=f"{owes}@example.org", message_id="<c1@x>")
    assert ingest(table, config, raw) == [
        f"<c1@x> cairo-2026 {other} - refused: this order names player {owes}, but it is "
        f"signed with {other}'s key: each player signs their own orders with their own key"
    ]
    assert table.status()["received"] == []
    mails = sent(table, config)
    assert {str(m["To"]) for m in mails} == {"gm@example.org", f"{other}@example.org"}
    receipt = next(m for m in mails if m["To"] == f"{other}@example.org")
    assert receipt["Subject"] == "[cairo-2026] order refused"
    assert receipt["In-Reply-To"] == "<c1@x>"
    assert f"names player {owes}, but it is signed with {other}'s key" in text(receipt)
    notice = next(m for m in mails if m["To"] == "gm@example.org")
    assert notice["Subject"] == f"[cairo-2026] an order naming {owes} signed with {other}'s key"
    assert "Message-ID:  <c1@x>" in text(notice)


def test_mail_without_an_order_from_a_player_is_answered_to_nobody(
    table: Table, config: Path, owes: str
) -> None:
    raw = mail(None, sender=f"{owes}@example.org", message_id="<q1@x>", body="When is it due?\n")
    assert ingest(table, config, raw) == ["<q1@x> set aside: no signed order in the message"]
    assert [m["To"] for m in sent(table, config)] == ["gm@example.org"]


def test_an_order_naming_no_game_here_is_set_aside_and_answered_to_nobody(
    table: Table, config: Path, owes: str
) -> None:
    order = signed_order(table, owes, game_id="luxor-2027")
    raw = mail(order, sender=f"{owes}@example.org", message_id="<g1@x>")
    assert ingest(table, config, raw) == [
        "<g1@x> set aside: orders.yaml: names no game served here"
    ]
    kept = list((table.root / "user-data" / "adjudicator" / "setaside").glob("*.eml"))
    assert [p.read_bytes() for p in kept] == [raw]
    [notice] = sent(table, config)
    assert notice["To"] == "gm@example.org"
    assert notice["Subject"] == "[adjudicator] a message that names no game was set aside"
    assert f"Kept as:     {kept[0]}" in text(notice)


def test_a_pasted_order_that_no_longer_verifies_is_set_aside_with_a_hint_to_the_gm(
    table: Table, config: Path, owes: str
) -> None:
    order, signature = signed_order(table, owes)
    wrapped = order.replace(b"\nturn:", b" turn:")  # as a mail program may rewrap it
    raw = mail(None, message_id="<p1@x>", body=(wrapped + signature).decode())
    assert ingest(table, config, raw) == [
        "<p1@x> set aside: message body: no signature that verifies against a registered key "
        "of game cairo-2026"
    ]
    [notice] = sent(table, config)
    assert "send the order file and its signature (.sig) as attachments" in " ".join(
        text(notice).split()
    )


# -- nothing from the message in a header or a line unescaped -----------------------------------


def test_text_from_the_message_reaches_headers_and_lines_only_escaped(
    table: Table, config: Path, owes: str
) -> None:
    name = "\x1b[2J" + "x" * 150 + ".yaml"
    raw = mail(signed_order(table, owes), message_id="<id-to-replace@x>", subject="Cheap pills")
    raw = raw.replace(b"<id-to-replace@x>", b"<not a msg-id>\x1b[31m")
    raw = raw.replace(b'filename="orders.yaml', f'filename="{name}'.encode())
    lines = ingest(table, config, raw)
    assert lines == [f"- cairo-2026 {owes} 1 accepted"]
    [receipt] = sent(table, config)
    assert receipt["Subject"] == "[cairo-2026] turn 1: order accepted"
    assert receipt["In-Reply-To"] is None and receipt["References"] is None
    assert "pills" not in str(receipt)
    first = text(receipt).splitlines()[0]
    quoted = "\\x1b[2J" + "x" * 70 + "..."
    assert first == f"Your order {quoted} for game cairo-2026, turn 1, was accepted."


def test_a_receipt_threads_on_the_order_message(table: Table, config: Path, owes: str) -> None:
    raw = mail(signed_order(table, owes), message_id="<m1@mail>", subject="Re: turn 1")
    raw = raw.replace(b"Subject:", b"References: <r0@mail> <bad>\r\nSubject:", 1)
    assert ingest(table, config, raw) == [f"<m1@mail> cairo-2026 {owes} 1 accepted"]
    [receipt] = sent(table, config)
    assert receipt["To"] == f"{owes}@example.org"
    assert receipt["In-Reply-To"] == "<m1@mail>"
    assert receipt["References"].split() == ["<r0@mail>", "<m1@mail>"]
    assert receipt["Auto-Submitted"] == "auto-replied"


# -- the game master's notice -------------------------------------------------------------------


def test_a_set_aside_notice_names_the_message_and_carries_none_of_it(
    table: Table, config: Path, owes: str
) -> None:
    order = signed_order(table, owes, signer="mallory")
    raw = mail(
        order,
        sender="Mallory <mallory@evil.example>",
        subject="Hello\u202e there",
        message_id="<n1@x>",
        body="line\n" * 5000,
    )
    assert len(ingest(table, config, raw)) == 1
    [notice] = sent(table, config)
    assert notice["Subject"] == "[cairo-2026] a message was set aside"
    assert notice.get_content_type() == "text/plain" and not list(notice.iter_attachments())
    body = text(notice)
    kept = next((table.gamedir / "setaside").glob("*.eml"))
    assert kept.read_bytes() == raw
    for expected in [
        "- orders.yaml: no signature that verifies against a registered key of game cairo-2026",
        "From:        mallory@evil.example",
        "Subject:     Hello\\u202e there",
        "Date:        Mon, 23 Nov 2026 19:58:00 +0000",
        "Message-ID:  <n1@x>",
        f"Size:        {len(raw)} bytes",
        f"SHA-256:     {hashlib.sha256(raw).hexdigest()}",
        f"Kept as:     setaside/{kept.name}",
    ]:
        if expected.startswith("Date:") and "Date:        -" in body.splitlines():
            continue  # Incoming.date is filled by incoming.py's own change (merged separately)
        assert expected in body.splitlines(), expected
    excerpt = [line for line in body.splitlines() if line.startswith("  | ")]
    assert 0 < len(excerpt) <= 20 and all(len(line) <= 78 for line in excerpt)
    assert len(body) < 4096


def test_an_oversized_message_is_set_aside_and_not_forwarded(
    table: Table, config: Path, owes: str
) -> None:
    raw = mail(None, message_id="<big@x>", body="x" * 70 + "\n") + b"y" * (10 * 1024 * 1024)
    [line] = ingest(table, config, raw)
    assert line.startswith("<big@x> set aside: the message is larger than")
    [notice] = sent(table, config)
    assert notice["To"] == "gm@example.org"
    assert len(notice.as_bytes()) < 8192
    size = "Size:        over 10485760 bytes (10485761 read and kept)"
    assert size in text(notice).splitlines(), "standard input is read no further"
