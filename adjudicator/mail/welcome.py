"""The welcome mail: queued for every player of a new game, and for the new player of a seat
``replace`` gave a new address (the words come from :mod:`adjudicator.present.welcome`).

``new`` and ``replace`` mark their journal line with ``welcome``; the next ``send`` (or
``tick``) queues the welcomes those lines owe, in one step whose ``queued`` line says up to
which journal line they were queued (``welcomed``). So each welcome is queued exactly once, and
before the reports of the same run: a queuing cut short is discarded whole and done again, as
the reports' is (docs/game-directory.md). Games made before welcomes have no such line. A game
that asks for the players' shares (``shares: ask``) is welcomed once it deals; before, ``send``
asks each player for a share, once (its ``queued`` line says ``asked_shares``).

:func:`answer` is what every mail that asks for an order says of how to answer: the game's
address, the form's file name, the usual file name of the player's key, the deadline in the
player's time zone.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from typing import Any

from adjudicator.engine.open_game import OpenGame
from adjudicator.mail.outgoing import address_of, new_message_id, welcome_mail
from adjudicator.mail.queue import Outbox
from adjudicator.present import welcome as present
from adjudicator.present.notice_page import render_notice_page
from adjudicator.present.order_page import registered_key
from adjudicator.rules import schedule, views
from adjudicator.rules.lang import lang_of
from adjudicator.rules.options import ENGINE_OPTIONS, NUMBER_OPTIONS
from adjudicator.store import journal, steps
from adjudicator.store.registry import load_game

_KEY_FILES = {
    "ssh-ed25519": "id_ed25519",
    "ssh-rsa": "id_rsa",
    "sk-ssh-ed25519@openssh.com": "id_ed25519_sk",
    "sk-ecdsa-sha2-nistp256@openssh.com": "id_ecdsa_sk",
}


def key_file(key_line: str) -> str:
    """The file name ``ssh-keygen`` gives a private key of this public key's type."""
    kind = key_line.split(maxsplit=1)[0] if key_line.strip() else ""
    if kind.startswith("ecdsa-sha2-"):
        return "id_ecdsa"
    return _KEY_FILES.get(kind, "id_ed25519")


def answer(
    meta: dict[str, Any],
    name: str,
    sender: str,
    turn: int,
    deadline: datetime | None,
    *,
    example: bool = False,
) -> present.Answer:
    """How ``name`` answers a mail that asks for their order for ``turn``."""
    seat = next(p for p in meta["players"] if p["name"] == name)
    shown = None
    if deadline is not None:
        shown = schedule.shown(deadline, schedule.player_zone(meta, name))
    return present.Answer(
        address=address_of(sender),
        file=f"{meta['id']}-turn{turn}-{name}.yaml",
        key=key_file(seat["key"]),
        deadline=shown,
        turn=turn,
        example=example,
        sealed=meta["options"].get("sealing") == "commit-reveal",
        game_id=meta["id"],
        player=name,
    )


def _welcomed(log: list[dict[str, Any]], start: int) -> list[str]:
    """The players the journal lines from ``start`` on owe a welcome, each once."""
    names: list[str] = []
    for entry in log[start:]:
        if not entry.get("welcome"):
            continue
        if entry["type"] == "created":
            names += [p["name"] for p in entry["public"]["players"]]
        elif entry.get("started"):  # an open game's seats (docs/signup.md)
            names += entry["started"]["players"]
        elif entry["type"] == "replaced":
            names.append(entry["player"])
    return list(dict.fromkeys(names))


