"""Reports by mail: every turn's reports queued once, one mail per player.

The body is the player's text report for the turn; when the player owes an order, the order form
is attached as ``<id>-turn<N>-<player>.yaml``. Queuing a turn's reports is one step whose
``queued`` journal line names the turn, so a turn's reports are queued exactly once, whenever
``send`` runs (a queuing cut short is discarded whole and done again).
"""

from __future__ import annotations

from pathlib import Path

from adjudicator import journal, schedule, steps
from adjudicator.mail.outgoing import new_message_id, report_mail
from adjudicator.mail.queue import Outbox


def queue_due_reports(root: Path, sender: str) -> int:
    """Queue the reports of every turn not queued before; the number of mails queued."""
    count = 0
    with steps.step(root, "queue") as running:
        store = running.store
        meta = store.meta()
        facts = running.facts
        current = facts.turn
        due = [turn for turn in range(1, current + 1) if turn not in facts.queued]
        if not due:
            return 0
        times = journal.clock(store.log(), current)
        deadline = None
        if times.deadline is not None:
            deadline = schedule.shown(times.deadline, schedule.game_zone(meta))
        outbox = Outbox(root)
        for turn in due:
            folder = root / store.turn_dir(turn) / "reports"
            for player in meta["players"]:
                name = player["name"]
                if player.get("resigned"):
                    continue
                form = folder / f"{meta['id']}-turn{turn}-{name}.yaml"
                body = (folder / f"{name}.txt").read_text(encoding="utf-8")
                if form.exists() and deadline is not None and turn == current:
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
        running.commit("queued", turns=due)
    return count
