"""Press relayed by mail: each press accepted, once, to each of its recipients and a copy to
the game master (docs/press.md).

Relaying is one step of ``send`` (and ``tick``), like the announcements: it queues a mail for
every press the journal names and no ``queued`` line counted yet, then ends with a ``queued``
line whose ``press`` is how many press the game has relayed, so each is queued exactly once (a
relay cut short is discarded whole, its mail moved aside, and done again).

A recipient's mail comes from the adjudicator's own address, with no Reply-To, in the
recipient's language; under ``press: grey`` nothing in it names the sender (its subject says
"from someone"), and neither do the names of the queued files, which the journal names: they
are ``press-<number>-<n>`` (the press's number in the game, the recipient's place among its
recipients). Press is mailed only to the game's players (their registered addresses) and to
the game master: never to an address it names itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.engine import press
from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.queue import Outbox
from adjudicator.present import mail as present_mail
from adjudicator.rules.lang import game_lang, lang_of
from adjudicator.store import steps
from adjudicator.store.registry import load_game


def relayed(log: list[dict[str, Any]]) -> int:
    """How many press (the first ones, in the journal's order) were relayed already."""
    return max((e.get("press") or 0 for e in log if e["type"] == "queued"), default=0)


def relay_press(root: Path, sender: str, gm: str | None) -> int:
    """Queue the mail of every press not relayed before; how many mails were queued."""
    if not (root / "notices" / "press").is_dir():
        return 0  # no press ever: no step, no lock
    count = 0
    with steps.step(root, "press") as running:
        store = running.store
        log = store.log()
        found = press.everything(root, log)
        done = relayed(log)
        if len(found) <= done:
            return 0
        meta = store.meta()
        game = load_game(meta["game"])
        outbox = Outbox(root)
        emails = {p["name"]: p["email"] for p in meta["players"]}
        for one in found[done:]:
            label = f"press-{one['number']}"
            for place, name in enumerate(press.recipients(one, meta), 1):
                lang = lang_of(meta, name)
                words = present_mail.press(
                    game_id=meta["id"], press=press.seen(one, name, meta), lang=lang, game=game
                )
                _put(outbox, sender, emails[name], words, meta["id"], f"{label}-{place}")
                count += 1
            if gm:
                seen = {**press.seen(one, "gm", meta), "gm": True}
                words = present_mail.press(
                    game_id=meta["id"], press=seen, lang=game_lang(meta), game=game
                )
                _put(outbox, sender, gm, words, meta["id"], f"{label}-gm")
                count += 1
        running.commit("queued", press=len(found))
    return count


def _put(
    outbox: Outbox, sender: str, to: str, words: present_mail.Mail, game_id: str, label: str
) -> None:
    message = notice_mail(
        sender=sender,
        to=to,
        subject=words.subject,
        body=words.body,
        message_id=new_message_id(sender, f"{game_id}.press"),
    )
    outbox.put(message, label)
