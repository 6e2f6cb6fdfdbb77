"""``press`` and ``absence``: store a player's signed notices as ``submit`` stores orders, each
command taking only its own kind (``submit`` and mail take every kind, votes included)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from adjudicator.cli.arguments import FILE, GAMEDIR
from adjudicator.cli.support import EXIT_REFUSED, echo


def store(gamedir: Path, files: tuple[Path, ...], kind: str | None) -> None:
    """Judge and store ``files`` (only notices of ``kind``; None: orders and notices of every
    kind), print each verdict, exit 3 when any was refused."""
    from adjudicator.engine import intake
    from adjudicator.present.verdict_lines import verdict_lines

    verdicts = intake.submit(gamedir, list(files), only=kind)
    for verdict in verdicts:
        for line in verdict_lines(verdict):
            echo(line)
    if any(not v.accepted for v in verdicts):
        sys.exit(EXIT_REFUSED)


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.argument("files", nargs=-1, required=True, type=FILE)
def press(gamedir: Path, files: tuple[Path, ...]) -> None:
    """Store signed press (table talk); the next send relays it.

    A press file holds id, player and press: {to: all or [names], text: ...}, signed as an
    order file is (FILE.sig after it or beside it, or appended).

    \b
    Example:
      adjudicator press games/cairo-2026 alice-press.yaml
    """
    store(gamedir, files, "press")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.argument("files", nargs=-1, required=True, type=FILE)
def absence(gamedir: Path, files: tuple[Path, ...]) -> None:
    """Store signed absence announcements.

    An absence file holds id, player and absence: {from: DATE, to: DATE} (ISO dates in the
    game's time zone), signed as an order file is.

    \b
    Example:
      adjudicator absence games/cairo-2026 bob-away.yaml
    """
    store(gamedir, files, "absence")
