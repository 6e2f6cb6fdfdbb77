"""An open game (docs/signup.md): ``open`` it for sign-up, ``join`` it (a player's join file),
``seat`` or ``refuse`` a join (``seating: approve``), ``start`` it early."""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path

import click

from adjudicator.cli.arguments import FILE, GAMEDIR
from adjudicator.cli.support import echo, fail, writing
from adjudicator.rules.lang import LANGUAGES

CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Mail settings (TOML), for the game's address; default as for send.",
)


@click.command(name="open")
@click.argument("gamedir", type=GAMEDIR)
@click.option("--setup", "setup_path", type=FILE, required=True, help="The setup file (YAML).")
@CONFIG
@click.option(
    "--page",
    "page_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Where to write the join page (HTML); default <id>-join.html beside GAMEDIR.",
)
def open_game(
    gamedir: Path, setup_path: Path, config_file: Path | None, page_path: Path | None
) -> None:
    """Open a game for sign-up by mail, and print its announcement to post anywhere.

    The setup may seat some players, or none; `seats`, `seating` and `signup_until` say how
    the rest join (docs/signup.md). The game starts itself when its last seat is taken.

    It also writes the join page, to post with the announcement: opened in a browser, it makes
    and signs a player's join (docs/join-page.md).

    \b
    Example:
      adjudicator open games/cairo-2026 --setup cairo-2026.yaml > announcement.txt
    """
    from adjudicator.engine import create
    from adjudicator.mail.config import DEFAULT_SENDER, ConfigError, load_config
    from adjudicator.mail.outgoing import address_of
    from adjudicator.present.join_page import page_name, render_join_page
    from adjudicator.present.signup import announcement
    from adjudicator.rules.errors import InputRefused

    try:  # read first: settings that cannot be read make no game
        settings = load_config(config_file)
    except ConfigError as error:
        raise InputRefused(str(error)) from None
    with writing(gamedir):
        handle = create.new(gamedir, setup_path, opening=True)
    meta, address = handle.meta, address_of(settings.sender or DEFAULT_SENDER)
    page = page_path or gamedir.parent / page_name(meta["id"])
    lang = str(meta.get("lang") or "en")
    part = page.with_name(f".{page.name}.part")  # the page is whole, or not there at all
    try:
        if page.exists() and not page.is_file():  # renamed onto, a pipe or device would go
            raise OSError(errno.EINVAL, "not a regular file")
        part.write_text(render_join_page(meta, handle.game, address, lang), "utf-8")
        part.replace(page)
    except OSError as error:  # the game is open all the same: announce it without the page
        with contextlib.suppress(OSError):  # in a file's place, say: then there is none
            part.unlink(missing_ok=True)
        written = None
        said = f"{page}: the join page could not be written ({error}); the announcement names none"
    else:
        written = page.name
        said = f"{page}: the join page, to post with the announcement"
    echo(announcement(meta, handle.game, address, written))
    echo(f"{gamedir}: game {meta['id']} ({handle.game.title}) open for sign-up", err=True)
    echo(said, err=True)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--name", required=True, help="The name you play under.")
