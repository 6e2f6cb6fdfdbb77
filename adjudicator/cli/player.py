"""A player's own commands, on their own machine: ``keygen``, ``sign``, ``check``, ``commit``
and ``share``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from adjudicator.cli.arguments import FILE
from adjudicator.cli.support import EXIT_REFUSED, echo, fail, private_key


@click.command()
@click.argument("keyfile", type=FILE)
@click.option(
    "--comment", default=None, help="Comment for the public key (default: the file name)."
)
def keygen(keyfile: Path, comment: str | None) -> None:
    """Make a new Ed25519 key: KEYFILE (private, mode 600) and KEYFILE.pub.

    Prints the public key line to put in the game's setup file.

    \b
    Example:
      adjudicator keygen ~/.ssh/cairo-2026
    """
    from adjudicator.present.words import say
    from adjudicator.signing import keys

    try:
        line = keys.generate(keyfile, comment or keyfile.name)
    except keys.KeyProblem as error:
        fail(f"{keyfile}: {say(error.reason)}", 2)
    echo(line)


@click.command()
@click.argument("orders", type=FILE)
@click.option("--key", "keyfile", type=FILE, required=True, help="Your private key file.")
def sign(orders: Path, keyfile: Path) -> None:
    """Sign an order file: writes ORDERS.sig (an OpenSSH signature).

    Asks for the key's passphrase when it has one. The same as
    `ssh-keygen -Y sign -n adjudicator-orders -f KEY ORDERS`, except that an
    ORDERS.sig already there is replaced (to sign again with ssh-keygen, delete
    ORDERS.sig first).

    \b
    Example:
      adjudicator sign cairo-2026-turn4-alice.yaml --key ~/.ssh/cairo-2026
    """
    from adjudicator.signing import files

    try:
        data = files.read_signable(orders)
    except files.NotSignable as error:
        _not_signable(orders, error, 2)
    target = files.sign_file(orders, data, private_key(keyfile))
    echo(f"{target}: signed")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--player", required=True, help="Your name in the game.")
def share(game_id: str, player: str) -> None:
    """Print a share notice: your share of the deal of GAME, drawn on this machine.

    For a game whose setup says `shares: ask` (docs/randomness.md): sign the file
    and send it before the first turn, as an order. Its 32 hex digits come from
    Python's `secrets`; any 32 to 128 hex digits of your own will do.

    \b
    Example:
      adjudicator share cairo-2026 --player alice > share.yaml
      adjudicator sign share.yaml --key ~/.ssh/cairo-2026
    """
    import secrets

    from adjudicator.engine.setup import GAME_ID, NAME

    if not GAME_ID.match(game_id):
        fail(f"{game_id!r} is no game id (letters, digits, '.', '_', '-')", 2)
    if not NAME.match(player):
        fail(f"{player!r} is no player's name (a letter, then letters, digits, '_', '-')", 2)
    echo(f'id: {game_id}\nplayer: {player}\nshare: "{secrets.token_hex(16)}"')


@click.command()
@click.argument("orders", type=FILE)
@click.option("--form", "form_path", type=FILE, required=True, help="The order form you were sent.")
def check(orders: Path, form_path: Path) -> None:
    """Check an order file against your order form before signing it.

    \b
    Example:
      adjudicator check my-order.yaml --form cairo-2026-turn4-alice.yaml
    """
    from adjudicator.engine.own_check import check as check_order
    from adjudicator.present.verdict_lines import note_lines, verdict_lines

    verdict = check_order(orders, form_path)
    if verdict.accepted:
        echo(f"{orders}: valid ({verdict.player}, turn {verdict.turn})")
        for line in note_lines(verdict):
            echo(line)
        return
    for line in verdict_lines(verdict):
        echo(line)
    sys.exit(EXIT_REFUSED)


@click.command()
@click.argument("orders", type=FILE)
@click.option("--key", "keyfile", type=FILE, required=True, help="Your private key file.")
def commit(orders: Path, keyfile: Path) -> None:
    """Seal an order for a game with `sealing: commit-reveal` (docs/commit-reveal.md).

    Adds a fresh salt to ORDERS and signs it (ORDERS.sig: send both when the reveal opens), and
    writes ORDERS.commit, the signed commitment to it: send that now. Run it again after any
    change to the order: each run makes a new salt and a new commitment.

    \b
    Example:
      adjudicator commit cairo-2026-turn4-alice.yaml --key ~/.ssh/cairo-2026
    """
    from adjudicator.signing import files

    try:
        data, envelope = files.sealable(orders)
    except files.NotSignable as error:
        _not_signable(orders, error, 3)
    target = files.commit_file(orders, data, envelope, private_key(keyfile))
    echo(f"{target}: the signed commitment: send it now")


def _not_signable(orders: Path, error: object, code: int) -> NoReturn:
    """Why ``orders`` cannot be signed or sealed, as the command says it."""
    from adjudicator.present.words import say
    from adjudicator.signing.files import NotSignable

    assert isinstance(error, NotSignable)
    if error.why == "unreadable":
        assert error.reason is not None
        fail(f"{orders}: cannot read the order file ({say(error.reason)})", code)
    if error.why == "not-yaml":
        assert error.reason is not None
        fail(f"{orders}: {say(error.reason)}", code)
    if error.why == "no-envelope":
        fail(f"{orders}: an order file needs its id, player and turn, as the form gives them", code)
    fail(f"{orders}: its id and player must be written as the form gives them", code)
