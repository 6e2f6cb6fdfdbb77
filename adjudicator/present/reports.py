"""Reports and order forms: Jinja templates rendered from a view, never from the raw state.

A game's templates live in its own folder (``Game.templates()``); ``templates/common`` holds what
every game shares. Each game folder has ``player.txt.j2``, ``public.txt.j2``, ``gm.txt.j2`` and
``form.yaml.j2``. Templates get:

- ``game``: id, title, name, the players' names, the options, and ``seed`` once the game is over;
- ``turn``: the turn the report opens; ``owed``: the names of who owes an order now;
- ``view``: what this reader may see (the game's view function; the only source of game facts);
- ``form``: the reader's order form as text, when they owe an order;
- ``orders``: every order used, by turn, once the game is over (the record's ``orders``);
- ``chain``: what lets the reader check the game (:mod:`adjudicator.present.hashes`), rendered
  after the game's template by ``_chain.txt.j2`` (in an order form by ``_chain.form.j2``), so
  that every game's reports show it.

A report, form or page shows the chain head passed to it as ``head`` (None: none), which the
caller reads as the report is rendered; no stored view holds one.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

import jinja2

from adjudicator.present.catalogs import DEFAULT, environment, translations
from adjudicator.present.deferred import DeferringContext
from adjudicator.present.hashes import chain, head_line, say_filter
from adjudicator.present.words import say
from adjudicator.rules import shipped
from adjudicator.rules.contract import Game, Msg, State, msg
from adjudicator.rules.formlines import FORM_WIDTH, carried_lines
from adjudicator.rules.views import reader_view

_ENVIRONMENTS: dict[tuple[str, str, str], jinja2.Environment] = {}


def report_environment(game: Game, lang: str = DEFAULT) -> jinja2.Environment:
    """One environment per game, templates folder and language, so each template is compiled
    once per process (a game's own tests may render a changed copy of its templates under the
    game's name: it gets an environment of its own)."""
    key = (game.name, str(game.templates()), lang)
    if key not in _ENVIRONMENTS:
        _ENVIRONMENTS[key] = _new_environment(game, lang)
    return _ENVIRONMENTS[key]


def _is_html(name: str | None) -> bool:
    """HTML templates (``*.html.j2``) escape what they put in; text templates do not."""
    return name is not None and name.endswith(".html.j2")


def _new_environment(game: Game, lang: str) -> jinja2.Environment:
    """The game's templates, then the shared ones, with Jinja's i18n extension speaking
    ``lang`` through the game's catalog (falling back to the shared one)."""
    common = shipped.templates() / "common"
    loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(str(game.templates())), jinja2.FileSystemLoader(str(common))]
    )
    env = environment(loader, translations(game, lang), _is_html)
    env.context_class = DeferringContext  # a page's ``text`` is made only if shown
    env.filters["joined"] = lambda items: (
        ", ".join(str(i) for i in items) if items else say(msg("list-none"), game, lang)
    )
    env.filters["tojson_line"] = lambda value: json.dumps(value, sort_keys=True)
    env.filters["plural"] = counted
    env.filters["comment"] = comment
    env.filters["prose"] = prose
    env.filters["say"] = say_filter(lambda message: _said(message, game, lang))
    env.globals["lang"] = lang
    # How a turn relates to the game's rounds, in the reader's words. A global, not a constant
    # in a template: Jinja folds a filter over a constant when it compiles, and compiled
    # templates are cached across languages.
    env.globals["turns_explained"] = say(msg("turns-explained"), game, lang)
    return env


def _said(message: Msg | dict[str, Any] | str, game: Game, lang: str) -> str:
    """A message in words: a ``Msg``, one stored as JSON, or text a game stored before it had
    codes (an old game's events)."""
    if isinstance(message, str):
        return message
    return say(message if isinstance(message, Msg) else Msg.from_json(message), game, lang)


