"""Reports and order forms: Jinja templates rendered from a view, never from the raw state.

A game's templates live in its own folder (``Game.templates()``); ``templates/common`` holds what
every game shares. Each game folder has ``player.txt.j2``, ``public.txt.j2``, ``gm.txt.j2`` and
``form.yaml.j2``. Templates get:

- ``game``: id, title, name, the players' names, the options, and ``seed`` once the game is over;
- ``turn``: the turn the report opens; ``owed``: the names of who owes an order now;
- ``view``: what this reader may see (the game's view function; the only source of game facts);
- ``form``: the reader's order form as text, when they owe an order;
- ``orders``: every order used, by turn, once the game is over (the record's ``orders``).
"""

from __future__ import annotations

import json
import textwrap
from importlib.resources import files
from typing import Any

import jinja2

from adjudicator.contract import Game, Msg, State
from adjudicator.forms import FORM_WIDTH, carried_lines
from adjudicator.present.words import say

CARRIED_NOTE = "# The lines below let 'adjudicator check' check your order: keep them."


_ENVIRONMENTS: dict[str, jinja2.Environment] = {}


def _environment(game: Game) -> jinja2.Environment:
    """One environment per game, so each template is compiled once per process."""
    if game.name not in _ENVIRONMENTS:
        _ENVIRONMENTS[game.name] = _new_environment(game)
    return _ENVIRONMENTS[game.name]


def _new_environment(game: Game) -> jinja2.Environment:
    common = files("adjudicator.templates") / "common"
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(str(game.templates())), jinja2.FileSystemLoader(str(common))]
        ),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["joined"] = lambda items: ", ".join(str(i) for i in items) if items else "none"
    env.filters["tojson_line"] = lambda value: json.dumps(value, sort_keys=True)
    env.filters["plural"] = counted
    env.filters["comment"] = comment
    env.filters["say"] = lambda message: _said(message, game)
    return env


def _said(message: Msg | dict[str, Any] | str, game: Game) -> str:
    """A message in words: a ``Msg``, one stored as JSON, or text a game stored before it had
    codes (an old game's events)."""
    if isinstance(message, str):
        return message
    return say(message if isinstance(message, Msg) else Msg.from_json(message), game)


def comment(text: str) -> str:
    """``text`` as YAML comment lines of at most FORM_WIDTH characters (a word longer than a
    line, such as a long name, stays whole on a line of its own)."""
    return textwrap.fill(
        " ".join(text.split()),
        FORM_WIDTH,
        initial_indent="# ",
        subsequent_indent="# ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def counted(count: int, word: str, plural: str | None = None) -> str:
    """``1 type``, ``2 types``, ``0 votes``: a count with its word in the right number."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def _game_info(game: Game, meta: dict[str, Any], over: bool) -> dict[str, Any]:
    info = {
        "id": meta["id"],
        "name": game.name,
        "title": game.title,
        "players": [p["name"] for p in meta["players"]],
        "options": meta["options"],
    }
    if over:
        info["seed"] = meta["seed"]
    return info


def render(
    game: Game,
    meta: dict[str, Any],
    state: State,
    reader: str,
    orders: dict[str, Any] | None = None,
) -> str:
    """The report for ``reader``: a player's name, ``"public"`` or ``"gm"``."""
    over = game.is_over(state)
    if reader == "gm":
        view = game.gm_view(state)
        template = "gm.txt.j2"
    elif reader == "public":
        view = game.view(state, None)
        template = "public.txt.j2"
    else:
        view = game.view(state, reader)
        template = "player.txt.j2"
    owed = game.owed(state)
    form = form_text(game, meta, state, reader) if reader in owed else None
    return (
        _environment(game)
        .get_template(template)
        .render(
            game=_game_info(game, meta, over),
            turn=state["turn"],
            owed=sorted(owed, key=[p["name"] for p in meta["players"]].index),
            view=view,
            form=form,
            orders=orders if over else None,
        )
    )


def render_final(game: Game, meta: dict[str, Any], state: State) -> str:
    """The final table of a finished game (``final.txt.j2``, from the spectators' view)."""
    return (
        _environment(game)
        .get_template("final.txt.j2")
        .render(game=_game_info(game, meta, True), turn=state["turn"], view=game.view(state, None))
    )


def form_text(game: Game, meta: dict[str, Any], state: State, player: str) -> str | None:
    """``player``'s order form for the current turn, or None when they owe nothing."""
    owed = game.owed(state)
    if player not in owed:
        return None
    view = game.view(state, player)
    context = game.context(view)
    carried = {
        "game": game.name,
        "id": meta["id"],
        "player": player,
        "turn": state["turn"],
        "context": context,
    }
    text = (
        _environment(game)
        .get_template("form.yaml.j2")
        .render(
            game=_game_info(game, meta, False),
            turn=state["turn"],
            player=player,
            to_do=owed[player],
            view=view,
            context=context,
        )
    )
    carried_text = "\n".join([CARRIED_NOTE, *carried_lines(carried)])
    return text.rstrip("\n") + "\n" + carried_text + "\n"
