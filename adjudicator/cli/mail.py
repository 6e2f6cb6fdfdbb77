"""The mail commands: ``ingest``, ``send`` and ``tick`` (for cron).

They take game directories, or folders whose subfolders are game directories. Each exits 0 when
it could do its work, whatever the orders were (refusals are answered by receipt; a mail the
SMTP server refuses for good is kept in ``mail/failed/``); 75 (EX_TEMPFAIL) when anything was
left for a later run (a server that cannot be reached, a refusal for now, a game locked): run
again, nothing is done twice; 3 when a setting can never work as it is (the message names the
settings file, the table and the key).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from adjudicator.cli.support import echo

if TYPE_CHECKING:
    from adjudicator.mail.config import MailSettings
    from adjudicator.mail.run import Console, Source

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


def _console(stamped: bool = False) -> Console:
    """Where a run's lines go; ``stamped`` (``tick``, which cron logs): each line begins with
    the time, ISO 8601 in UTC, so that a log says when."""
    from adjudicator.mail.run import Console

    def at(line: str) -> str:
        if not stamped:
            return line
        from adjudicator.store import clock

        return f"{clock.stamp()} {line}"

    return Console(out=lambda line: echo(at(line)), err=lambda line: echo(at(line), err=True))


def _source(
    maildir: Path | None, mbox: Path | None, imap: bool, stdin: bool, settings: MailSettings
) -> Source:
    """The mail source the options name (at most one), checked against the settings."""
    from adjudicator.mail.run import Source

    if [maildir is not None, mbox is not None, imap].count(True) > 1:
        raise click.UsageError("give at most one of --maildir, --mbox and --imap")
    if imap and settings.imap is None:
        where = settings.source or "no settings file was found"
        raise click.UsageError(f"--imap: the settings have no [imap] table ({where})")
    return Source(maildir=maildir, mbox=mbox, imap=imap, stdin=stdin)


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
        from adjudicator.mail.run import ingest_all
        from adjudicator.rules.errors import TempFail

        settings = _settings(config_file)
        source = _source(maildir, mbox, imap, True, settings)
        left: list[str] = []
        if ingest_all(games, source, settings, _console(), left) or left:
            waiting = ", ".join(left or ["a message"])
            raise TempFail(f"left for a later run: {waiting}; run again")


@click.command()
@click.argument("games", nargs=-1, required=True, type=GAMES)
@CONFIG
@click.option(
    "--retry",
    is_flag=True,
    help="First queue again what the server refused for good (mail/failed/), a player's mail "
    "to the seat's address as it is now.",
)
@click.option(
    "--in-doubt",
    "doubt",
    type=click.Choice(["arrived", "resend"]),
    help="First settle the mail in doubt (mail/sending/: the connection broke before the server "
    "answered): it arrived (moved to mail/sent/), or resend it.",
)
def send(games: tuple[Path, ...], config_file: Path | None, retry: bool, doubt: str | None) -> None:
    """Send what is due: every turn's reports not sent yet, receipts and notices.

    Over SMTP when the settings have an [smtp] table, else as .eml files in GAMEDIR/outbox/.

    \b
    Example:
      adjudicator send games/
      adjudicator send games/cairo-2026 --retry
      adjudicator send games/cairo-2026 --in-doubt resend
    """
    with _mail_errors():
        from adjudicator.mail.daily import retry_all, send_all, settle_all

        settings = _settings(config_file)
        left = settle_all(games, doubt == "arrived", _console()) if doubt else []
        left += retry_all(games, _console()) if retry else []
        send_all(games, settings, _console(), left=left)


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

    Never reads standard input. Safe to run every minute, twice at the same moment (one run
    reads a mailbox at a time, and each game is locked while it is worked on) and after a
    crash.

    \b
    Example (crontab):
      * * * * *  adjudicator tick ~/games --maildir ~/Maildir
    """
    with _mail_errors():
        from adjudicator.mail import daily

        settings = _settings(config_file)
        source = _source(maildir, mbox, imap, False, settings)
        daily.tick(games, source, settings, _console(stamped=True))
