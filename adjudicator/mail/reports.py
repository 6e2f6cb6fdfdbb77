"""Reports by mail: every turn's reports queued once, one mail per player.

The body is the player's text report for the turn; when the player owes an order, the order form
is attached as ``<id>-turn<N>-<player>.yaml``. Which turns were queued is kept in
``mail/reports.json``, so a turn's reports are queued exactly once, whenever ``send`` runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator import journal, schedule
from adjudicator.mail.outgoing import new_message_id, report_mail
from adjudicator.mail.queue import Outbox
from adjudicator.store import GameDir

QUEUED = "mail/reports.json"


def queued_turns(root: Path) -> list[int]:
    path = root / QUEUED
    return list(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else []


def queue_due_reports(root: Path, sender: str) -> int:
    """Queue the reports of every turn not queued before; the number of mails queued."""
    store = GameDir(root)
    count = 0
    with store.locked():
        meta = store.meta()
        done = queued_turns(root)
        times = journal.clock(store.log(), store.current_turn())
        deadline = None
        if times.deadline is not None:
            deadline = schedule.shown(times.deadline, schedule.game_zone(meta))
        outbox = Outbox(root)
        for turn in store.turns():
            folder = root / store.turn_dir(turn) / "reports"
            if turn in done or not folder.is_dir():
                continue
            for player in meta["players"]:
                name = player["name"]
                if player.get("resigned"):
                    continue
                form = folder / f"{meta['id']}-turn{turn}-{name}.yaml"
                body = (folder / f"{name}.txt").read_text(encoding="utf-8")
                if form.exists() and deadline is not None and turn == store.current_turn():
                    body += f"\nYour orders for turn {turn} are due by {deadline}.\n"
                message = report_mail(
                    sender=sender,
                    to=player["email"],
                    game_id=meta["id"],
                    player=name,
                    turn=turn,
                    body=body,
                    form=form.read_text(encoding="utf-8") if form.exists() else None,
                    message_id=new_message_id(sender, f"{meta['id']}.turn{turn}.{name}"),
                )
                outbox.put(message, f"report-{turn}-{name}")
                count += 1
            done.append(turn)
            store.write_json(QUEUED, done)
    return count


def withdraw(root: Path, turn: int) -> list[str]:
    """After a rollback: forget that ``turn``'s reports were queued, and move those not sent
    yet from ``mail/queue/`` to ``mail/withdrawn/``; the names of the messages moved."""
    store = GameDir(root)
    moved = []
    with store.locked():
        done = queued_turns(root)
        if turn in done:
            store.write_json(QUEUED, [t for t in done if t != turn])
        outbox = Outbox(root)
        for path in outbox.pending():
            if f"-report-{turn}-" in path.name:
                outbox.withdraw(path)
                moved.append(path.name)
    return moved
