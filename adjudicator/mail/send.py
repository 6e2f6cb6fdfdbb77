"""The ``send`` step of one game: queue what is due, then deliver the queue.

Queuing (the welcomes, the game master's actions announced, each turn's reports) is a step of
its own, so a message is in the journal before any delivery can take it; delivery is another
step whose ``sent`` line records what went out. A delivery cut short is recovered by keeping
each message where it got to (see :mod:`adjudicator.store.steps`): a message is never handed to
the server twice.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from adjudicator.engine import gm
from adjudicator.engine.open_game import OpenGame
from adjudicator.mail import nogame, told
from adjudicator.mail.answers import queue_digests
from adjudicator.mail.config import DEFAULT_SENDER, MailSettings
from adjudicator.mail.due import announce
from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.press import relay_press
from adjudicator.mail.queue import Outbox, SendReport, deliver, failure_notice, recipients_of
from adjudicator.mail.signup_mail import queue_signup_mail
from adjudicator.mail.turn_reports import queue_due_reports
from adjudicator.mail.waiting import FAILED, eml_files
from adjudicator.mail.welcome import queue_welcomes
from adjudicator.rules.errors import NotNow
from adjudicator.rules.lang import game_lang
from adjudicator.store import clock, journal, steps
from adjudicator.store.gamedir import GameDir


def queue_due(root: Path, settings: MailSettings) -> None:
    """Queue the welcomes owed, the notices of the game master's actions, the press not
    relayed before, the reports not queued before (with ``[mail] gm_copy``, the game master's
    too), and the digests of answers held back an hour."""
    sender = settings.sender or DEFAULT_SENDER
    queue_signup_mail(root, sender)
    queue_welcomes(root, sender)
    announce(root, sender)
    relay_press(root, sender, settings.gm)
    queue_due_reports(root, sender, settings.gm if settings.gm_copy else None)
    queue_digests(root, sender)


def send_game(root: Path, settings: MailSettings, deliver_too: bool = True) -> SendReport:
    """Queue what is due and (with ``deliver_too``) deliver the game's queue, each a step;
    what the delivery did. The game master is told of each message refused for good (the
    notice goes out with the next delivery)."""
    queue_due(root, settings)
    if not deliver_too:
        return SendReport()
    report = _deliver(root, settings)
    _pause_for_refused(root)
    if report.failed or report.never_works or not _deadline_moved(root):
        return report
    announce(root, settings.sender or DEFAULT_SENDER)  # the players learn the moved deadline now
    more = _deliver(root, settings)
    return SendReport(
        sent=report.sent + more.sent,
        written=report.written + more.written,
        in_doubt=list(dict.fromkeys(report.in_doubt + more.in_doubt)),
        failed=more.failed,
        refused_for_good=report.refused_for_good + more.refused_for_good,
        never_works=more.never_works,
        stopped=more.stopped,
        told=report.told + more.told,
    )


def _pause_for_refused(root: Path) -> None:
    """Pause the game when a player's report of the current turn (or its reveal's notice) lies
    in ``mail/failed/`` (refused for good) and no ``paused`` line has named it yet: the player
    never saw the turn, and its clock must not run out on them. Read from the folder and the
    journal, so a send killed between its delivery and the pause pauses at the next one; once
    named, a resumed game stays resumed. The game master is told of the refusal; ``send
    --retry`` then ``resume`` go on (docs/mail.md)."""
    failed = eml_files(root / FAILED)
    if not failed:
        return
    handle = OpenGame(root)
    if handle.over():
        return
    named = {n for e in handle.log if e["type"] == "paused" for n in e.get("refused") or []}
    # a report, or the notice that opens the reveal: the turn's mail that holds its clock
    report_of_turn = re.compile(rf"\d+-(report|reveal)-{handle.turn()}-(?!gm\.eml$).+\.eml")
    refused = [p.name for p in failed if report_of_turn.fullmatch(p.name) and p.name not in named]
    if refused:
        with contextlib.suppress(NotNow):  # paused already: it stays so
            gm.pause(root, refused=refused)


def _deadline_moved(root: Path) -> bool:
    """Whether the delivery just done took a turn's last report out of the queue and so moved
    its deadline (the journal's last line holds ``mailed``)."""
    last = GameDir(root).log_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return bool(last) and bool(journal.parse(last).get("mailed"))


def _deliver(root: Path, settings: MailSettings) -> SendReport:
    """Deliver the game's queue, one step."""
    with steps.step(root, "send") as running:
        outbox = Outbox(root)
        for path in outbox.pending():  # each as the journal named it, or none is sent
            running.store.named(path.relative_to(root).as_posix(), running.facts.files)
        report = deliver(outbox, settings)
        _tell_refused(root, settings, report)
        if running.changed():
            running.commit(
                "sent",
                sent=report.sent,
                written=report.written,
                in_doubt=report.in_doubt,
                refused=[name for name, _ in report.refused_for_good],
            )
    return report


def send_no_game(settings: MailSettings) -> SendReport:
    """Deliver the queue of what belongs to no game (a notice about a message that names none,
    :mod:`adjudicator.mail.nogame`); nothing is read when there never was such a queue. A notice
    to the game master refused for good is not told to the game master again."""
    outbox = Outbox(nogame.root())
    if not (outbox.queue.is_dir() or outbox.sending.is_dir()):
        return SendReport()
    return deliver(outbox, settings)


def _tell_refused(root: Path, settings: MailSettings, report: SendReport) -> None:
    """Tell the game master once of each recipient the server refused for good, with its
    answer (:mod:`adjudicator.mail.told`; listed in ``report.told``). Without the memory, each
    is told as if for the first time: told twice, never not at all."""
    if not report.refused_for_good:
        return
    try:
        with told.memory() as state:
            _tell_each(root, settings, report, state)
    except OSError:
        if not report.told:
            _tell_each(root, settings, report, {})


def _tell_each(root: Path, settings: MailSettings, report: SendReport, state: told.State) -> None:
    """A notice of each refusal not told before is queued, unless there is no ``[mail] gm`` or
    the message went to the game master (the notice would go where the first could not)."""
    sender = settings.sender or DEFAULT_SENDER
    lang = game_lang(GameDir(root).meta())
    now = clock.now()
    for name, answer in report.refused_for_good:
        data = (root / "mail" / "failed" / name).read_bytes()
        recipients = ", ".join(recipients_of(data))
        lasting = answer.split(" (still refused ", 1)[0]  # without how long it was tried
        if not told.observe(state, f"refused {recipients}", {"answer": lasting}, now):
            continue
        report.told.append((recipients, answer))
        gm = settings.gm
        if not gm or gm.lower().encode() in data.split(b"\r\n\r\n", 1)[0].lower():
            continue
        subject, body = failure_notice(name, data, answer, lang)
        notice = notice_mail(
            sender=sender,
            to=gm,
            subject=subject,
            body=body,
            message_id=new_message_id(sender, "failed"),
        )
        Outbox(root).put(notice, "failed-gm")
