"""The mail commands' sequence over many games: ``ingest``, ``send`` and ``tick``.

Each game is worked on alone: one that is locked or cannot be read is named on standard error
and left for a later run, and the others are done (:func:`each_game`). What a run prints goes
to the ``Console`` the command line gives, line by line; what it leaves for a later run is
raised at the end as :class:`~adjudicator.rules.errors.TempFail` (exit 75), and a setting that
can never work as :class:`~adjudicator.rules.errors.InputRefused` (exit 3).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from adjudicator.mail import idle, nogame, sources, telling
from adjudicator.mail.config import MailSettings
from adjudicator.mail.ingest import Game, Outcome, game_roots, games_in, ingest
from adjudicator.mail.queue import SendReport
from adjudicator.mail.retry import retry_failed
from adjudicator.mail.send import send_game, send_no_game
from adjudicator.present.status import clock_lines, requeued_line, sent_lines
from adjudicator.rules.errors import AdjudicatorError, InputRefused, TempFail
from adjudicator.store import clock

if TYPE_CHECKING:
    from adjudicator.mail.sources import Raw


@dataclass(frozen=True)
class Console:
    """Where a run's lines go: ``out`` (standard output) and ``err`` (standard error)."""

    out: Callable[[str], None]
    err: Callable[[str], None]


@dataclass(frozen=True)
class Source:
    """Where ``ingest`` and ``tick`` take mail from: a Maildir, an mbox, the [imap] server, or
    (``stdin``) standard input; nothing given: the [imap] server when the settings have one."""

    maildir: Path | None = None
    mbox: Path | None = None
    imap: bool = False
    stdin: bool = False


def ingest_all(
    games: tuple[Path, ...], source: Source, settings: MailSettings, say: Console
) -> bool:
    """Each message in turn: its lines printed, then (Maildir) marked seen or (IMAP) moved;
    whether a message was left for a later run (a game locked or unreadable)."""
    unnamed = source.maildir is None and source.mbox is None and not source.stdin
    if source.imap or (unnamed and settings.imap is not None):
        return _ingest_imap(games_in(games), settings, say)
    if source.maildir is not None:
        messages = list(sources.from_maildir(source.maildir))
    elif source.mbox is not None:
        messages = list(sources.from_mbox(source.mbox))
    elif source.stdin:
        messages = list(sources.from_stdin(sys.stdin.buffer))
    else:
        messages = []
    if not messages:
        return False  # no game need be read (tick over many idle games: see mail/idle.py)
    served = games_in(games)
    left = False
    for raw in messages:
        outcome = _ingest_one(served, raw, settings, say)
        if outcome is None:
            left = True
            continue
        if source.maildir is not None:
            sources.mark_seen_maildir(source.maildir, raw.key)
    return left


def _ingest_one(
    served: list[Game], raw: Raw, settings: MailSettings, say: Console
) -> Outcome | None:
    """Ingest one message and print its lines; None when a game it goes to is locked or
    cannot be read: named on standard error, the message left where it is for a later run."""
    try:
        outcome = ingest(served, [raw], settings)
    except (AdjudicatorError, OSError, ValueError, KeyError, TypeError) as error:
        say.err(f"{raw.key}: left for a later run: {error}")
        return None
    for line in outcome.lines:
        say.out(line)
    return outcome


def _ingest_imap(served: list[Game], settings: MailSettings, say: Console) -> bool:
    """Each message of the [imap] folder, oldest first: its lines printed, then moved to the
    done folder, or to the set-aside folder when ingest set it aside."""
    from adjudicator.mail import imap

    assert settings.imap is not None  # the command line names a missing [imap] table
    left = False
    try:
        with imap.open_mailbox(settings.imap) as mailbox:
            for uid in mailbox.uids():
                raw = mailbox.fetch(uid)
                if raw is None:
                    continue
                outcome = _ingest_one(served, raw, settings, say)
                if outcome is None:
                    left = True
                    continue
                mailbox.file_away(uid, outcome.set_aside)
    except imap.ImapUnavailable as error:
        raise TempFail(f"{error}; run again") from None
    return left


