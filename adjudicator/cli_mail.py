"""The mail commands: ``ingest``, ``send`` and ``tick`` (for cron).

They take game directories, or folders whose subfolders are game directories. Each exits 0 when
it could do its work, whatever the orders were (refusals are answered by receipt), and 75
(EX_TEMPFAIL) when a server cannot be reached or a game stays locked: nothing changed, run again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from adjudicator.mail.config import MailSettings
    from adjudicator.mail.ingest import Game

GAMES = click.Path(path_type=Path, file_okay=False, exists=True)
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Mail settings (TOML); default $ADJUDICATOR_CONFIG, else the user's config folder.",
)
MAILDIR = click.option("--maildir", type=click.Path(path_type=Path, file_okay=False), default=None)
MBOX = click.option("--mbox", type=click.Path(path_type=Path, dir_okay=False), default=None)
IMAP = click.option(
    "--imap",
    is_flag=True,
    help="Read the [imap] server's folder (tick does when no source is given); each message "
    "handled is moved out of it.",
)


@contextmanager
def _mail_errors() -> Iterator[None]:
    """A locked game is a temporary failure for the mail commands (exit 75)."""
    from adjudicator.errors import Locked, TempFail, UsageProblem
    from adjudicator.mail.config import ConfigError
    from adjudicator.mail.sources import SourceError

    try:
        yield
    except Locked as error:
        raise TempFail(str(error)) from None
    except (ConfigError, SourceError) as error:
        raise UsageProblem(str(error)) from None


def _settings(config_file: Path | None) -> MailSettings:
    from adjudicator.mail.config import load_config

    return load_config(config_file)


@click.command()
@click.argument("games", nargs=-1, required=True, type=GAMES)
@MAILDIR
@MBOX
@IMAP
@CONFIG
def ingest(
    games: tuple[Path, ...],
    maildir: Path | None,
    mbox: Path | None,
    imap: bool,
    config_file: Path | None,
) -> None:
    """Take orders from mail: one message on standard input, or a Maildir, an mbox or IMAP.

    Prints one line per order file (accepted or refused, with every reason) or per message set
    aside, and queues a receipt for each order; `send` delivers them.

    \b
    Examples:
      adjudicator ingest games/ < message.eml
      adjudicator ingest games/cairo --maildir ~/Maildir
      adjudicator ingest games/ --imap
    """
    with _mail_errors():
        _ingest(games, maildir, mbox, _settings(config_file), stdin=True, imap=imap)


def _ingest(
    games: tuple[Path, ...],
    maildir: Path | None,
    mbox: Path | None,
    settings: MailSettings,
    stdin: bool,
    imap: bool = False,
) -> None:
    """Each message in turn: its lines printed, then (Maildir) marked seen or (IMAP) moved.

    With no source given: standard input when ``stdin``, else the [imap] server when the
    settings have one, else nothing.
    """
    from adjudicator.mail import sources
    from adjudicator.mail.ingest import games_in, ingest

    if [maildir is not None, mbox is not None, imap].count(True) > 1:
        raise click.UsageError("give at most one of --maildir, --mbox and --imap")
    served = games_in(games)
    unnamed = maildir is None and mbox is None and not stdin
    if imap or (unnamed and settings.imap is not None):
        _ingest_imap(served, settings)
        return
    if maildir is not None:
        messages = list(sources.from_maildir(maildir))
    elif mbox is not None:
        messages = list(sources.from_mbox(mbox))
    elif stdin:
        messages = list(sources.from_stdin(sys.stdin.buffer))
    else:
        messages = []
    for raw in messages:
        for line in ingest(served, [raw], settings).lines:
            click.echo(line)
        if maildir is not None:
            sources.mark_seen_maildir(maildir, raw.key)


def _ingest_imap(served: list[Game], settings: MailSettings) -> None:
    """Each message of the [imap] folder, oldest first: its lines printed, then moved to the
    done folder, or to the set-aside folder when ingest set it aside."""
    from adjudicator.errors import TempFail
    from adjudicator.mail import imap
    from adjudicator.mail.ingest import ingest

    if settings.imap is None:
        where = settings.source or "no settings file was found"
        raise click.UsageError(f"--imap: the settings have no [imap] table ({where})")
    try:
        with imap.open_mailbox(settings.imap) as mailbox:
            for uid in mailbox.uids():
                raw = mailbox.fetch(uid)
                if raw is None:
                    continue
                outcome = ingest(served, [raw], settings)
                for line in outcome.lines:
                    click.echo(line)
                mailbox.file_away(uid, outcome.set_aside)
    except imap.ImapUnavailable as error:
        raise TempFail(f"{error}; run again") from None


@click.command()
@click.argument("games", nargs=-1, required=True, type=GAMES)
@CONFIG
def send(games: tuple[Path, ...], config_file: Path | None) -> None:
    """Send what is due: every turn's reports not sent yet, receipts and notices.

    Over SMTP when the settings have an [smtp] table, else as .eml files in GAMEDIR/outbox/.

    \b
    Example:
      adjudicator send games/
    """
    with _mail_errors():
        _send(games, _settings(config_file))


def _send(games: tuple[Path, ...], settings: MailSettings) -> None:
    from adjudicator.errors import TempFail
    from adjudicator.mail.answers import queue_digests
    from adjudicator.mail.due import announce
    from adjudicator.mail.ingest import DEFAULT_SENDER, games_in
    from adjudicator.mail.queue import Outbox, deliver
    from adjudicator.mail.reports import queue_due_reports

    failed = []
    for game in games_in(games):
        announce(game.root, settings.sender or DEFAULT_SENDER)
        queue_due_reports(game.root, settings.sender or DEFAULT_SENDER)
        queue_digests(game.root, settings.sender or DEFAULT_SENDER)
        report = deliver(Outbox(game.root), settings)
        for name in report.sent:
            click.echo(f"{game.id}: sent {name}")
        for name in report.written:
            click.echo(f"{game.id}: written to outbox/{name}")
        for name in report.in_doubt:
            click.echo(
                f"{game.id}: in doubt: {name} (a send was cut short; it stays in mail/sending/ "
                "and is not sent again: check whether it arrived)"
            )
        if report.failed:
            failed.append(f"{game.id}: {report.failed}")
    if failed:
        raise TempFail("not everything could be sent; run again", failed)


@click.command()
@click.argument("games", nargs=-1, required=True, type=GAMES)
@MAILDIR
@MBOX
@IMAP
@CONFIG
def tick(
    games: tuple[Path, ...],
    maildir: Path | None,
    mbox: Path | None,
    imap: bool,
    config_file: Path | None,
) -> None:
    """For cron: take mail in, adjudicate what is complete or past its deadline, send what is due.

    Also reminds players before the deadline and, under nmr: wait, tells the game master once a
    deadline passes with orders missing. A paused game waits.

    Never reads standard input. Safe to run every minute, twice at the same moment (each game
    is locked while it is worked on) and after a crash.

    \b
    Example (crontab):
      * * * * *  adjudicator tick ~/games --maildir ~/Maildir
    """
    from adjudicator.mail.ingest import games_in

    with _mail_errors():
        settings = _settings(config_file)
        _ingest(games, maildir, mbox, settings, stdin=False, imap=imap)
        for game in games_in(games):
            _run_clock(game.root, game.id, settings)
        _send(games, settings)


def _run_clock(root: Path, game_id: str, settings: MailSettings) -> None:
    """Adjudicate a turn that is complete or past its deadline, or tell the game master that
    it waits, or remind the players who still owe orders: whatever is due now."""
    from adjudicator import engine
    from adjudicator.errors import NotNow
    from adjudicator.mail.due import due_now, remind, tell_waiting
    from adjudicator.mail.ingest import DEFAULT_SENDER

    sender = settings.sender or DEFAULT_SENDER
    due, status, _, _ = due_now(root)
    turn = status["turn"]
    if due.adjudicate is not None:
        try:
            result = engine.adjudicate(
                root, due.adjudicate == "deadline", due.adjudicate, only_turn=turn
            )
        except NotNow as error:
            click.echo(f"{game_id}: {error}")
            return
        defaulted = result["defaulted"]
        why = f" (default orders for {', '.join(defaulted)})" if defaulted else ""
        click.echo(f"{game_id}: adjudicated turn {turn}{why}")
    elif due.wait:
        waiting = tell_waiting(root, sender, settings.gm)
        if waiting is not None:
            click.echo(
                f"{game_id}: turn {turn} is past its deadline and waits for "
                f"{', '.join(waiting)} (nmr: wait); the game master is told"
            )
    elif due.remind is not None:
        reminded = remind(root, sender)
        if reminded is not None:
            before, players = reminded
            click.echo(f"{game_id}: reminded {', '.join(players)} ({before} before the deadline)")
