"""The ``send`` step of one game: queue what is due, then deliver the queue.

Queuing (the game master's actions announced, each turn's reports) is a step of its own, so a
message is in the journal before any delivery can take it; delivery is another step whose
``sent`` line records what went out. A delivery cut short is recovered by keeping each message
where it got to (see :mod:`adjudicator.steps`): a message is never handed to the server twice.
"""

from __future__ import annotations

from pathlib import Path

from adjudicator import steps
from adjudicator.mail.config import MailSettings
from adjudicator.mail.due import announce
from adjudicator.mail.queue import Outbox, SendReport, deliver
from adjudicator.mail.reports import queue_due_reports

DEFAULT_SENDER = "adjudicator@localhost"


def queue_due(root: Path, settings: MailSettings) -> None:
    """Queue the notices of the game master's actions and the reports not queued before."""
    sender = settings.sender or DEFAULT_SENDER
    announce(root, sender)
    queue_due_reports(root, sender)


def send_game(root: Path, settings: MailSettings) -> SendReport:
    """Queue what is due and deliver the game's queue, each a step; what the delivery did."""
    queue_due(root, settings)
    with steps.step(root, "send") as running:
        report = deliver(Outbox(root), settings)
        if running.changed():
            running.commit(
                "sent",
                sent=report.sent,
                written=report.written,
                in_doubt=report.in_doubt,
                failed=report.failed,
            )
    return report