def comment(text: str, width: int = FORM_WIDTH) -> str:
    """``text`` as YAML comment lines of at most ``width`` (at most FORM_WIDTH) characters (a
    word longer than a line, such as a long name, stays whole on a line of its own)."""
    return textwrap.fill(
        " ".join(text.split()),
        min(width, FORM_WIDTH),
        initial_indent="# ",
        subsequent_indent="# ",
        break_long_words=False,
        break_on_hyphens=False,
    )


_GLUED = (" :", " ;", " ?", " !", "« ", " »")
"""French puts a space before these marks (and inside guillemets): a line never starts or ends
with one of them alone."""


_OPTION = re.compile(r" -(?=[A-Za-z])")
"""A command's option (``ssh -V``) stays on the line of its command."""


def prose(text: str, width: int = FORM_WIDTH) -> str:
    """Each line of ``text`` wrapped at ``width`` characters, words and paths kept whole, a
    French ``:`` or ``;`` kept with the word before it (as Jinja's ``wordwrap``, no newline
    after the last line)."""
    lines = []
    for line in text.splitlines():
        for glued in _GLUED:
            line = line.replace(glued, glued.replace(" ", "\u00a0"))
        line = _OPTION.sub("\u00a0-", line)
        wrapped = textwrap.fill(
            line, width, break_long_words=False, break_on_hyphens=False
        ).replace("\u00a0", " ")
        lines.append(wrapped)
    return "\n".join(lines)


def counted(count: int, word: str, plural: str | None = None) -> str:
    """``1 type``, ``2 types``, ``0 votes``: a count with its word in the right number."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def game_info(game: Game, meta: dict[str, Any], over: bool) -> dict[str, Any]:
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


_TEMPLATES = {"gm": "gm.txt.j2", "public": "public.txt.j2"}


def render_view(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    lang: str = DEFAULT,
    head: str | None = None,
    *,
    checking: bool = True,
    press: list[dict[str, Any]] | None = None,
    away: list[Msg] | None = None,
    answering: bool = False,
) -> str:
    """The report of a stored view (:func:`adjudicator.rules.views.reader_view`) in ``lang``, with
    the chain head ``head`` (None: none); ``checking=False`` leaves out what lets the reader check
    the game (a page that shows the text says that itself). ``press``: the press the reader
    received during the turn before (:func:`adjudicator.engine.press.shown_to`; never in a view),
    listed before the order form (``_form.txt.j2``), or after a report that has none.
    ``away``: who is away until when (:func:`adjudicator.engine.absences.lines`, read with the
    head: no stored view holds it), after the report. ``answering``: the mail ends with how to
    answer (:mod:`adjudicator.present.welcome`), so the form's heading points there."""
    reader = doc["reader"]
    env = report_environment(game, lang)
    listed = press_facts(press, doc["turn"]) if press else None
    text = env.get_template(_TEMPLATES.get(reader, "player.txt.j2")).render(
        game=game_info(game, meta, doc["over"]),
        turn=doc["turn"],
        owed=doc["owed"],
        view=doc["view"],
        form=form_of_view(game, meta, doc, lang, head),
        orders=doc.get("orders"),
        press=listed,
        answering=answering,
    )
    if listed is not None and not listed["shown"]:  # a report with no _form.txt.j2
        text += env.get_template("_press.txt.j2").render(press=listed)
    text = _votes(env, doc) + text
    if away:
        text += env.get_template("_away.txt.j2").render(away=away)
    return text + _checking(env, doc, head) if checking else text


def _votes(env: jinja2.Environment, doc: dict[str, Any]) -> str:
    """How the players' votes ended the game, who conceded so far, and whose seats played the
    forfeit order in the turn before (nothing when none of these)."""
    if not doc.get("ended") and not doc.get("conceded") and not doc.get("forfeited"):
        return ""
    return env.get_template("_votes.txt.j2").render(
        ended=doc.get("ended"), conceded=doc.get("conceded"), forfeited=doc.get("forfeited")
    )


