"""Who mail answers, through the commands (ingest, send), with ssh-keygen signatures and the
outbox folder: signatures are checked before anything is answered, nothing from a message
reaches a header or a line unescaped, automatic mail is never answered, an address gets at most
5 answers per game per hour (the rest as one digest), and the game master's notices name a
message without carrying it."""

from __future__ import annotations

import email.policy
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from adjudicator.mail import ingest as ingest_module
from adjudicator.mail.config import MailSettings
from adjudicator.mail.incoming import Incoming, read_message
from adjudicator.rules import digests
from tests.helpers import Table, notice_mail, run
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


def sent_of_no_game(table: Table, config: Path) -> list[EmailMessage]:
    """What a `send` now writes to the outbox of mail that belongs to no game."""
    folder = table.root / "user-data" / "adjudicator" / "outbox"
    before = set(folder.glob("*.eml"))
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    new = sorted(set(folder.glob("*.eml")) - before)
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


def test_an_order_signed_with_the_seats_former_key_is_answered_to_the_seat_and_named(
    table: Table, config: Path, owes: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player whose key the game master replaced signs with the old one: no stranger's mail,
    so they are answered at their registered address that the key was replaced (and when), and
    the game master's notice names the seat. The command path gives the same reason."""
    old = table.keys[owes]
    new = make_key(tmp_path / "new-keys", owes)
    at(monkeypatch, 30)
    replaced = run("replace", table.gamedir, "--player", owes, "--key-file", f"{new}.pub")
    assert replaced.exit_code == 0, replaced.output
    at(monkeypatch, 31)
    sent(table, config)  # the replacement's mail
    order = signed_order(table, owes, n=1)
    reason = (
        f"signed with {owes}'s former key, which the game master replaced at turn 1 "
        "(2026-11-23T20:30:00+00:00): sign with your new key"
    )
    path = table.write("former.yaml", order[0].decode())
    path.with_name("former.yaml.sig").write_bytes(order[1])
    by_command = run("submit", table.gamedir, path)
    assert (by_command.exit_code, by_command.output) == (3, f"{path}: refused: {reason}\n")
    raw = mail(order, sender=f"{owes}@example.org", message_id="<f1@x>")
    assert ingest(table, config, raw) == [f"<f1@x> cairo-2026 {owes} - refused: {reason}"]
    assert table.status()["received"] == []
    mails = sent(table, config)
    assert {str(m["To"]) for m in mails} == {"gm@example.org", f"{owes}@example.org"}
    receipt = next(m for m in mails if m["To"] == f"{owes}@example.org")
    assert receipt["Subject"] == "[cairo-2026] order refused"
    assert reason in " ".join(text(receipt).split())
    notice = next(m for m in mails if m["To"] == "gm@example.org")
    assert notice["Subject"] == f"[cairo-2026] an order of {owes} signed with their former key"
    assert old.exists()


def test_mail_without_an_order_from_a_player_is_answered_to_nobody(
    table: Table, config: Path, owes: str
) -> None:
    raw = mail(None, sender=f"{owes}@example.org", message_id="<q1@x>", body="When is it due?\n")
    assert ingest(table, config, raw) == ["<q1@x> set aside: no signed order in the message"]
    assert [m["To"] for m in sent_of_no_game(table, config)] == ["gm@example.org"]


def test_an_order_naming_no_game_here_is_set_aside_and_answered_to_nobody(
    table: Table, config: Path, owes: str
) -> None:
    order = signed_order(table, owes, game_id="luxor-2027")
    raw = mail(order, sender=f"{owes}@example.org", message_id="<g1@x>")
    assert ingest(table, config, raw) == [
        "<g1@x> set aside: orders.yaml: names no game served here"
    ]
    data = table.root / "user-data" / "adjudicator"
    kept = list((data / "setaside").glob("*.eml"))
    assert [p.read_bytes() for p in kept] == [raw]
    [notice] = sent_of_no_game(table, config)
    assert notice["To"] == "gm@example.org"
    assert notice["Subject"] == "[adjudicator] a message that names no game was set aside"
    assert f"Kept as:     {kept[0]}" in text(notice)


def test_a_message_that_names_no_game_belongs_to_none(table: Table, config: Path) -> None:
    """Its notice is queued, sent and written in the user's data folder, beside the message
    kept: no game's journal, queue or outbox has it, and `send` of any games sends it."""
    journal = (table.gamedir / "log.jsonl").read_bytes()
    raw = mail(None, sender="stranger@example.net", message_id="<n1@x>", body="Can I join?\n")
    assert ingest(table, config, raw) == ["<n1@x> set aside: no signed order in the message"]
    assert (table.gamedir / "log.jsonl").read_bytes() == journal
    assert not list((table.gamedir / "mail" / "queue").glob("*.eml"))
    data = table.root / "user-data" / "adjudicator"
    assert [p.name for p in (data / "mail" / "queue").iterdir()] == ["000001-setaside-gm.eml"]
    other = Table(table.root / "elsewhere", players=3)
    result = run("send", other.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    assert "(no game): written to outbox/000001-setaside-gm.eml\n" in result.output
    assert [p.name for p in (data / "outbox").iterdir()] == ["000001-setaside-gm.eml"]
    assert not list((table.gamedir / "outbox").glob("*setaside*"))
    assert ingest(table, config, raw) == [
        "<n1@x> set aside: a duplicate of a message processed before"
    ]
    assert not list((data / "mail" / "queue").glob("*.eml"))


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


# -- no mail loops ----------------------------------------------------------------------------


def detect_auto_submitted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for incoming.py's detection of automatic mail, only for these tests, until it
    lands (then it changes nothing: ``automatic`` is set already)."""
    real: Callable[[bytes], Incoming] = read_message

    def reading(raw: bytes) -> Incoming:
        incoming = real(raw)
        if incoming.automatic is None and b"\nAuto-Submitted: auto-replied" in raw:
            return replace(incoming, automatic="Auto-Submitted: auto-replied")
        return incoming

    monkeypatch.setattr(ingest_module, "read_message", reading)


def test_automatic_mail_is_taken_but_not_answered(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    detect_auto_submitted(monkeypatch)
    raw = mail(
        signed_order(table, owes),
        message_id="<a1@x>",
        headers={"Auto-Submitted": "auto-replied"},
    )
    assert ingest(table, config, raw) == [
        f"<a1@x> cairo-2026 {owes} 1 accepted (not answered: automatic mail, "
        "Auto-Submitted: auto-replied)"
    ]
    assert table.status()["received"] == [owes]
    assert sent(table, config) == []


@pytest.mark.parametrize(
    ("sender", "why"),
    [
        ("Bot <GM-BOT@Example.ORG>", "sent from the adjudicator's own address"),
        ("gm@EXAMPLE.org", "sent from the game master's address"),
    ],
)
def test_mail_from_our_own_or_the_gms_address_is_taken_but_not_answered(
    table: Table, config: Path, owes: str, sender: str, why: str
) -> None:
    raw = mail(signed_order(table, owes), sender=sender, message_id="<o1@x>")
    assert ingest(table, config, raw) == [
        f"<o1@x> cairo-2026 {owes} 1 accepted (not answered: {why})"
    ]
    assert sent(table, config) == []
    refused = mail(signed_order(table, owes, n=1, turn=7), sender=sender, message_id="<o2@x>")
    [line] = ingest(table, config, refused)
    assert line.startswith(f"<o2@x> cairo-2026 {owes} 1 refused: ")
    assert line.endswith(f" (not answered: {why})")
    assert sent(table, config) == []


def test_no_answer_needs_nothing_but_the_incoming_fields() -> None:
    from adjudicator.mail.answers import no_answer

    settings = MailSettings(sender="gm-bot@example.org", gm=None, smtp=None, imap=None, source=None)
    person = Incoming("<a@b>", "alice@example.org", "s", (), (), (), None)
    assert no_answer(person, settings, "gm-bot@example.org") is None
    bounce = replace(person, automatic="a delivery status report\x1b")
    assert no_answer(bounce, settings, "gm-bot@example.org") == (
        "automatic mail, a delivery status report\\x1b"
    )


def test_a_digest_of_one_answer_says_one_answer(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(6):
        at(monkeypatch, n)
        ingest(table, config, mail(signed_order(table, owes, n=n), message_id=f"<s{n}@x>"))
    assert len(sent(table, config)) == 5
    at(monkeypatch, 70)
    [digest] = sent(table, config)
    assert digest["Subject"] == "[cairo-2026] 1 answer held back (over 5 in an hour)"


def test_five_answers_an_hour_then_one_digest(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = []
    for n in range(7):
        at(monkeypatch, n)
        raw = mail(signed_order(table, owes, n=n), message_id=f"<r{n}@x>")
        lines += ingest(table, config, raw)
    held = " (answer held for a digest: 5 answers to this address this hour)"
    assert lines == [
        *(f"<r{n}@x> cairo-2026 {owes} 1 accepted" for n in range(5)),
        *(f"<r{n}@x> cairo-2026 {owes} 1 accepted{held}" for n in (5, 6)),
    ]
    receipts = sent(table, config)
    assert [m["In-Reply-To"] for m in receipts] == [f"<r{n}@x>" for n in range(5)]
    at(monkeypatch, 61)  # the first five are over an hour old, but answers are still held
    assert ingest(table, config, mail(signed_order(table, owes, n=7), message_id="<r7@x>")) == [
        f"<r7@x> cairo-2026 {owes} 1 accepted{held}"
    ]
    at(monkeypatch, 64)
    assert sent(table, config) == [], "an hour has not passed since the first was held"
    at(monkeypatch, 65)
    [digest] = sent(table, config)
    assert digest["To"] == f"{owes}@example.org"
    assert digest["Subject"] == "[cairo-2026] 3 answers held back (over 5 in an hour)"
    assert digest["Auto-Submitted"] == "auto-replied"
    body = text(digest)
    assert body.count("was accepted and replaces your earlier order") == 3
    assert "--- 3 of 3: [cairo-2026] turn 1: order accepted (" in body
    folders = list((table.gamedir / "mail" / "held").iterdir())
    assert [len(list((f / "digested").glob("*.eml"))) for f in folders] == [3]
    assert sent(table, config) == [], "one digest"
    at(monkeypatch, 66)
    assert ingest(table, config, mail(signed_order(table, owes, n=8), message_id="<r8@x>")) == [
        f"<r8@x> cairo-2026 {owes} 1 accepted"
    ]
    [answer] = sent(table, config)
    assert answer["In-Reply-To"] == "<r8@x>"


def test_the_held_answers_folder_is_named_by_a_digest_nobody_can_test_addresses_against(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal, which a public archive holds, names each held file: a plain hash of the
    address there would let anyone try guessed addresses and link one player across games."""
    for n in range(6):
        at(monkeypatch, n)
        ingest(table, config, mail(signed_order(table, owes, n=n), message_id=f"<h{n}@x>"))
    [folder] = (table.gamedir / "mail" / "held").iterdir()
    address = f"{owes}@example.org".encode()
    assert folder.name != hashlib.sha256(address).hexdigest()[:16]
    meta = json.loads((table.gamedir / "game.json").read_text())
    key = digests.file_key(meta["seed"], meta["salt"])  # revealed at the end of the game
    assert folder.name != hmac.new(key, address, hashlib.sha256).hexdigest()[:16]
    assert len(folder.name) == 16 and int(folder.name, 16) >= 0


def test_answers_already_sent_count_toward_the_hourly_limit(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three answers go out, then more orders come within the hour: the limit counts the
    answers sent (in mail/sent) with those still queued, so only two more are answered."""
    lines = []
    for n in range(3):
        at(monkeypatch, n)
        lines += ingest(table, config, mail(signed_order(table, owes, n=n), message_id=f"<s{n}@x>"))
    first = sent(table, config)
    assert [m["In-Reply-To"] for m in first] == [f"<s{n}@x>" for n in range(3)]
    folders = table.gamedir / "mail"
    assert list((folders / "queue").glob("*.eml")) == []
    assert len([p for p in (folders / "sent").glob("*.eml") if "receipt" in p.name]) == 3
    for n in range(3, 6):
        at(monkeypatch, 10 + n)
        lines += ingest(table, config, mail(signed_order(table, owes, n=n), message_id=f"<s{n}@x>"))
    held = " (answer held for a digest: 5 answers to this address this hour)"
    assert lines == [
        *(f"<s{n}@x> cairo-2026 {owes} 1 accepted" for n in range(5)),
        f"<s5@x> cairo-2026 {owes} 1 accepted{held}",
    ]
    assert [m["In-Reply-To"] for m in sent(table, config)] == ["<s3@x>", "<s4@x>"]
    at(monkeypatch, 75)  # an hour after the answer was held: one digest holds it
    [digest] = sent(table, config)
    assert digest["To"] == f"{owes}@example.org"
    held_back = (
        "--- 1 of 1: [cairo-2026] turn 1: order accepted (Mon, 23 Nov 2026 20:15:00 +0000) ---"
    )
    assert held_back in text(digest).splitlines(), "the answer to <s5@x>, the one held"


def test_the_receipt_of_a_vote_does_not_count_toward_the_hourly_limit(
    table: Table, config: Path, owes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vote's receipt is never held, nor named after its player; were it counted, the
    voter's fifth order receipt within the hour would be held (a file of their address's
    folder, named in the journal) where anyone else's is not: the public would learn who
    voted."""
    vote = table.notice(owes, "vote: draw\n", "vote.yaml")
    at(monkeypatch, 0)
    assert ingest(table, config, notice_mail(vote, f"{owes}@example.org", "<v@x>")) == [
        f"<v@x> cairo-2026 {owes} - accepted"
    ]
    lines = []
    for n in range(5):
        at(monkeypatch, 1 + n)
        raw = mail(signed_order(table, owes, n=n), message_id=f"<o{n}@x>")
        lines += ingest(table, config, raw)
    assert lines == [f"<o{n}@x> cairo-2026 {owes} 1 accepted" for n in range(5)]
    assert not (table.gamedir / "mail" / "held").exists()
    receipts = sent(table, config)
    assert [m["In-Reply-To"] for m in receipts] == ["<v@x>", *(f"<o{n}@x>" for n in range(5))]


def test_every_mail_written_is_marked_auto_submitted(table: Table, config: Path, owes: str) -> None:
    other = next(name for name in table.names if name != owes)
    ingest(table, config, mail(signed_order(table, owes), message_id="<e1@x>"))
    ingest(table, config, mail(signed_order(table, owes, signer=other, n=1), message_id="<e2@x>"))
    ingest(table, config, mail(None, message_id="<e3@x>"))
    sent(table, config)
    no_game = table.root / "user-data" / "adjudicator" / "outbox"
    written = [*(table.gamedir / "outbox").glob("*.eml"), *no_game.glob("*.eml")]
    mails = [PARSER.parsebytes(p.read_bytes()) for p in written]
    marked = {(str(m["Subject"]), str(m["Auto-Submitted"])) for m in mails}
    assert marked == {
        *((f"[cairo-2026] turn 1: report for {name}", "auto-generated") for name in table.names),
        *(
            (f"[cairo-2026] welcome, {name}: how this game runs by mail", "auto-generated")
            for name in table.names
        ),
        ("[cairo-2026] turn 1: order accepted", "auto-replied"),
        ("[cairo-2026] order refused", "auto-replied"),
        (f"[cairo-2026] an order naming {owes} signed with {other}'s key", "auto-generated"),
        ("[adjudicator] a message that names no game was set aside", "auto-generated"),
    }


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
        "Subject:     Hello there",  # the bidi override never reaches the game master
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
    [notice] = sent_of_no_game(table, config)
    assert notice["To"] == "gm@example.org"
    assert len(notice.as_bytes()) < 8192
    size = "Size:        over 10485760 bytes (10485761 read and kept)"
    assert size in text(notice).splitlines(), "standard input is read no further"


def test_a_digest_cut_short_is_not_queued_twice(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adjudicator.mail import answers
    from adjudicator.mail.outgoing import receipt_mail

    def receipt(n: int) -> EmailMessage:
        return receipt_mail(
            sender="gm-bot@example.org",
            to="Alice <ALICE@example.org>",
            game_id="cairo-2026",
            subject=f"[cairo-2026] turn 1: order refused ({n})",
            in_reply_to=None,
            references=[],
            body=f"answer {n}\n",
            message_id=f"<{n}@x>",
        )

    from adjudicator.store import steps

    with steps.step(table.gamedir, "mail") as running:  # answers are put within a step
        queued = [answers.put_answer(table.gamedir, receipt(n), "receipt-alice") for n in range(7)]
        running.commit("mail")
    assert queued == [True] * 5 + [False] * 2
    at(monkeypatch, 61)

    def crash(path: Path, folder: Path) -> None:
        raise OSError("cut short")

    real_move = answers.move_into
    monkeypatch.setattr(answers, "move_into", crash)
    with pytest.raises(OSError):
        answers.queue_digests(table.gamedir, "gm-bot@example.org")
    monkeypatch.setattr(answers, "move_into", real_move)
    assert len(answers.queue_digests(table.gamedir, "gm-bot@example.org")) == 1  # done anew
    digests = list((table.gamedir / "mail" / "queue").glob("*-digest-*.eml"))
    assert len(digests) == 1
    body = text(PARSER.parsebytes(digests[0].read_bytes()))  # type: ignore[arg-type]
    assert "answer 5" in body and "answer 6" in body and "answer 4" not in body
    held = next((table.gamedir / "mail" / "held").iterdir())
    assert list(held.glob("*.eml")) == [] and len(list(held.glob("digested/*.eml"))) == 2


def test_a_long_digest_quotes_the_first_answers_and_lists_the_rest() -> None:
    from adjudicator.mail.answers import IN_FULL, digest_text
    from adjudicator.mail.outgoing import receipt_mail

    messages = [
        receipt_mail(
            sender="gm-bot@example.org",
            to="alice@example.org",
            game_id="cairo",
            subject=f"[cairo] order refused {n}",
            in_reply_to=None,
            references=[],
            body=f"body {n}\n",
            message_id=f"<{n}@x>",
        )
        for n in range(IN_FULL + 3)
    ]
    body = digest_text("cairo", messages)
    assert f"body {IN_FULL - 1}" in body and f"body {IN_FULL}" not in body
    assert "--- and 3 more, by subject ---" in body
    assert f"- [cairo] order refused {IN_FULL + 2} (" in body
