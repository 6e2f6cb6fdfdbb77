"""Reports by mail: every turn's reports queued once, one mail per player (the words and pages
themselves come from the presentation layer).

The body is the player's text report for the turn, rendered from the player's stored view as it
is queued, with the press they received during the turn before
(:mod:`adjudicator.engine.press`); when the player owes an order, the order form (rendered from
the same view) is attached as ``<id>-turn<N>-<player>.yaml``, and beside it the order page that
fills it in and signs it in the browser, ``<id>-turn<N>-<player>.html``; the mail ends with how
to answer (the game's address, which is also its ``Reply-To``; the form signed by
``ssh-keygen``, attached or pasted; the deadline in the player's time zone, or that there is
none: :func:`adjudicator.mail.welcome.answer`). Queuing a turn's reports is one step whose
``queued`` journal line names the turn, so a turn's reports are queued exactly once, whenever
``send`` runs (a queuing cut short is discarded whole and done again). Every report, form and
page of the step shows the chain head as the step finds it, just before its own journal line.
"""

from __future__ import annotations

import dataclasses
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from adjudicator.engine import absences
from adjudicator.engine.open_game import OpenGame
from adjudicator.engine.press import received_during
from adjudicator.mail.outgoing import new_message_id, report_mail
from adjudicator.mail.queue import Outbox
from adjudicator.mail.welcome import answer as answering
from adjudicator.present.html import render_page
from adjudicator.present.mail import turn_label
from adjudicator.present.order_page import render_order_page
from adjudicator.present.reports import form_of_view, render_view
from adjudicator.present.welcome import answer_html, answer_text
from adjudicator.present.words import say
from adjudicator.rules import views
from adjudicator.rules.contract import Msg, msg
from adjudicator.rules.lang import lang_of
from adjudicator.store import journal, steps
from adjudicator.store.registry import load_game


def queue_due_reports(root: Path, sender: str, gm_copy: str | None = None) -> int:
    """Queue the reports of every turn not queued before; the number of mails queued. With
    ``gm_copy`` (the game master's address, ``[mail] gm_copy``), each turn's game master's
    report goes there too, after the players' (``report-<N>-gm``)."""
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
        outbox = Outbox(root)
        game = load_game(meta["game"])
        head = store.head()
        away = absences.lines(OpenGame(root))
        for turn in due:
            for player in meta["players"]:
                name = player["name"]
                if player.get("resigned"):
                    continue
                doc = journal.parse(
                    store.named(views.path(store.turn_dir(turn), name), facts.files)
                )
                lang = lang_of(meta, name)
                press = received_during(root, name, meta, turn)
                form = form_of_view(game, meta, doc, lang, head)
                answer = None
                order_page = None
                message_id = new_message_id(sender, f"{meta['id']}.turn{turn}.{name}")
                if form is not None:  # the mail asks for an order: it says how to answer
                    deadline = times.deadline if turn == current else None
                    answer = answering(meta, name, sender, turn, deadline)
                    address = parseaddr(sender)[1]
                    order_page = render_order_page(
                        game, meta, doc, lang, address, head, answers=message_id
                    )
                    if order_page is not None:
                        page_name = f"{meta['id']}-turn{turn}-{name}.html"
                        answer = dataclasses.replace(answer, page=page_name)
                body = render_view(
                    game, meta, doc, lang, head, press=press, away=away, answering=bool(answer)
                )
                if answer is not None:
                    body += "\n" + answer_text(answer, game, lang)
                page = render_page(
                    game,
                    meta,
                    doc,
                    lang,
                    embed="cid",
                    head=head,
                    press=press,
                    away=away,
                    answer=None if answer is None else answer_html(answer, game, lang),
                )
                message = report_mail(
                    sender=sender,
                    to=player["email"],
                    game_id=meta["id"],
                    player=name,
                    turn=turn,
                    body=body,
                    form=form,
                    message_id=message_id,
                    html=page.html,
                    order_page=order_page,
                    pictures=page.pictures,
                    subject=say(
                        msg("report-subject", game=meta["id"], turn=turn, player=name), game, lang
                    ),
                )
                outbox.put(message, f"report-{turn}-{name}")
                count += 1
            if gm_copy is not None:
                doc = journal.parse(
                    store.named(views.path(store.turn_dir(turn), "gm"), facts.files)
                )
                outbox.put(
                    _gm_report(root, meta, doc, head, away, sender, gm_copy), f"report-{turn}-gm"
                )
                count += 1
        running.commit("queued", turns=due)
    return count


def _gm_report(
    root: Path,
    meta: dict[str, Any],
    doc: dict[str, Any],
    head: str | None,
    away: list[Msg],
    sender: str,
    to: str,
) -> EmailMessage:
    """The game master's report of the turn ``doc`` opened, as ``report --gm`` shows it (text
    and page, in the game's language, with all the turn's press), mailed to ``to``."""
    game = load_game(meta["game"])
    turn = int(doc["turn"])
    lang = lang_of(meta, "gm")
    press = received_during(root, "gm", meta, turn)
    page = render_page(game, meta, doc, lang, embed="cid", head=head, press=press, away=away)
    return report_mail(
        sender=sender,
        to=to,
        game_id=meta["id"],
        player="gm",
        turn=turn,
        body=render_view(game, meta, doc, lang, head, press=press, away=away),
        form=None,
        message_id=new_message_id(sender, f"{meta['id']}.turn{turn}.gm"),
        html=page.html,
        pictures=page.pictures,
        subject=say(msg("report-subject-gm", game=meta["id"], turn=turn_label(turn)), game, lang),
    )
