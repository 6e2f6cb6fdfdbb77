"""The game master's runs over many games: ``send`` (and ``send --retry``) and ``tick``, which
reads the mail in first (:mod:`adjudicator.mail.run`), then does what each game's clock asks,
then sends. Apart from the mail reading, so that ``ingest`` loads none of the sending."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from adjudicator.mail import idle, nogame, telling
from adjudicator.mail.config import MailSettings
from adjudicator.mail.ingest import game_roots, games_in
from adjudicator.mail.queue import SendReport
from adjudicator.mail.retry import retry_failed, settle_doubt
from adjudicator.mail.run import Console, Source, each_game, ingest_all, left_unread
from adjudicator.mail.send import send_game, send_no_game
from adjudicator.present.status import clock_lines, requeued_line, sent_lines, settled_line
from adjudicator.rules.errors import InputRefused, TempFail
from adjudicator.store import clock


def retry_all(games: tuple[Path, ...], say: Console) -> list[str]:
    """Queue again, in every game, what the server refused for good (``send --retry``); the
    games left for a later run (``send_all``'s ``left``)."""
    left: list[str] = []
    for game in games_in(games):
        with each_game(game.id, left, say):
            for name in retry_failed(game.root):
                say.out(requeued_line(game.id, name))
    return left


def settle_all(games: tuple[Path, ...], arrived: bool, say: Console) -> list[str]:
    """Settle, in every game, the mail in doubt (``send --in-doubt``); the games left for a
    later run (``send_all``'s ``left``)."""
    left: list[str] = []
    for game in games_in(games):
        with each_game(game.id, left, say):
            for name in settle_doubt(game.root, arrived):
                say.out(settled_line(game.id, name, arrived))
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
    unreadable: list[tuple[Path, str]] = []
    found = games_in(games, unreadable)
    for root, why in unreadable:
        if str(root) not in left:  # (a tick has said so already)
            left_unread(root, why, left, say)
    for game in found:
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
    unfetched: list[str] = []
    unread = ingest_all(games, source, settings, say, left, unfetched)
    if unread:
        left.append("a message")
    unreadable: list[tuple[Path, str]] = []
    roots = game_roots(games)
    sleeping = idle.sleeping(roots, clock.now())
    awake = [root for root in roots if root not in sleeping]
    served = games_in(awake, unreadable)
    if served:
        from adjudicator.mail.clock_step import run_clock  # the engine: only for a game awake
    for game in served:
        with each_game(game.id, left, say):
            # a message left for a later run may hold an order sent in time
            for line in clock_lines(game.id, run_clock(game.root, settings, mail_waits=unread)):
                say.out(line)
    for root, why in unreadable:
        if str(root) not in left:  # (the mail's intake has said so already)
            left_unread(root, why, left, say)

    def tell(reports: dict[Path, SendReport]) -> None:
        seen = telling.Seen(roots, served, unreadable, reports, sleeping, unfetched)
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
