"""Reports by mail: every turn's reports queued once, one mail per player.

The body is the player's text report for the turn; when the player owes an order, the order form
is attached as ``<id>-turn<N>-<player>.yaml``. Which turns were queued is kept in
``mail/reports.json``, so a turn's reports are queued exactly once, whenever ``send`` runs.
"""

from __future__ import annotations

import json
from pathlib import Path

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
        outbox = Outbox(root)
        for turn in store.turns():
            folder = root / store.turn_dir(turn) / "reports"
            if turn in done or not folder.is_dir():
                continue
            for player in meta["players"]:
                name = player["name"]
                form = folder / f"{meta['id']}-turn{turn}-{name}.yaml"
                message = report_mail(
                    sender=sender,
                    to=player["email"],
                    game_id=meta["id"],
                    player=name,
                    turn=turn,
                    body=(folder / f"{name}.txt").read_text(encoding="utf-8"),
                    form=form.read_text(encoding="utf-8") if form.exists() else None,
                    message_id=new_message_id(sender, f"{meta['id']}.turn{turn}.{name}"),
                )
                outbox.put(message, f"report-{turn}-{name}")
                count += 1
            done.append(turn)
            store.write_json(QUEUED, done)
    return count