def queue_welcomes(root: Path, sender: str) -> int:
    """Queue the welcome mails the journal owes; how many."""
    count = 0
    with steps.step(root, "welcome") as running:
        store = running.store
        log = store.log()
        names = _welcomed(log, running.facts.welcomed)
        said = running.facts
        if said.signup is not None and not said.started:  # sign-up: no welcome yet
            return 0
        if said.turn == 0 and not said.closed:  # shares: ask: asked now, welcomed once dealt
            return _ask_shares(running, sender)
        if not names:
            return 0
        meta = store.meta()
        game = load_game(meta["game"])
        turn = running.facts.turn
        times = journal.clock(log, turn)
        rel = views.path(store.turn_dir(turn), "public")
        public = journal.parse(store.named(rel, running.facts.files))["view"]
        outbox = Outbox(root)
        for name in names:
            seat = next(p for p in meta["players"] if p["name"] == name)
            if seat.get("resigned"):
                continue
            lang = lang_of(meta, name)
            facts = welcome_facts(meta, name, sender, turn, times.deadline, public)
            page_name = f"{meta['id']}-notices-{name}.html"
            facts = dataclasses.replace(facts, notice_page=page_name)
            words = present.welcome(facts, game, lang)
            message_id = new_message_id(sender, f"{meta['id']}.welcome.{name}")
            playing = [p["name"] for p in meta["players"] if not p.get("resigned")]
            page = render_notice_page(
                game,
                meta["id"],
                name,
                playing,
                facts.options,
                lang,
                address_of(sender),
                message_id,
                registered_key(meta, name),
            )
            message = welcome_mail(
                sender=sender,
                to=seat["email"],
                subject=words.subject,
                body=words.text,
                html=words.html,
                message_id=message_id,
                notice_page=(page_name, page),
                guide=present.guide(lang),
            )
            outbox.put(message, f"welcome-{name}")
            count += 1
        running.commit("queued", welcomed=len(log))
    return count


def _ask_shares(running: steps.Step, sender: str) -> int:
    """Queue, once, the mail that asks each player for their share of the deal; how many."""
    if running.facts.asked_shares:
        return 0
    store = running.store
    meta = store.meta()
    game = load_game(meta["game"])
    outbox = Outbox(store.root)
    count = 0
    owing = OpenGame(store.root).owing()  # an open game's joins carried their shares
    for seat in meta["players"]:
        name = seat["name"]
        if name not in owing:
            continue
        lang = lang_of(meta, name)
        page_name = f"{meta['id']}-share-{name}.html"
        words = present.share_request(
            meta["id"], name, game, lang, key=key_file(seat["key"]), page=page_name
        )
        message_id = new_message_id(sender, f"{meta['id']}.share.{name}")
        page = render_notice_page(
            game,
            meta["id"],
            name,
            [p["name"] for p in meta["players"]],
            {},
            lang,
            address_of(sender),
            message_id,
            registered_key(meta, name),
            share=True,
        )
        message = welcome_mail(
            sender=sender,
            to=seat["email"],
            subject=words.subject,
            body=words.text,
            html=words.html,
            message_id=message_id,
            notice_page=(page_name, page),
        )
        outbox.put(message, f"share-{name}")
        count += 1
    running.commit("queued", asked_shares=True)
    return count


def welcome_facts(
    meta: dict[str, Any],
    name: str,
    sender: str,
    turn: int,
    deadline: datetime | None,
    public: dict[str, Any],
) -> present.WelcomeFacts:
    """What ``name``'s welcome says: only what they may know (the seats, the options, the
    schedule, their own key, the spectators' view ``public`` of the turn), never a draw."""
    private = {"email", "key", "lang", "tz", "resigned"}
    seats = [{k: v for k, v in p.items() if k not in private} for p in meta["players"]]
    rule = meta.get("deadline")
    zone = schedule.player_zone(meta, name)
    defaults: dict[str, Any] = {key: values[0] for key, values in ENGINE_OPTIONS.items()}
    defaults.update({key: bounds[0] for key, bounds in NUMBER_OPTIONS.items()})
    options = {**defaults, **meta["options"]}  # games made before an option: its default
    return present.WelcomeFacts(
        game_id=meta["id"],
        player=name,
        seats=seats,
        options=options,
        deadline_rule=rule,
        deadline_daily=bool(rule and schedule.DAILY.match(rule)),
        zone=zone.key,
        reminders=list(meta.get("reminders") or []),
        answer=answer(meta, name, sender, turn, deadline, example=True),
        engine_options=(*ENGINE_OPTIONS, *NUMBER_OPTIONS),
        public=public,
    )
