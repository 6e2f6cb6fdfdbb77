"""The command line: a thin click layer over the engine.

Start-up stays light: this module imports only click at the top; each command imports what it
needs when it runs, so ``--help`` and ``--version`` are fast. Exit codes: 0 done, 1 a bug,
2 usage error, 3 input refused, 4 not now.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from adjudicator import __version__
from adjudicator.cli.support import EXIT_REFUSED, FAILURES, Failure, fail, private_key
from adjudicator.rules.lang import DEFAULT, LANGUAGES

EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT), as shells report a command it stopped."""


class Group(click.Group):
    """Turns the library's domain errors into messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        from adjudicator.rules.errors import AdjudicatorError

        try:
            return super().invoke(ctx)
        except AdjudicatorError as error:
            from adjudicator.present.verdict_lines import error_text

            raise FAILURES.get(error.exit_code, Failure)(error_text(error)) from None
        except KeyboardInterrupt:  # Ctrl-C: the shell's 128 + SIGINT, not click's exit 1 (a bug)
            click.echo(
                "\ninterrupted; a step cut short is finished or undone by the next command",
                err=True,
            )
            sys.exit(EXIT_INTERRUPTED)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


GAMEDIR = click.Path(path_type=Path, file_okay=False)
FILE = click.Path(path_type=Path, dir_okay=False)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adjudicator")
def cli() -> None:
    """Run moderated play-by-email board games with signed order files.

    \b
    Example, a whole game played by bots:
      adjudicator demo sultan --players 4 --seed 7 --dir my-demo
    """


@cli.command()
def games() -> None:
    """List the installed games: name, players, title.

    \b
    Example:
      adjudicator games
    """
    from adjudicator.store.registry import game_names, load_game

    for name in game_names():
        game = load_game(name)
        span = f"{game.min_players}-{game.max_players}"
        if game.min_players == game.max_players:
            span = str(game.min_players)
        click.echo(f"{name}\t{span} players\t{game.title}")


@cli.command()
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
    click.echo(line)


@cli.command()
@click.argument("orders", type=FILE)
@click.option("--key", "keyfile", type=FILE, required=True, help="Your private key file.")
def sign(orders: Path, keyfile: Path) -> None:
    """Sign an order file: writes ORDERS.sig (an OpenSSH signature).

    Asks for the key's passphrase when it has one. The same as
    `ssh-keygen -Y sign -n adjudicator-orders -f KEY ORDERS`.

    \b
    Example:
      adjudicator sign cairo-2026-turn4-alice.yaml --key ~/.ssh/cairo-2026
    """
    from adjudicator.engine.orders import MAX_ORDER_BYTES
    from adjudicator.present.words import say
    from adjudicator.signing import sshsig
    from adjudicator.store.gamedir import atomic_write
    from adjudicator.store.readfile import FileRefused, read_regular

    try:
        data = read_regular(orders, MAX_ORDER_BYTES)
    except FileRefused as error:
        fail(f"{orders}: cannot read the order file ({say(error.why)})", 2)
    private = private_key(keyfile)
    target = orders.with_name(orders.name + ".sig")
    atomic_write(target, sshsig.sign(data, private))
    click.echo(f"{target}: signed")


@cli.command()
@click.argument("orders", type=FILE)
@click.option("--form", "form_path", type=FILE, required=True, help="The order form you were sent.")
def check(orders: Path, form_path: Path) -> None:
    """Check an order file against your order form before signing it.

    \b
    Example:
      adjudicator check my-order.yaml --form cairo-2026-turn4-alice.yaml
    """
    from adjudicator.engine import intake
    from adjudicator.present.verdict_lines import note_lines, verdict_lines

    verdict = intake.check(orders, form_path)
    if verdict.accepted:
        click.echo(f"{orders}: valid ({verdict.player}, turn {verdict.turn})")
        for line in note_lines(verdict):
            click.echo(line)
        return
    for line in verdict_lines(verdict):
        click.echo(line)
    sys.exit(EXIT_REFUSED)


@cli.command()
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

    handle = create.new(gamedir, setup_path)
    click.echo(f"{gamedir}: game {handle.meta['id']} ({handle.game.title}) created, turn 1")
    click.echo(f"reports: adjudicator report {gamedir} --player NAME (or --gm, --public)")


@cli.command()
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


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(gamedir: Path, as_json: bool) -> None:
    """Show the turn, who owes what, who is away until when, and the deadline.

    \b
    Example:
      adjudicator status games/cairo-2026 --json
    """
    from adjudicator.engine import queries

    data = queries.status(gamedir)
    if as_json:
        echo_json(data)
        return
    if data["over"]:  # the last adjudication, of the turn before, opened no turn
        after = f" after turn {data['turn'] - 1}" if data["turn"] > 1 else ""
        click.echo(f"{data['id']} ({data['game']}): the game is over{after}")
        if data["ended"] is not None:
            click.echo(ended_text(data["ended"]))
        return
    phase = {"commit": ": commitments", "reveal": ": the reveal"}.get(data["phase"], "")
    click.echo(f"{data['id']} ({data['game']}), turn {data['turn']}{phase}")
    for player, to_do in data["owed"].items():
        state = "received" if player in data["received"] else "waiting"
        if player in data["resigned"]:
            state = "resigned: default orders"
        elif player in data["conceded"]:
            state = "conceded: default orders"
        elif player in data["without"]:
            state = "no commitment: default orders"
        elif player not in data["received"] and player not in data["waiting_for"]:
            state = "away: default orders unless they send orders"  # absence: default
        owes = {"commit": f"a commitment to {to_do}", "reveal": f"{to_do} as committed"}
        click.echo(f"  {player}: owes {owes.get(data['phase'], to_do)} ({state})")
    for stretch in data["away"]:
        click.echo(f"away: {stretch['player']} from {stretch['from']} to {stretch['to']}")
    click.echo(f"deadline: {_deadline_text(data)}")
    if data["rolled_back"]:
        click.echo("rolled back: adjudicate again (the orders are fixed)")
    if data["agreed"]:
        click.echo("the players' votes end the game at the next adjudication (due now)")


def _deadline_text(data: dict[str, Any]) -> str:
    """The deadline in UTC and the game's zone, with the time left, or why there is none."""
    from datetime import datetime

    from adjudicator.rules import schedule
    from adjudicator.store import clock

    if data["deadline"] is None:
        return "none" + (" (paused)" if data["paused"] else "")
    deadline = datetime.fromisoformat(data["deadline"])
    text = schedule.shown(deadline, schedule.zone(data["timezone"]))
    if data["paused"]:
        return f"{text} (paused: the clock stands still)"
    from adjudicator.present.words import say

    return f"{text}; {say(schedule.left(deadline, clock.now()))}"