def retry_all(games: tuple[Path, ...], say: Console) -> list[str]:
    """Queue again, in every game, what the server refused for good (``send --retry``); the
    games left for a later run (``send_all``'s ``left``)."""
    left: list[str] = []
    for game in games_in(games):
        with each_game(game.id, left, say):
            for name in retry_failed(game.root):
                say.out(requeued_line(game.id, name))
    return left


def send_all(
    games: tuple[Path, ...],
    settings: MailSettings,
    say: Console,
    left: list[str] | None = None,
    tell: Callable[[dict[Path, SendReport]], None] | None = None,
) -> None:
    """Send what is due in every game; TempFail when anything was left for a later run
    (``left``: what the run left before), InputRefused when a setting can never work. ``tell``
    is given each game's report before what belongs to no game is delivered."""
    failed = []
    never_works = None
    left = [] if left is None else left
    reports: dict[Path, SendReport] = {}
    for game in games_in(games):
        report = SendReport()
        with each_game(game.id, left, say):
            # after a setting that never works, the same server would fail the same way
            report = send_game(game.root, settings, deliver_too=never_works is None)
        reports[game.root] = report
        for line in sent_lines(game.id, report):
            say.out(line)
        if report.failed:
            failed.append(f"{game.id}: {report.failed}")
        never_works = never_works or report.never_works
    if tell is not None:
        tell(reports)
    if never_works is None:
        report = send_no_game(settings)
        for line in sent_lines(nogame.LABEL, report):
            say.out(line)
        if report.failed:
            failed.append(f"{nogame.LABEL}: {report.failed}")
        never_works = report.never_works
    if never_works is not None:
        raise InputRefused(never_works, [*failed, "what was not sent stays queued"])
    if failed:
        raise TempFail("not everything could be sent; run again", failed)
    if left:
        raise TempFail(f"left for a later run: {', '.join(dict.fromkeys(left))}")


def tick(games: tuple[Path, ...], source: Source, settings: MailSettings, say: Console) -> None:
    """For cron: mail in first (it wakes a game), then whatever the clock asks of each game that
    is awake (adjudicate, tell the game master it waits, remind), then send; each game that was
    done is remembered as idle until its journal changes."""
    left: list[str] = []
    if ingest_all(games, source, settings, say):
        left.append("a message")
    unreadable: list[tuple[Path, str]] = []
    awake = idle.awake(game_roots(games), clock.now())
    served = games_in(awake, unreadable)
    if served:
        from adjudicator.mail.clock_step import run_clock  # the engine: only for a game awake
    for game in served:
        with each_game(game.id, left, say):
            for line in clock_lines(game.id, run_clock(game.root, settings)):
                say.out(line)
    for root, why in unreadable:
        left.append(str(root))
        say.err(f"{root}: left for a later run: the game cannot be read ({why})")

    def tell(reports: dict[Path, SendReport]) -> None:
        seen = telling.Seen(game_roots(games), served, unreadable, reports)
        try:
            lines = telling.tell(seen, settings)
        except OSError as error:  # the memory cannot be had: nothing is told this run
            lines = [telling.unremembered(error)]
        for line in lines:
            say.err(line)

    send_all(tuple(awake), settings, say, left, tell)
    for game in served:
        if game.id not in left:
            with each_game(game.id, left, say):
                idle.remember(game.root)


@contextmanager
def each_game(game_id: str, left: list[str], say: Console) -> Iterator[None]:
    """Work on one game of many: a game that is locked or cannot be read is named on standard
    error and left for a later run (``left``), and the others are done."""
    try:
        yield
    except (TempFail, AdjudicatorError) as error:
        left.append(game_id)
        say.err(f"{game_id}: left for a later run: {error}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        left.append(game_id)
        say.err(
            f"{game_id}: left for a later run: the game cannot be read "
            f"({type(error).__name__}: {error}); `adjudicator doctor` tells more"
        )
