"""Answers to incoming mail: whether a message is answered at all, and how many answers an
address gets.

- **No answer to automatic mail** (RFC 3834): a message that is automatic
  (``Incoming.automatic``), or whose From is the adjudicator's own address or the game
  master's, is never answered; its orders are still taken.
- **At most 5 answers per address per game per hour.** An answer (a message with
  ``Auto-Submitted: auto-replied``) is queued only while the game's mail folders (``mail/queue``,
  ``mail/sending``, ``mail/sent``) hold fewer than :data:`HOURLY_LIMIT` answers to that address
  dated within the last hour; otherwise it is held as a file in
  ``mail/held/<address key>/NNNNNN-<label>.eml``, and so is every later answer to that address
  while some are held. Once an hour has passed since the first of them was held, the next
  ``send`` (or ``tick``) puts them all into one digest (:func:`queue_digests`), queued like any
  answer, and moves the held files to ``mail/held/<address key>/digested/``.

The count is read from the mail folders themselves, so there is no other state; a digest is
named after the first answer it holds, so a run cut short between queuing a digest and moving its
answers queues no second one. The time is :func:`adjudicator.store.clock.now` (``ADJUDICATOR_NOW``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path

from adjudicator.mail.config import MailSettings
from adjudicator.mail.headerclasses import DEFAULT_POLICY
from adjudicator.mail.incoming import Incoming
from adjudicator.mail.outgoing import POLICY, digest_mail, new_message_id
from adjudicator.mail.queue import Outbox, move_into
from adjudicator.mail.waiting import eml_files
from adjudicator.present import mail as present_mail
from adjudicator.present.quoting import addr_spec, printable
from adjudicator.rules.digests import Digester
from adjudicator.rules.lang import DEFAULT, game_lang, lang_of
from adjudicator.store import clock, steps
from adjudicator.store.gamedir import GameDir, atomic_write

HOURLY_LIMIT = 5
"""The most answers one address gets from one game within an hour (docs/mail.md, "Answers")."""
UNCOUNTED = "X-Adjudicator-Uncounted"
"""The header of an answer that the limit neither holds nor counts (:func:`put_uncounted`)."""
HOUR = timedelta(hours=1)
HELD = "mail/held"
DIGESTED = "digested"
IN_FULL = 30
"""The most held answers a digest quotes in full; the rest it lists by subject."""

_HEAD_BYTES = 8 * 1024
_NUMBERED = re.compile(r"^(\d{6,})-.*\.eml$")
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_PARSER = BytesParser(policy=DEFAULT_POLICY)
_ANSWER_MARK = re.compile(rb"(?im)^auto-submitted:[ \t]*auto-replied")


def no_answer(incoming: Incoming, settings: MailSettings, sender: str) -> str | None:
    """Why ``incoming`` must not be answered (RFC 3834), or None when it may be.

    ``sender`` is the adjudicator's own address (``[mail] from``, or the default).
    """
    if incoming.automatic is not None:
        return f"automatic mail, {printable(incoming.automatic, 60)}"
    came_from = addr_spec(incoming.sender)
    if came_from is None:
        return None
    if came_from == addr_spec(sender):
        return "sent from the adjudicator's own address"
    if came_from == addr_spec(settings.gm):
        return "sent from the game master's address"
    return None


def put_answer(root: Path, message: EmailMessage, label: str, now: datetime | None = None) -> bool:
    """Queue the answer ``message`` in the game at ``root``, or hold it for a digest when its
    address has had :data:`HOURLY_LIMIT` answers within the hour (or has answers held already).

    True when it was queued, False when held. Runs within a step of the game.
    """
    moment = now or clock.now()
    address = addr_spec(str(message["To"]))
    if address is not None:
        folder = held_folder(root, address)
        if _waiting(folder) or answers_within_hour(root, address, moment) >= HOURLY_LIMIT:
            _hold(folder, message, label)
            return False
    Outbox(root).put(message, label)
    return True


def put_uncounted(root: Path, message: EmailMessage, label: str) -> None:
    """Queue the answer ``message`` in the game at ``root``, never held and not counted toward
    its address's limit: a receipt of a step that took grey press or a vote. Held, or counted
    so that a later answer is held, it would tell the public archive, which names the files,
    who sent the press or the vote. Such receipts are few: a player's own signed notices, to
    their own address."""
    message[UNCOUNTED] = "yes"
    Outbox(root).put(message, label)


def held_folder(root: Path, address: str) -> Path:
    """``mail/held/<key>``: the answers held for ``address`` (the key: the start of the
    HMAC-SHA-256 of the address in lower case under ``game.json``'s ``privacy`` bits, or the
    game's file key in a game made before them; so no address makes a path, case never splits
    one, and the journal, which names each held file, lets nobody try guessed addresses against
    it, not even once the end of the game reveals the file key)."""
    meta = GameDir(root).meta()
    try:
        digester = Digester(bytes.fromhex(str(meta["privacy"])))
    except (KeyError, ValueError):
        digester = Digester.of(meta)
    return root / HELD / digester.hidden(address.lower().encode("utf-8"))[:16]


def answers_within_hour(root: Path, address: str, now: datetime) -> int:
    """How many answers to ``address`` the game's mail folders hold dated after ``now`` - 1 h."""
    outbox = Outbox(root)
    count = 0
    for folder in (outbox.queue, outbox.sending, outbox.sent):
        for path in eml_files(folder):
            head = _head(path, answers_only=True)
            if head is None or not _is_answer(head) or address not in _recipients(head):
                continue
            if head.get(UNCOUNTED) is not None:
                continue
            date = _date(head)
            if date is not None and date > now - HOUR:
                count += 1
    return count