@cli.command()
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

    result = adjudication.adjudicate(gamedir, default_missing)
    for line in adjudicated_lines(gamedir, result):
        click.echo(line)


def adjudicated_lines(gamedir: Path, result: dict[str, Any], would: bool = False) -> list[str]:
    """What ``adjudicate`` says it did (``would``: what it would do, for ``--preview``)."""
    done = "would be adjudicated" if would else "adjudicated"
    line = f"{gamedir}: turn {result['turn']} {done}"
    if result["revealing"]:  # sealing: commit-reveal: the commitments' phase is over
        opens = "would open" if would else "is open"
        line = f"{gamedir}: the reveal of turn {result['turn']} {opens}"
    if result["defaulted"]:
        line += f" (default orders for {', '.join(result['defaulted'])})"
    lines = [line]
    ended = result.get("ended")
    if ended is not None:
        lines.append(ended_text(ended, would))
    elif result["over"]:
        lines.append("the game would be over" if would else "the game is over")
    return lines


def ended_text(ended: dict[str, Any], would: bool = False) -> str:
    """How the players' votes end the game, in a line."""
    is_over = "the game would be over" if would else "the game is over"
    if ended["by"] == "draw":
        return f"{is_over}: a draw, agreed by {', '.join(ended['players'])}"
    if ended["winner"] is None:
        return f"{is_over}: every player conceded, nobody wins"
    return f"{is_over}: every other player conceded, {ended['winner']} wins"


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", default=None, help="A player's report.")
@click.option("--gm", is_flag=True, help="The game master's report.")
@click.option("--public", is_flag=True, help="The spectators' report.")
@click.option("--turn", type=int, default=None, help="The report that opened turn N.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "html"]),
    default="text",
    show_default=True,
    help="Text, or an HTML page with its pictures inside (data: URIs).",
)
def report(
    gamedir: Path, player: str | None, gm: bool, public: bool, turn: int | None, fmt: str
) -> None:
    """Print a player's, the game master's or the spectators' report, in the reader's language.

    \b
    Example:
      adjudicator report games/cairo-2026 --player alice --turn 3
      adjudicator report games/cairo-2026 --player alice --format html > alice.html
    """
    from adjudicator.present import rendered
    from adjudicator.store.gamedir import GameDir

    chosen = [name for name, on in (("--player", player), ("--gm", gm), ("--public", public)) if on]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --player NAME, --gm, --public")
    reader = player or ("gm" if gm else "public")
    head = GameDir(gamedir).head()
    if fmt == "html":
        from adjudicator.present.html import report_page

        click.echo(report_page(gamedir, reader, turn, head=head).html, nl=False)
        return
    click.echo(rendered.report(gamedir, reader, turn, head), nl=False)


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option(
    "-o",
    "--output",
    "out",
    type=GAMEDIR,
    required=True,
    help="The folder to write (must not exist or be empty).",
)
def site(gamedir: Path, out: Path) -> None:
    """Write a static HTML viewer of the game: the spectators' reports while it runs, every
    reader's once it is over. Open DIR/index.html in a browser; nothing is fetched.

    \b
    Example:
      adjudicator site games/cairo-2026 -o cairo-site
    """
    from adjudicator.present.site import write

    written = write(gamedir, out)
    click.echo(f"{out}: {len(written)} files; open {out / 'index.html'}")


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", required=True, help="The player.")
def form(gamedir: Path, player: str) -> None:
    """Print a player's order form for the current turn.

    \b
    Example:
      adjudicator form games/cairo-2026 --player alice > order.yaml
    """
    from adjudicator.present import rendered
    from adjudicator.store.gamedir import GameDir

    click.echo(rendered.form(gamedir, player, GameDir(gamedir).head()), nl=False)


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", required=True, help="The player.")
@click.option("--json", "as_json", is_flag=True, help="Print the view's data as JSON.")
def view(gamedir: Path, player: str, as_json: bool) -> None:
    """Print what a player may see now: their report, or with --json the view's data.

    The text is the player's report of the current turn (`report --player NAME`): it is
    rendered from this same view, and nothing in the view changes until the next
    adjudication. --json prints the view itself, which the report renders.

    \b
    Example:
      adjudicator view games/cairo-2026 --player alice --json
    """
    from adjudicator.engine import queries
    from adjudicator.store.gamedir import GameDir

    head = GameDir(gamedir).head()
    if as_json:
        echo_json({**queries.view(gamedir, player), "chain_head": head})
        return
    from adjudicator.present import rendered

    click.echo(rendered.report(gamedir, player, None, head), nl=False)


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def log(gamedir: Path, as_json: bool) -> None:
    """Print the game record: public while running, complete once over.

    Readable text by default; --json prints the record as docs/record.md describes it.

    \b
    Example:
      adjudicator log games/cairo-2026
      adjudicator log games/cairo-2026 --json > cairo-2026.json
    """
    from adjudicator.engine import queries
    from adjudicator.present.record_text import record_text
    from adjudicator.store.registry import load_game

    data = queries.record(gamedir)
    if as_json:
        echo_json(data)
        return
    click.echo(record_text(data, load_game(data["game"]).title), nl=False)