@click.option("--email", default=None, help="Your address, where the game's mail goes.")
@click.option(
    "--key",
    "key_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Your public key file (the .pub), whose private key signs your orders.",
)
@click.option("--lang", type=click.Choice(LANGUAGES), default=None, help="Your language.")
@click.option("--tz", default=None, help="Your time zone, e.g. Europe/Berlin.")
@click.option("--leave", is_flag=True, help="Give up your seat before the start instead.")
def join(
    game_id: str,
    name: str,
    email: str | None,
    key_file: Path | None,
    lang: str | None,
    tz: str | None,
    leave: bool,
) -> None:
    """Print a join file for an open game (or, with --leave, a leave); sign it and mail it.

    The join carries your share of the deal, drawn on this machine.

    \b
    Example:
      adjudicator join cairo-2026 --name alice --email alice@example.org \\
          --key ~/.ssh/id_ed25519.pub > join.yaml
      adjudicator sign join.yaml --key ~/.ssh/id_ed25519
    """
    import json
    import secrets

    from adjudicator.engine.setup import GAME_ID, NAME

    if not GAME_ID.match(game_id):
        fail(f"{game_id!r} is no game id (letters, digits, '.', '_', '-')", 2)
    if not NAME.match(name):
        fail(f"{name!r} is no player's name (a letter, then letters, digits, '_', '-')", 2)
    if not leave:  # a join of a name no player may take would be refused when it came in
        from adjudicator.engine.setup import name_problems
        from adjudicator.present.words import say

        for problem in name_problems(name, ("--name",)):
            fail(f"--name {name!r}: {say(problem.msg)}", 2)
    if leave:
        if email or key_file or lang or tz:
            fail("--leave takes only GAME and --name", 2)
        # a leave of its own: the same file twice would be refused as a replay
        echo(f"# leave {secrets.token_hex(8)}\nid: {game_id}\njoin:\n  name: {name}\n  leave: true")
        return
    if email is None or key_file is None:
        fail("a join needs --email and --key", 2)
    assert email is not None and key_file is not None
    from adjudicator.engine.setup import MAX_KEY_FILE_BYTES, ONE_ADDRESS, zone_ok
    from adjudicator.signing import keys

    if not ONE_ADDRESS.match(email):
        words = "is not one mail address as mail carries it (name@example.org, in ASCII)"
        fail(f"--email {email!r} {words}", 2)
    if tz is not None and not zone_ok(tz):
        fail(f"--tz {tz!r} is no time zone (an IANA name such as Europe/Berlin)", 2)
    from adjudicator.store.readfile import FileRefused, read_regular

    try:
        key = read_regular(key_file, MAX_KEY_FILE_BYTES).decode("utf-8").strip()
        keys.parse_public_line(key)
    except FileRefused as error:
        from adjudicator.present.words import say

        fail(f"{key_file}: cannot be read ({say(error.why)})", 3)
    except UnicodeDecodeError as error:
        fail(f"{key_file}: cannot be read ({error})", 3)
    except keys.KeyProblem as error:
        from adjudicator.present.words import say

        fail(f"{key_file}: not a public key line ({say(error.reason)}): give the .pub file", 3)
    lines = [f"id: {game_id}", "join:", f"  name: {name}", f"  email: {json.dumps(email)}"]
    lines += [f"  lang: {lang}"] if lang else []
    lines += [f"  tz: {json.dumps(tz)}"] if tz else []
    lines += [f"  key: {json.dumps(key)}", f'  share: "{secrets.token_hex(16)}"']
    echo("\n".join(lines))


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.argument("name")
def seat(gamedir: Path, name: str) -> None:
    """Seat a player whose join waits (`seating: approve`); their address must have confirmed.

    \b
    Example:
      adjudicator seat games/cairo-2026 alice
    """
    from adjudicator.engine import signup

    signup.seat(gamedir, name)
    echo(f"{name}: seated")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.argument("name")
@click.option("--why", required=True, help="Why, in your words: mailed to the player.")
def refuse(gamedir: Path, name: str, why: str) -> None:
    """Refuse a join that waits; the player is told why by mail.

    \b
    Example:
      adjudicator refuse games/cairo-2026 mallory --why "this game is for the club's members"
    """
    from adjudicator.engine import signup
    from adjudicator.engine.notices import first_control

    if not why.strip():
        fail("--why: say why, in your words: the player is mailed them", 2)
    control = first_control(why)
    if control is not None:  # it goes to a terminal, a mail and the journal as it is
        at, char = control
        fail(f"--why: character {at} (U+{ord(char):04X}) is no text a mail can carry", 2)
    signup.refuse(gamedir, name, why)
    echo(f"{name}: refused")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
def start(gamedir: Path) -> None:
    """Start an open game now, with the players seated (as many as the game needs at least).

    \b
    Example:
      adjudicator start games/cairo-2026
    """
    from adjudicator.engine import signup

    handle = signup.start(gamedir)
    dealt = "turn 1" if handle.turn() == 1 else f"waiting for shares from {handle.owing()}"
    echo(f"{gamedir}: game {handle.meta['id']} started with {', '.join(handle.players)}; {dealt}")
