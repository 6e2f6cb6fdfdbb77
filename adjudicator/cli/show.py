"""What a game shows, changing nothing: ``report``, ``site``, ``form``, ``view``, ``log``, and
what is installed (``games``, ``schema``)."""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.cli.arguments import GAMEDIR
from adjudicator.cli.support import echo, echo_json, writing


@click.command()
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
        echo(f"{name}\t{span} players\t{game.title}")


@click.command()
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

        echo(report_page(gamedir, reader, turn, head=head).html, nl=False)
        return
    echo(rendered.report(gamedir, reader, turn, head), nl=False)


@click.command()
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

    with writing(out):
        written = write(gamedir, out)
    echo(f"{out}: {len(written)} files; open {out / 'index.html'}")


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option("--player", required=True, help="The player.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the player's order page (docs/order-page.md) to this file instead.",
)
@click.option(
    "--address",
    help="Where the page's mail link sends the signed order (default: the mail settings' from).",
)
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Mail settings.")
def form(
    gamedir: Path,
    player: str,
    html_path: Path | None,
    address: str | None,
    config_file: Path | None,
) -> None:
    """Print a player's order form for the current turn, or write their order page.

    \b
    Examples:
      adjudicator form games/cairo-2026 --player alice > order.yaml
      adjudicator form games/cairo-2026 --player alice --html cairo-2026-alice.html
    """
    from adjudicator.present import rendered
    from adjudicator.store.gamedir import GameDir

    if html_path is None:
        echo(rendered.form(gamedir, player, GameDir(gamedir).head()), nl=False)
        return
    if address is None:
        from email.utils import parseaddr

        from adjudicator.mail.config import DEFAULT_SENDER, load_config

        address = parseaddr(load_config(config_file).sender or DEFAULT_SENDER)[1]
    page = rendered.order_page(gamedir, player, address, GameDir(gamedir).head())
    with writing(html_path):
        html_path.write_text(page, encoding="utf-8")
    echo(f"{html_path}: the order page of {player}")


@click.command()
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

    echo(rendered.report(gamedir, player, None, head), nl=False)


@click.command()
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
    from adjudicator.rules.lang import game_lang
    from adjudicator.store.gamedir import GameDir

    lang = game_lang(GameDir(gamedir).meta())
    echo(record_text(data, load_game(data["game"]).title, lang), nl=False)


@click.command()
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
