"""The game master's running of a game: ``new``, ``submit``, ``status``, ``adjudicate``,
``doctor``, and ``demo`` (a whole game played by bots)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from adjudicator.cli.arguments import FILE, GAMEDIR
from adjudicator.cli.support import EXIT_REFUSED, echo, echo_json, writing
from adjudicator.rules.lang import DEFAULT, LANGUAGES


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--setup", "setup_path", type=FILE, required=True, help="The setup file (YAML).")
def new(gamedir: Path, setup_path: Path) -> None:
    """Create a game from a setup file and write the first reports.

    GAMEDIR must not exist or must be empty.

    \b
    Example:
      adjudicator new games/cairo-2026 --setup cairo-2026.yaml
    """
    from adjudicator.engine import create

    with writing(gamedir):
        handle = create.new(gamedir, setup_path)
    echo(f"{gamedir}: game {handle.meta['id']} ({handle.game.title}) created, turn 1")
    echo(f"reports: adjudicator report {gamedir} --player NAME (or --gm, --public)")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.argument("orders", nargs=-1, required=True, type=FILE)
def submit(gamedir: Path, orders: tuple[Path, ...]) -> None:
    """Store signed order files and notices (never resolves a turn).

    Each ORDERS file is signed by FILE.sig given after it, FILE.sig beside it, or a signature
    appended to the file itself. Notices (press, absences, draw votes and concessions:
    docs/notices.md) are taken here too.

    \b
    Example:
      adjudicator submit games/cairo-2026 alice.yaml alice.yaml.sig bob.yaml
    """
    from adjudicator.cli.notices import store

    store(gamedir, orders, None)


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(gamedir: Path, as_json: bool) -> None:
    """Show the turn, who owes what, who is away until when, the deadline and the mail queued.

    GAMEDIR may be a folder of games, as `tick` takes: then one line a game (a list in JSON).

    \b
    Example:
      adjudicator status games/cairo-2026 --json
      adjudicator status games
    """
    from adjudicator.mail import overview
    from adjudicator.present.status import game_line, status_lines

    if overview.is_folder_of_games(gamedir):
        games = overview.folder_status(gamedir)
        if as_json:
            echo_json(games)
            return
        for data in games:
            echo(game_line(data))
        return
    data = overview.game_status(gamedir)
    if as_json:
        echo_json(data)
        return
    for line in status_lines(data):
        echo(line)


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option(
    "--default-missing", is_flag=True, help="Apply the game's default orders for missing players."
)
@click.option(
    "--preview",
    is_flag=True,
    help="Show what the turn would produce (every report); change, write and send nothing.",
)
@click.option("--player", default=None, help="With --preview: only this player's report.")
@click.option("--gm", is_flag=True, help="With --preview: only the game master's report.")
@click.option("--public", is_flag=True, help="With --preview: only the spectators' report.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "html"]),
    default=None,
    help="With --preview: text (default), or html for one reader's page.",
)
def adjudicate(
    gamedir: Path,
    default_missing: bool,
    preview: bool,
    player: str | None,
    gm: bool,
    public: bool,
    fmt: str | None,
) -> None:
    """Resolve the current turn once every owed order is in (under `sealing: commit-reveal`,
    while commitments are missing: open the reveal).

    With --preview, show what the adjudication would produce (its summary, then the game
    master's, every player's and the spectators' report of the turn it would open) without
    changing, writing or sending anything: the later adjudication gives the same result.

    \b
    Example:
      adjudicator adjudicate games/cairo-2026 --default-missing
      adjudicator adjudicate games/cairo-2026 --preview --default-missing
    """
    given = (("--player", player), ("--gm", gm), ("--public", public))
    on = [name for name, value in given if value]
    if preview:
        from adjudicator.cli.preview import show

        if len(on) > 1:
            raise click.UsageError("give at most one of --player NAME, --gm, --public")
        if fmt == "html" and not on:
            raise click.UsageError("--format html is one page: add --player NAME, --gm or --public")
        reader = player or ("gm" if gm else "public" if public else None)
        show(gamedir, default_missing, reader, fmt)
        return
    if on or fmt is not None:
        raise click.UsageError(f"{(on or ['--format'])[0]} goes with --preview")
    from adjudicator.engine import adjudication
    from adjudicator.present.status import adjudicated_lines

    result = adjudication.adjudicate(gamedir, default_missing)
    for line in adjudicated_lines(gamedir, result):
        echo(line)


@click.command()
@click.argument("gamedir", type=GAMEDIR)
def doctor(gamedir: Path) -> None:
    """Check a game directory against its journal; name what is wrong. Writes nothing.

    A step another command has under way is waited for (as long as a step waits for the
    game's lock), not taken for one cut short.

    Exit 0 when every file the journal names is there with its SHA-256, no other file is
    there and no step was cut short (mail in doubt is listed, not counted); else exit 3,
    one line per problem. The next command that changes the game finishes or discards a
    step cut short. GAMEDIR may be a folder of games, as `tick` takes: each is checked.

    \b
    Example:
      adjudicator doctor games/cairo-2026
      adjudicator doctor games
    """
    from adjudicator.mail import overview

    if overview.is_folder_of_games(gamedir):
        found = [_doctor_of(root) for root in overview.games_in_folder(gamedir)]
        if not all(found):
            sys.exit(EXIT_REFUSED)
        return
    if not _doctor_one(gamedir, ""):
        sys.exit(EXIT_REFUSED)


def _doctor_of(root: Path) -> bool:
    """One game of a folder: one that another command holds is named, and the others done."""
    from adjudicator.rules.errors import Locked

    try:
        return _doctor_one(root, f"{root.name}: ")
    except Locked as error:
        echo(f"{root.name}: {error.message}")
        return False


def _doctor_one(gamedir: Path, prefix: str) -> bool:
    """Check one game and say what is wrong, each line after ``prefix`` (a folder's game's
    name); whether it agrees with its journal."""
    from adjudicator.mail.waiting import refused, waiting
    from adjudicator.present.status import queued_text, refused_text
    from adjudicator.present.words import say
    from adjudicator.store.doctor import examine

    result = examine(gamedir)
    queued = waiting(gamedir) if not result.problems else None
    if queued is not None:
        echo(f"{prefix}mail: {queued_text(queued)} (`adjudicator send` sends them)")
    if not result.problems and (count := refused(gamedir)):
        echo(f"{prefix}mail: {refused_text(count)}")
    for name in result.in_doubt:
        echo(f"{prefix}in doubt: mail/sending/{name} (check whether it arrived)")
    for problem in result.problems:
        echo(f"{gamedir / problem.path}: {say(problem.problem, lang=result.lang)}")
    if not result.problems:
        echo(f"{gamedir}: agrees with its journal ({result.lines} lines, {result.files} files)")
    return not result.problems


@click.command()
@click.argument("game")
@click.option(
    "--players",
    type=int,
    default=None,
    help="Number of players, any the game allows (default: 4, or the nearest it allows).",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the game and bots; public (real games draw theirs in secret).",
)
@click.option(
    "--dir", "directory", type=GAMEDIR, default=None, help="Where to play (default: new temp dir)."
)
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=DEFAULT,
    show_default=True,
    help="The language of the game and of every player.",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A game option, VALUE read as a setup file reads it (docs/setup-file.md); repeatable.",
)
@click.option(
    "--site/--no-site",
    default=True,
    show_default=True,
    help="Write the game's static site into the demo's folder, as site/ (made while the bots "
    "play, on a second processor where there is one; without it a demo takes a quarter to a "
    "half less time, the more the busier the machine).",
)
def demo(
    game: str,
    players: int | None,
    seed: int,
    directory: Path | None,
    lang: str,
    options: tuple[str, ...],
    site: bool,
) -> None:
    """Play a whole game with bots through signed order files; print the final table.

    Any option a setup file takes may be given with --option; the final lines list every
    option the game was played with.

    \b
    Example:
      adjudicator demo sultan --players 3 --seed 7 --dir demo-game --lang de
      adjudicator demo sultan --option placement=sequential --option screens=false
      adjudicator demo sultans_court --option max_rounds=3
    """
    from adjudicator import demo as demo_module

    given = demo_module.read_options(options)
    with writing(directory) if directory is not None else contextlib.nullcontext():
        demo_module.run(game, players, seed, directory, echo, lang, options=given, site=site)
