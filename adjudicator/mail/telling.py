"""What ``tick`` tells the game master once (:mod:`adjudicator.mail.told` remembers it).

Mail queued in a game longer than ``[mail] stuck_after``, mail in doubt, an SMTP server that
stopped every delivery for that long, a game folder that cannot be read, and a message the IMAP
server would not give (moved unread to the set-aside folder) are each queued as a notice to
``[mail] gm`` among what belongs to no game (:mod:`adjudicator.mail.nogame`; it goes out with the
same run's delivery, or the first one that reaches the server) and said on standard error. They
are told again only when their facts change, and a ``resolved`` line says when one cleared. A
recipient refused for good is told by the send of its game (:mod:`adjudicator.mail.send`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from adjudicator.mail import nogame, told
from adjudicator.mail.config import DEFAULT_SENDER, MailSettings
from adjudicator.mail.ingest import Game
from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.queue import Outbox, SendReport
from adjudicator.mail.waiting import waiting
from adjudicator.present import mail as present_mail
from adjudicator.present.words import say
from adjudicator.rules.contract import Msg
from adjudicator.rules.lang import DEFAULT, game_lang
from adjudicator.store import clock

SHOWN = "%Y-%m-%d %H:%M UTC"


@dataclass(frozen=True)
class Seen:
    """What one ``tick`` saw: the game folders given, those read, those that could not be
    (with why), each delivery's report by game folder, and the games left unopened because
    they sleep (:mod:`adjudicator.mail.idle`), with their languages."""

    roots: list[Path]
    games: list[Game]
    unreadable: list[tuple[Path, str]]
    reports: dict[Path, SendReport]
    asleep: dict[Path, str]
    unfetched: list[str] = field(default_factory=list)
    """The messages the IMAP server would not give, moved unread to the set-aside folder."""

    def lang(self) -> str:
        """The language the game master is told in: the first game's, in the order given,
        of those read or asleep. A game asleep counts as read (its note keeps its language),
        so that what is told is the same whether games sleep or not."""
        read = {game.root: game_lang(game.meta) for game in self.games}
        for root in self.roots:
            lang = read.get(root) or self.asleep.get(root)
            if lang is not None:
                return lang
        return DEFAULT


@dataclass(frozen=True)
class _Telling:
    """A problem the game master is told of: its kind, the subject and text of the notice, and
    the language it is told in."""

    kind: str
    about: Msg
    text: Msg
    lang: str


def tell(seen: Seen, settings: MailSettings) -> list[str]:
    """Queue a notice of each problem to be told now; the lines for standard error."""
    now = clock.now()
    lines = []
    with told.memory() as state:
        for telling in list(_found(state, seen, settings, now)):
            lines.append(line(telling.text, mailed=settings.gm is not None))
            if settings.gm is not None:
                _queue(telling, settings.gm, settings.sender or DEFAULT_SENDER)
        lines += _resolved(state, seen)
    for report in seen.reports.values():
        for recipients, answer in report.told:
            text = Msg("told-refused", {"recipients": recipients, "answer": answer})
            lines.append(line(text, mailed=settings.gm is not None))
    return lines


def line(text: Msg, mailed: bool) -> str:
    """The line on standard error that tells ``text``."""
    code = "told-line" if mailed else "told-line-unmailed"
    return say(Msg(code, {"text": say(text)}))


def unremembered(error: OSError) -> str:
    """The line on standard error when what was told cannot be read or written."""
    return say(Msg("told-unremembered", {"why": f"{type(error).__name__}: {error}"}))


def _found(
    state: told.State, seen: Seen, settings: MailSettings, now: datetime
) -> Iterator[_Telling]:
    lang = seen.lang()
    for root, why in seen.unreadable:
        if told.observe(state, f"unreadable {root}", {"why": why}, now):
            about = Msg("mail-told-unreadable-subject", {"folder": root.name})
            text = Msg("told-unreadable", {"folder": str(root), "why": why})
            yield _Telling("unreadable", about, text, lang)
    for game in seen.games:
        doubtful = [path.name for path in Outbox(game.root).in_doubt()]
        if doubtful and told.observe(state, f"doubt {game.root}", {"files": doubtful}, now):
            about = Msg("mail-told-doubt-subject", {"game": game.id})
            facts = {"count": len(doubtful), "game": game.id, "folder": str(game.root)}
            text = Msg("told-doubt", {**facts, "files": ", ".join(doubtful)})
            yield _Telling("doubt", about, text, game_lang(game.meta))
    if seen.unfetched and told.observe(state, "unfetched", {"which": seen.unfetched}, now):
        folder = settings.imap.setaside_folder if settings.imap is not None else "-"
        about = Msg("mail-told-unfetched-subject", {})
        which = "; ".join(seen.unfetched)
        facts = {"count": len(seen.unfetched), "which": which, "folder": folder}
        yield _Telling("unfetched", about, Msg("told-unfetched", facts), lang)
    stopped = [r.stopped for r in seen.reports.values() if r.stopped]
    server = stopped[0] if stopped else None
    for game in seen.games:
        queued = waiting(game.root)
        if queued is None:
            continue
        oldest = datetime.fromisoformat(queued["oldest"])
        if now - oldest < settings.stuck_after:
            continue
        report = seen.reports.get(game.root, SendReport())
        why = _answers(report.failed or report.never_works or server or "-")
        count = queued["count"]
        facts = {"count": 10 ** (len(str(count)) - 1), "why": why}
        if told.observe(state, f"stuck {game.root}", facts, now, since=oldest):
            shown = oldest.strftime(SHOWN)
            about = Msg("mail-told-stuck-subject", {"game": game.id, "since": shown})
            text = Msg(
                "told-stuck",
                {
                    "count": count,
                    "game": game.id,
                    "since": shown,
                    "why": why,
                    "folder": str(game.root),
                },
            )
            yield _Telling("stuck", about, text, game_lang(game.meta))
    if server is not None:
        facts = {"why": server}
        if told.observe(state, "server", facts, now, after=settings.stuck_after):
            began = told.since(state, "server") or now
            shown = began.strftime(SHOWN)
            about = Msg("mail-told-server-subject", {"since": shown})
            yield _Telling(
                "server", about, Msg("told-server", {"since": shown, "why": server}), lang
            )


_FILE = re.compile(r"^\d{6,}-[A-Za-z0-9._-]+\.eml: ")


def _answers(why: str) -> str:
    """What the server said, once each, without the files it said it of: which messages wait,
    and how many, is no new fact to tell (a greylisting server answers each the same)."""
    return "; ".join(dict.fromkeys(_FILE.sub("", part) for part in why.split("; ")))


def _resolved(state: told.State, seen: Seen) -> list[str]:
    """The lines of the problems told before that are no longer there."""
    lines = []
    for game in seen.games:
        if told.gone(state, f"stuck {game.root}"):
            lines.append(say(Msg("told-resolved-stuck", {"game": game.id})))
        if told.gone(state, f"doubt {game.root}"):  # (noted this run while still in doubt)
            lines.append(say(Msg("told-resolved-doubt", {"game": game.id})))
    for root in seen.roots:
        if all(root != bad for bad, _ in seen.unreadable) and told.gone(
            state, f"unreadable {root}"
        ):
            lines.append(say(Msg("told-resolved-unreadable", {"folder": str(root)})))
    reports = seen.reports.values()
    reached = any(r.sent for r in reports) and not any(r.stopped for r in reports)
    if reached and told.gone(state, "server"):
        lines.append(say(Msg("told-resolved-server", {})))
    return lines


def _queue(telling: _Telling, gm: str, sender: str) -> None:
    """Queue the notice to the game master among what belongs to no game."""
    words = present_mail.told(about=telling.about, text=telling.text, lang=telling.lang)
    notice = notice_mail(
        sender=sender,
        to=gm,
        subject=words.subject,
        body=words.body,
        message_id=new_message_id(sender, telling.kind),
    )
    Outbox(nogame.root()).put(notice, f"{telling.kind}-gm")
