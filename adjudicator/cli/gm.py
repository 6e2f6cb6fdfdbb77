"""The game master's commands: ``extend``, ``pause``, ``resume``, ``replace``, ``resign`` and
``rollback``. Each is journaled in the game's log; ``send`` (or ``tick``) tells the players."""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.cli.arguments import GAMEDIR
from adjudicator.cli.support import echo
from adjudicator.rules.lang import LANGUAGES


def _when(root: Path, moment: object) -> str:
    from datetime import datetime

    from adjudicator.rules import schedule
    from adjudicator.store.gamedir import GameDir

    assert isinstance(moment, datetime)
    return schedule.shown_in(moment, schedule.game_zone_name(GameDir(root).meta()))


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--by", default=None, help="A duration added to the deadline: 30m, 24h, 2d.")
@click.option(
    "--to", "to", default=None, help="The new deadline: '2026-11-25 20:00 [Europe/Berlin]'."
)
def extend(gamedir: Path, by: str | None, to: str | None) -> None:
    """Move the current turn's deadline (a time without a zone is in the game's zone).

    \b
    Examples:
      adjudicator extend games/cairo-2026 --by 24h
      adjudicator extend games/cairo-2026 --to "2026-11-25 20:00 Europe/Berlin"
    """
    from adjudicator.engine import gm

    echo(f"deadline: {_when(gamedir, gm.extend(gamedir, by=by, to=to))}")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
def pause(gamedir: Path) -> None:
    """Stop the clock: no deadline passes and `tick` adjudicates nothing until `resume`.

    Orders are still taken while the game is paused.

    \b
    Example:
      adjudicator pause games/cairo-2026
    """
    from adjudicator.engine import gm

    gm.pause(gamedir)
    echo("paused")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
def resume(gamedir: Path) -> None:
    """Start the clock again; the deadline moves on by the time the game stood paused.

    \b
    Example:
      adjudicator resume games/cairo-2026
    """
    from adjudicator.engine import gm

    deadline = gm.resume(gamedir)
    echo("resumed" + ("" if deadline is None else f"; deadline: {_when(gamedir, deadline)}"))


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", required=True, help="The seat, by the player's name in the setup.")
@click.option("--email", default=None, help="The new address.")
@click.option("--key", "key_line", default=None, help="The new public key line.")
@click.option(
    "--key-file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="A file holding the new public key line (a .pub file).",
)
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="The language of the seat's reports and mail from now on.",
)
def replace(
    gamedir: Path,
    player: str,
    email: str | None,
    key_line: str | None,
    key_file: Path | None,
    lang: str | None,
) -> None:
    """Give a seat a new player, a new key or a new language; orders already accepted stay in
    effect.

    A resigned seat taken over by a new player plays again.

    \b
    Example:
      adjudicator replace games/cairo-2026 --player bob --email carol@example.org \\
          --key-file carol.pub
    """
    from adjudicator.engine import gm
    from adjudicator.engine.setup import MAX_KEY_FILE_BYTES
    from adjudicator.present.words import say
    from adjudicator.rules.errors import InputRefused, UsageProblem
    from adjudicator.signing import keys
    from adjudicator.store.readfile import FileRefused, read_regular

    if key_line is not None and key_file is not None:
        raise UsageProblem("give at most one of --key and --key-file")
    if key_file is not None:
        try:
            key_line = read_regular(key_file, MAX_KEY_FILE_BYTES).decode("utf-8")
        except (FileRefused, UnicodeDecodeError) as error:
            reason = say(error.why) if isinstance(error, FileRefused) else "not UTF-8 text"
            raise InputRefused(
                f"--key-file {key_file}: cannot read the key file ({reason})"
            ) from None
    change = gm.replace(gamedir, player, email=email, key_line=key_line, lang=lang)
    told = f"{player}: email {change['email']}, key {keys.fingerprint(change['key'])}"
    echo(told + (f", language {change['lang']}" if "lang" in change else ""))


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", required=True, help="The player who resigns.")
def resign(gamedir: Path, player: str) -> None:
    """Record a resignation: from now on the seat plays the game's default orders.

    \b
    Example:
      adjudicator resign games/cairo-2026 --player bob
    """
    from adjudicator.engine import gm

    gm.resign(gamedir, player)
    echo(f"{player} resigned; the seat plays default orders")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
def rollback(gamedir: Path) -> None:
    """Undo the last adjudication, e.g. to adjudicate again after a fix.

    The turn's orders stay as they were and cannot be changed (everyone has seen the results);
    the results are kept as a superseded copy, never deleted. Run `adjudicate` to resolve the
    turn again; reports of the undone turn not mailed yet are withdrawn.

    \b
    Example:
      adjudicator rollback games/cairo-2026 && adjudicator adjudicate games/cairo-2026
    """
    from adjudicator.engine import gm

    turn, withdrawn = gm.rollback(gamedir)
    echo(f"turn {turn} is open again; its orders are fixed: run adjudicate")
    for name in withdrawn:
        echo(f"withdrawn: {name}")