def press_facts(press: list[dict[str, Any]], turn: int) -> dict[str, Any]:
    """What ``_press.txt.j2`` and ``_press.html.j2`` show: a heading and, for each press, who
    wrote it to whom (codes), and its text."""
    items = []
    for one in press:
        to = [msg("press-to-everyone")] if one["to"] == "all" else list(one["to"])
        said = (
            msg("press-from-someone", to=to)
            if one["from"] is None
            else msg("press-from", sender=one["from"], to=to)
        )
        items.append({"said": said, "text": one["text"]})
    heading = msg("press-heading", turn=msg("turn-label", turn=turn - 1))
    return {"heading": heading, "items": items, "shown": []}


def _checking(env: jinja2.Environment, doc: dict[str, Any], head: str | None) -> str:
    """The lines that let a reader check the game, after a text report."""
    return env.get_template("_chain.txt.j2").render(chain=chain(doc, head))


def form_name(meta: dict[str, Any], doc: dict[str, Any]) -> str:
    """The name a form is sent by: ``<id>-turn<N>-<player>.yaml``."""
    return f"{meta['id']}-turn{doc['turn']}-{doc['reader']}.yaml"


def form_of_view(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    lang: str = DEFAULT,
    head: str | None = None,
) -> str | None:
    """The order form of a player's stored view in ``lang``, or None when they owe nothing; a
    comment line shows the chain head ``head`` (None: none)."""
    if "to_do" not in doc:
        return None
    player, turn, context = doc["reader"], doc["turn"], doc["context"]
    carried = {"game": game.name, "id": meta["id"], "player": player, "turn": turn}
    carried["context"] = context
    if lang != DEFAULT:
        carried["lang"] = lang
    env = report_environment(game, lang)
    text = env.get_template("form.yaml.j2").render(
        game=game_info(game, meta, False),
        turn=turn,
        player=player,
        to_do=doc["to_do"],
        view=doc["view"],
        context=context,
    )
    lines = env.get_template("_chain.form.j2").render(
        chain=[] if head is None else [head_line(head)]
    )
    note = comment(say(msg("carried-note"), game, lang))
    sealed = []  # sealing: commit-reveal: how to send this order (docs/commit-reveal.md)
    if meta["options"].get("sealing") == "commit-reveal":
        sealed = [comment(say(msg("form-sealed", file=form_name(meta, doc)), game, lang))]
    carried_text = "\n".join([*sealed, *lines.splitlines(), note, *carried_lines(carried)])
    return text.rstrip("\n") + "\n" + carried_text + "\n"


def render_final(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    lang: str = DEFAULT,
    head: str | None = None,
    *,
    checking: bool = True,
) -> str:
    """The final table of a finished game (``final.txt.j2``), from its last public view, with
    the chain head ``head`` (None: none), the seed commitment and the seed and salt
    (``checking=False``: without them)."""
    env = report_environment(game, lang)
    if doc.get("ended"):  # the votes ended it: the game's own final table has no result
        text = _votes(env, doc)
    else:
        text = env.get_template("final.txt.j2").render(
            game=game_info(game, meta, True), turn=doc["turn"], view=doc["view"]
        )
    return text + _checking(env, doc, head) if checking else text


def render(
    game: Game,
    meta: dict[str, Any],
    state: State,
    reader: str,
    orders: dict[str, Any] | None = None,
    lang: str = DEFAULT,
    head: str | None = None,
) -> str:
    """The report for ``reader`` (a player's name, ``"public"`` or ``"gm"``) of ``state``."""
    return render_view(game, meta, reader_view(game, meta, state, reader, orders), lang, head)


def form_text(
    game: Game,
    meta: dict[str, Any],
    state: State,
    player: str,
    lang: str = DEFAULT,
    head: str | None = None,
) -> str | None:
    """``player``'s order form for the turn of ``state``, or None when they owe nothing."""
    return form_of_view(game, meta, reader_view(game, meta, state, player), lang, head)
