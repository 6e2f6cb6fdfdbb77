"""Mail refused for good, queued again: ``adjudicator send GAMEDIR --retry`` (docs/mail.md).

A message the server refused for good stays in ``mail/failed/``, named by the journal. Moving it
back by hand left the journal naming a file that was gone, and every later command stopped on
it. Here one step queues a copy of each (a player's mail to the address the seat has now, so
that ``replace --email`` then ``send --retry`` reaches the player) and moves the refused file to
``mail/failed/retried/``: the journal follows both, and a report queued again holds its turn's
clock until it has left, as every report does.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from adjudicator.mail.outgoing import POLICY
from adjudicator.mail.queue import Outbox, move_into
from adjudicator.store import steps

RETRIED = "retried"


def retry_failed(root: Path) -> list[str]:
    """Queue again every message in the game's ``mail/failed/``, in one step; the names of the
    copies queued (none: nothing had failed)."""
    outbox = Outbox(root)
    failed = sorted(outbox.failed.glob("*.eml")) if outbox.failed.is_dir() else []
    if not failed:
        return []
    with steps.step(root, "retry") as running:
        addresses = {p["name"]: p["email"] for p in running.store.meta()["players"]}
        queued = []
        for path in failed:
            rel = path.relative_to(root).as_posix()
            data = running.store.named(rel, running.facts.files)
            message = BytesParser(policy=POLICY).parsebytes(data)
            assert isinstance(message, EmailMessage)
            label = path.stem.partition("-")[2]  # 000026-report-4-bob: report-4-bob
            player = label.rsplit("-", 1)[-1]
            if player in addresses and not label.endswith("-gm"):
                del message["To"]
                message["To"] = addresses[player]  # the seat's address as it is now
            queued.append(outbox.put(message, label).name)
            move_into(path, outbox.failed / RETRIED)
        running.commit("requeued", requeued=queued)
    return queued


def settle_doubt(root: Path, arrived: bool) -> list[str]:
    """The messages in doubt (``mail/sending/``: the connection broke after one was handed
    over, before the server answered), settled by the game master in one step: moved to
    ``mail/sent/`` when they ``arrived``, else back to ``mail/queue/``, sent again by the next
    delivery (a report among them holding its turn's clock until it has left). Their names
    (none: nothing was in doubt). Moved by hand, they left the journal naming files that were
    gone, and every later command stopped on the game."""
    outbox = Outbox(root)
    doubtful = outbox.in_doubt()
    if not doubtful:
        return []
    with steps.step(root, "in-doubt") as running:
        doubtful = outbox.in_doubt()  # as they are under the lock
        for path in doubtful:
            running.store.named(path.relative_to(root).as_posix(), running.facts.files)
            outbox._move(path, outbox.sent if arrived else outbox.queue)
        names = [path.name for path in doubtful]
        if arrived:
            running.commit("sent", sent=names, written=[], in_doubt=[], refused=[], settled=True)
        else:
            running.commit("requeued", requeued=names, settled=True)
    return names