def queue_digests(root: Path, sender: str, now: datetime | None = None) -> list[Path]:
    """For each address whose first held answer is an hour old or more: one digest of all its
    held answers, queued; the held files moved to ``digested/``. The digests queued.

    Does nothing (and takes no lock) in a game with nothing held; else it is one step, whose
    ``queued`` line names the digests.
    """
    base = root / HELD
    if not base.is_dir():
        return []
    moment = now or clock.now()
    queued: list[Path] = []
    with steps.step(root, "digest") as running:
        for folder in sorted(path for path in base.iterdir() if path.is_dir()):
            held = _waiting(folder)
            if not held:
                continue
            first = _head(held[0])
            since = _date(first) if first is not None else None
            if since is not None and moment - since < HOUR:
                continue
            digest = _queue_digest(root, folder, held, sender)
            if digest is not None:
                queued.append(digest)
            for path in held:
                move_into(path, folder / DIGESTED)
        if running.changed():
            running.commit("queued", digests=[path.name for path in queued])
    return queued


def _queue_digest(root: Path, folder: Path, held: list[Path], sender: str) -> Path | None:
    """Queue the digest of ``held`` unless a run cut short queued it already."""
    label = f"digest-{folder.name}-{held[0].name.split('-', 1)[0]}"
    outbox = Outbox(root)
    for place in (outbox.queue, outbox.sending, outbox.sent):
        for path in eml_files(place):
            if path.name.endswith(f"-{label}.eml"):
                return None
    messages = [_PARSER.parsebytes(path.read_bytes()) for path in held]
    to = str(messages[0]["To"])
    meta = GameDir(root).meta()
    game_id = str(meta["id"])
    lang = next(
        (lang_of(meta, p["name"]) for p in meta["players"] if p["email"] == to), game_lang(meta)
    )
    words = digest_words(game_id, messages, lang)
    message = digest_mail(
        sender=sender,
        to=to,
        game_id=game_id,
        subject=words.subject,
        body=words.body,
        message_id=new_message_id(sender, f"{game_id}.digest"),
    )
    return outbox.put(message, label)


def digest_words(
    game_id: str, messages: list[EmailMessage], lang: str = DEFAULT
) -> present_mail.Mail:
    """A digest's subject and body in ``lang``: why, then each held answer (subject, date,
    text)."""
    return present_mail.digest(
        game_id=game_id,
        lang=lang,
        limit=HOURLY_LIMIT,
        answers=[_held(message) for message in messages],
        in_full=IN_FULL,
    )


def digest_text(game_id: str, messages: list[EmailMessage]) -> str:
    """The body of a digest (:func:`digest_words`)."""
    return digest_words(game_id, messages).body


def _held(message: EmailMessage) -> dict[str, str]:
    """A held answer as a digest shows it (the adjudicator's own words, not a stranger's)."""
    return {
        "subject": str(message["Subject"]),
        "date": str(message["Date"]),
        "text": _text(message),
    }


def _text(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    content = body.get_content() if isinstance(body, EmailMessage) else ""
    return str(content).replace("\r\n", "\n").rstrip("\n")


def _hold(folder: Path, message: EmailMessage, label: str) -> Path:
    """Write ``message`` to ``folder`` under the next number (counting ``digested/`` too)."""
    numbers = [
        int(match.group(1))
        for place in (folder, folder / DIGESTED)
        for path in eml_files(place)
        if (match := _NUMBERED.match(path.name))
    ]
    safe = _LABEL_UNSAFE.sub("-", label).strip(".-")[:80] or "answer"
    path = folder / f"{max(numbers, default=0) + 1:06d}-{safe}.eml"
    atomic_write(path, message.as_bytes(policy=POLICY))
    return path


def _waiting(folder: Path) -> list[Path]:
    """The answers held in ``folder`` and not yet in a digest, oldest first."""
    return eml_files(folder)


def _head(path: Path, answers_only: bool = False) -> EmailMessage | None:
    """The header of a queued message (the adjudicator's own, so it is small); with
    ``answers_only``, None at once for a message that is not marked as an answer (most are
    reports), so counting parses few headers."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_HEAD_BYTES)
    except OSError:
        return None
    end = data.find(b"\r\n\r\n")
    if answers_only and _ANSWER_MARK.search(data[: end if end >= 0 else None]) is None:
        return None
    return _PARSER.parsebytes(data[: end + 4] if end >= 0 else data, headersonly=True)


def _is_answer(head: EmailMessage) -> bool:
    return str(head.get("Auto-Submitted", "")).strip().lower().startswith("auto-replied")


def _recipients(head: EmailMessage) -> list[str]:
    found = []
    for name in ("To", "Cc"):
        for header in head.get_all(name, []):
            found += [address.addr_spec.lower() for address in getattr(header, "addresses", ())]
    return found


def _date(head: EmailMessage | None) -> datetime | None:
    value = None if head is None else head.get("Date")
    if value is None:
        return None
    try:
        moment = parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else None
