"""The mail commands: ``ingest``, ``send`` and ``tick`` (for cron).

They take game directories, or folders whose subfolders are game directories. Each exits 0 when
it could do its work, whatever the orders were (refusals are answered by receipt; a mail the
SMTP server refuses for good is kept in ``mail/failed/``); 75 (EX_TEMPFAIL) when anything was
left for a later run (a server that cannot be reached, a refusal for now, a game locked): run
again, nothing is done twice; 3 when a setting can never work as it is (the message names the
settings file, the table and the key).
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
    from adjudicator.mail.ingest import Game, Outcome
    from adjudicator.mail.sources import Raw

GAMES = click.Path(path_type=Path, file_okay=False, exists=True)
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Mail settings (TOML); default $ADJUDICATOR_CONFIG, else the user's config folder.",
)
MAILDIR = click.option(
    "--maildir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Read the new messages of this Maildir folder; each message handled is marked seen "
    "(moved to cur/), never deleted.",
)
MBOX = click.option(
    "--mbox",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Read every message of this mbox file (the file is not changed; a message read "
    "before is set aside as a duplicate).",
)
IMAP = click.option(
    "--imap",
    is_flag=True,
    help="Read the [imap] server's folder (tick does when no source is given); each message "
    "handled is moved out of it.",
)


@contextmanager
def _mail_errors() -> Iterator[None]:
    """A locked game is a temporary failure for the mail commands (exit 75); settings that
    cannot work (IMAP's refusals too) exit 3."""
    from adjudicator.mail.config import ConfigError
    from adjudicator.mail.sources import SourceError
    from adjudicator.rules.errors import InputRefused, Locked, TempFail, UsageProblem

    try:
        yield
    except Locked as error:
        raise TempFail(str(error)) from None
    except ConfigError as error:
        raise InputRefused(str(error)) from None
    except SourceError as error:
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
        from adjudicator.rules.errors import TempFail

        if _ingest(games, maildir, mbox, _settings(config_file), stdin=True, imap=imap):
            raise TempFail("a message was left for a later run: run again")


def _ingest(
    games: tuple[Path, ...],
    maildir: Path | None,
    mbox: Path | None,
    settings: MailSettings,
    stdin: bool,
    imap: bool = False,
) -> bool:
    """Each message in turn: its lines printed, then (Maildir) marked seen or (IMAP) moved;
    whether a message was left for a later run (a game locked or unreadable).

    With no source given: standard input when ``stdin``, else the [imap] server when the
    settings have one, else nothing.
    """
    from adjudicator.mail import sources
    from adjudicator.mail.ingest import games_in

    if [maildir is not None, mbox is not None, imap].count(True) > 1:
        raise click.UsageError("give at most one of --maildir, --mbox and --imap")
    unnamed = maildir is None and mbox is None and not stdin
    if imap or (unnamed and settings.imap is not None):
        return _ingest_imap(games_in(games), settings)
    if maildir is not None:
        messages = list(sources.from_maildir(maildir))
    elif mbox is not None:
        messages = list(sources.from_mbox(mbox))
    elif stdin:
        messages = list(sources.from_stdin(sys.stdin.buffer))
    else:
        messages = []
    if not messages:
        return False  # no game need be read (tick over many idle games: see mail/idle.py)
    served = games_in(games)
    left = False
    for raw in messages:
        outcome = _ingest_one(served, raw, settings)
        if outcome is None:
            left = True
            continue
        if maildir is not None:
            sources.mark_seen_maildir(maildir, raw.key)
    return left


def _ingest_one(served: list[Game], raw: Raw, settings: MailSettings) -> Outcome | None:
    """Ingest one message and print its lines; None when a game it goes to is locked or
    cannot be read: named on standard error, the message left where it is for a later run."""
    from adjudicator.mail.ingest import ingest
    from adjudicator.rules.errors import AdjudicatorError

    try:
        outcome = ingest(served, [raw], settings)
    except (AdjudicatorError, OSError, ValueError, KeyError, TypeError) as error:
        click.echo(f"{raw.key}: left for a later run: {error}", err=True)
        return None
    for line in outcome.lines:
        click.echo(line)
    return outcome


def _ingest_imap(served: list[Game], settings: MailSettings) -> bool:
    """Each message of the [imap] folder, oldest first: its lines printed, then moved to the
    done folder, or to the set-aside folder when ingest set it aside."""
    from adjudicator.mail import imap
    from adjudicator.rules.errors import TempFail

    if settings.imap is None:
        where = settings.source or "no settings file was found"
        raise click.UsageError(f"--imap: the settings have no [imap] table ({where})")
    left = False
    try:
        with imap.open_mailbox(settings.imap) as mailbox:
            for uid in mailbox.uids():
                raw = mailbox.fetch(uid)
                if raw is None:
                    continue
                outcome = _ingest_one(served, raw, settings)
                if outcome is None:
                    left = True
                    continue
                mailbox.file_away(uid, outcome.set_aside)
    except imap.ImapUnavailable as error:
        raise TempFail(f"{error}; run again") from None
    return left


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


def _send(games: tuple[Path, ...], settings: MailSettings, left: list[str] | None = None) -> None:
    from adjudicator.mail.ingest import games_in
    from adjudicator.mail.queue import SendReport
    from adjudicator.mail.send import send_game
    from adjudicator.rules.errors import InputRefused, TempFail

    failed = []
    never_works = None
    left = [] if left is None else left
    for game in games_in(games):
        report = SendReport()
        with _each_game(game.id, left):
            # after a setting that never works, the same server would fail the same way
            report = send_game(game.root, settings, deliver_too=never_works is None)
        for name in report.sent:
            click.echo(f"{game.id}: sent {name}")
        for name in report.written:
            click.echo(f"{game.id}: written to outbox/{name}")
        for name in report.in_doubt:
            click.echo(
                f"{game.id}: in doubt: {name} (a send was cut short; it stays in mail/sending/ "
                "and is not sent again: check whether it arrived)"
            )
        for name, answer in report.refused_for_good:
            click.echo(f"{game.id}: refused for good, kept in mail/failed/: {name}: {answer}")
        if report.failed:
            failed.append(f"{game.id}: {report.failed}")
        never_works = never_works or report.never_works
    if never_works is not None:
        raise InputRefused(never_works, [*failed, "what was not sent stays queued"])
    if failed:
        raise TempFail("not everything could be sent; run again", failed)
    if left:
        raise TempFail(f"left for a later run: {', '.join(dict.fromkeys(left))}")


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
    from adjudicator.mail import idle
    from adjudicator.mail.ingest import game_roots, games_in
    from adjudicator.store import clock

    with _mail_errors():
        settings = _settings(config_file)
        left: list[str] = []
        if _ingest(games, maildir, mbox, settings, stdin=False, imap=imap):
            left.append("a message")
        unreadable: list[tuple[Path, str]] = []
        awake = idle.awake(game_roots(games), clock.now())  # mail in first: it wakes a game
        served = games_in(awake, unreadable)
        for game in served:
            with _each_game(game.id, left):
                _run_clock(game.root, game.id, settings)
        for root, why in unreadable:
            left.append(str(root))
            click.echo(f"{root}: left for a later run: the game cannot be read ({why})", err=True)
        _send(tuple(awake), settings, left)
        for game in served:
            if game.id not in left:
                with _each_game(game.id, left):
                    idle.remember(game.root)


@contextmanager
def _each_game(game_id: str, left: list[str]) -> Iterator[None]:
    """Work on one game of many: a game that is locked or cannot be read is named on standard
    error and left for a later run (``left``), and the others are done."""
    from adjudicator.rules.errors import AdjudicatorError, TempFail

    try:
        yield
    except (TempFail, AdjudicatorError) as error:
        left.append(game_id)
        click.echo(f"{game_id}: left for a later run: {error}", err=True)
    except (OSError, ValueError, KeyError, TypeError) as error:
        left.append(game_id)
        click.echo(
            f"{game_id}: left for a later run: the game cannot be read "
            f"({type(error).__name__}: {error}); `adjudicator doctor` tells more",
            err=True,
        )


def _run_clock(root: Path, game_id: str, settings: MailSettings) -> None:
    """Whatever the clock asks of one game now (adjudicate, tell the game master it waits,
    remind), printed."""
    from adjudicator.mail.clock_step import run_clock

    done = run_clock(root, settings)
    if done.not_now is not None:
        click.echo(f"{game_id}: {done.not_now}")
    elif done.adjudicated:
        why = f" (default orders for {', '.join(done.defaulted)})" if done.defaulted else ""
        if done.revealing:
            click.echo(f"{game_id}: the reveal of turn {done.turn} is open{why}")
        else:
            click.echo(f"{game_id}: adjudicated turn {done.turn}{why}")
        if done.over:
            from adjudicator.cli import ended_text

            said = "the game is over" if done.ended is None else ended_text(done.ended)
            click.echo(f"{game_id}: {said}")
    elif done.waiting_for:
        click.echo(
            f"{game_id}: turn {done.turn} is past its deadline and waits for "
            f"{', '.join(done.waiting_for)} (nmr: wait); the game master is told"
        )
    elif done.reminded:
        click.echo(
            f"{game_id}: reminded {', '.join(done.reminded)} ({done.before} before the deadline)"
        )
