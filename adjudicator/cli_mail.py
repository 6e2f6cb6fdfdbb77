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

GAMES = click.Path(path_type=Path, file_okay=False, exists=True)
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Mail settings (TOML); default $ADJUDICATOR_CONFIG, else the user's config folder.",
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
@click.option("--maildir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option("--mbox", type=click.Path(path_type=Path, dir_okay=False), default=None)
@CONFIG
def ingest(
    games: tuple[Path, ...], maildir: Path | None, mbox: Path | None, config_file: Path | None
) -> None:
    """Take orders from mail: one message on standard input, or a Maildir or an mbox.

    Prints one line per order file (accepted or refused, with every reason) or per message set
    aside, and queues a receipt for each order; `send` delivers them.

    \b
    Examples:
      adjudicator ingest games/ < message.eml
      adjudicator ingest games/cairo --maildir ~/Maildir
    """
    with _mail_errors():
        _ingest(games, maildir, mbox, _settings(config_file), stdin=True)


def _ingest(
    games: tuple[Path, ...],
    maildir: Path | None,
    mbox: Path | None,
    settings: MailSettings,
    stdin: bool,
) -> None:
    """Each message in turn: its lines printed, then (Maildir) marked seen."""
    from adjudicator.mail import sources
    from adjudicator.mail.ingest import games_in, ingest

    if maildir is not None and mbox is not None:
        raise click.UsageError("give at most one of --maildir and --mbox")
    served = games_in(games)
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
    from adjudicator.mail.ingest import DEFAULT_SENDER, games_in
    from adjudicator.mail.queue import Outbox, deliver
    from adjudicator.mail.reports import queue_due_reports

    failed = []
    for game in games_in(games):
        queue_due_reports(game.root, settings.sender or DEFAULT_SENDER)
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
@click.option("--maildir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option("--mbox", type=click.Path(path_type=Path, dir_okay=False), default=None)
@CONFIG
def tick(
    games: tuple[Path, ...], maildir: Path | None, mbox: Path | None, config_file: Path | None
) -> None:
    """For cron: take mail in, adjudicate every game whose orders are all in, send what is due.

    Never reads standard input. Safe to run every minute, twice at the same moment (each game
    is locked while it is worked on) and after a crash.

    \b
    Example (crontab):
      * * * * *  adjudicator tick ~/games --maildir ~/Maildir
    """
    from adjudicator import engine
    from adjudicator.mail.ingest import games_in

    with _mail_errors():
        settings = _settings(config_file)
        _ingest(games, maildir, mbox, settings, stdin=False)
        for game in games_in(games):
            status = engine.status(game.root)
            if not status["over"] and status["owed"] and not status["waiting_for"]:
                engine.adjudicate(game.root)
                click.echo(f"{game.id}: adjudicated turn {status['turn']}")
        _send(games, settings)