@cli.command()
@click.argument("gamedir", type=GAMEDIR)
def doctor(gamedir: Path) -> None:
    """Check a game directory against its journal; name what is wrong. Writes nothing.

    Exit 0 when every file the journal names is there with its SHA-256, no other file is
    there and no step was cut short (mail in doubt is listed, not counted); else exit 3,
    one line per problem. The next command that changes the game finishes or discards a
    step cut short.

    \b
    Example:
      adjudicator doctor games/cairo-2026
    """
    from adjudicator.present.words import say
    from adjudicator.store.doctor import examine

    result = examine(gamedir)
    for name in result.in_doubt:
        click.echo(f"in doubt: mail/sending/{name} (check whether it arrived)")
    for problem in result.problems:
        click.echo(f"{gamedir / problem.path}: {say(problem.problem, lang=result.lang)}")
    if result.problems:
        sys.exit(EXIT_REFUSED)
    click.echo(f"{gamedir}: agrees with its journal ({result.lines} lines, {result.files} files)")


@cli.command()
@click.argument("game")
def schema(game: str) -> None:
    """Print the JSON Schema (draft-07) of GAME's order files.

    \b
    Example:
      adjudicator schema sultan > sultan-orders.schema.json
    """
    from adjudicator.rules.schema import order_schema
    from adjudicator.store.registry import load_game

    echo_json(order_schema(load_game(game)))


@cli.command()
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
def demo(
    game: str,
    players: int | None,
    seed: int,
    directory: Path | None,
    lang: str,
    options: tuple[str, ...],
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
    demo_module.run(game, players, seed, directory, click.echo, lang, options=given)


from adjudicator.cli.audit import archive, commit, verify  # noqa: E402
from adjudicator.cli.gm import extend, pause, replace, resign, resume, rollback  # noqa: E402
from adjudicator.cli.mail import ingest, send, tick  # noqa: E402  (they only import click here)
from adjudicator.cli.notices import absence, press  # noqa: E402

_COMMANDS = (
    *(ingest, send, tick, extend, pause, resume, replace, resign, rollback),
    *(archive, verify, commit, press, absence),
)
for _command in _COMMANDS:
    cli.add_command(_command)


def main() -> None:
    cli(prog_name="adjudicator")
