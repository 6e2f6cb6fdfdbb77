"""The mail of an open game's sign-up (docs/signup.md), queued by ``send`` (and ``tick``) for
the journal lines that owe it, in one step whose ``queued`` line says up to which line it was
queued (``signup_told``), so that each goes once:

- a join taken (``joins``): the confirmation request, to the address the join gives, with the
  code in its subject;
- a seat taken (``seated``): to the new seat;
- a join turned away (``turned_away``): to its address, with why;
- a game that did not start (``closed``): to every seat and every join still waiting.

The welcome mails of a game that started follow from its ``started`` line
(:mod:`adjudicator.mail.welcome`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.queue import Outbox
from adjudicator.present.signup import signup_mail
from adjudicator.rules.lang import game_lang
from adjudicator.signing import keys
from adjudicator.store import journal, steps
from adjudicator.store.registry import load_game


def queue_signup_mail(root: Path, sender: str) -> int:
    """Queue the sign-up mail the journal owes; how many."""
    with steps.step(root, "signup-mail") as running:
        store = running.store
        log = store.log()
        start = running.facts.signup_told
        if running.facts.signup is None or start >= len(log):
            return 0
        meta = store.meta()
        game = load_game(meta["game"])
        outbox = Outbox(root)
        count = 0
        for number in range(start, len(log)):
            for kind, to, lang, facts in _owed(store, log, number):
                words = signup_mail(kind, meta, game, lang, **facts)
                message_id = new_message_id(sender, f"{meta['id']}.signup.{kind}")
                message = notice_mail(
                    sender=sender,
                    to=to,
                    subject=words.subject,
                    body=words.text,
                    message_id=message_id,
                    reply_to=sender,
                )
                outbox.put(message, f"signup-{kind}")
                count += 1
        running.commit("queued", signup_told=len(log))
    return count


def _owed(
    store: Any, log: list[dict[str, Any]], number: int
) -> list[tuple[str, str, str, dict[str, Any]]]:
    """The mail line ``number`` owes: (kind, address, language, facts) each.

    An address gets mail only when it asked for it: a confirmation request when the join came
    from that address (or from the game master), else only the first join that names it; any
    other sign-up mail only once it confirmed, or when its join came from it."""
    entry = log[number]
    before = log[:number]
    meta = journal.seats(store.created(), log[: number + 1], store.read_json)
    named = {_address(store, j) for e in before for j in e.get("joins") or []}
    owed = []
    for join in entry.get("joins") or []:
        found = store.read_json(join["addresses"])
        address = str(found["email"])
        if found.get("own", True) or address.casefold() not in named:
            # the key it would seat: a stranger may have sent a join of this name and address
            # with a key of his own, and its request reads as the player's own join's would
            facts = {
                "name": join["name"],
                "code": found["code"],
                "fingerprint": keys.fingerprint_of(join["key"]),
            }
            owed.append(("confirm", address, join["lang"], facts))
        named.add(address.casefold())
    for name in [] if entry.get("started") else entry.get("seated") or []:  # welcomed instead
        seat = next(p for p in meta["players"] if p["name"] == name)
        taken = len(meta["players"])
        owed.append(("seated", seat["email"], seat["lang"], {"name": name, "taken": taken}))
    waiting = journal.joins(before)
    confirmed = set(entry.get("confirmed") or [])

    def asked(name: str, join: dict[str, Any]) -> dict[str, Any] | None:
        """The join's file, when its address may be told of it."""
        found: dict[str, Any] = store.read_json(join["addresses"])
        return found if join.get("confirmed") or name in confirmed or found.get("own") else None

    for turned in entry.get("turned_away") or []:
        join = waiting.get(turned["name"])
        found = None if join is None else asked(turned["name"], join)
        if join is None or found is None:
            continue
        facts = {"name": turned["name"], "why": turned["why"], "words": turned.get("words")}
        owed.append(("refused", str(found["email"]), join["lang"], facts))
    if entry.get("started"):  # the joins left waiting: their address did not confirm, or
        just = set(entry.get("seated") or [])  # the game master did not seat them
        for name, join in waiting.items():
            found = None if name in just else asked(name, join)
            if found is None:
                continue
            why = "started" if join.get("confirmed") or name in confirmed else "unconfirmed"
            owed.append(("refused", str(found["email"]), join["lang"], {"name": name, "why": why}))
    if entry.get("closed"):
        seated = len(meta["players"])
        for seat in meta["players"]:
            lang = seat.get("lang") or game_lang(meta)
            owed.append(("closed", seat["email"], lang, {"seated": seated}))
        for name, join in waiting.items():
            found = asked(name, join)
            if found is not None:
                owed.append(("closed", str(found["email"]), join["lang"], {"seated": seated}))
    return owed


def _address(store: Any, join: dict[str, Any]) -> str:
    return str(store.read_json(join["addresses"])["email"]).casefold()
