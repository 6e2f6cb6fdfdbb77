"""The game contract as a test, for a game's author to run from the game's own tests.

    from adjudicator.testing import check_game
    from raj_game import GAME

    def test_raj_keeps_the_contract(tmp_path):
        check_game(GAME, tmp_path)

:func:`check_game` runs every check below: :func:`check_rules` (the game object alone) and
:func:`check_through_the_engine` (a whole game played by the game's bots through the engine,
then archived and verified). Each check is public, to be run alone, and raises
:class:`ContractBroken` (an ``AssertionError``) saying what the game did and where.

The rules alone, for every player count the game takes:

- the declarations: name, title, player counts, the envelope keys, strict models;
- the setup file's player keys (``player_model``, and the plain check ``player_fits``, which
  may say "fits" only where the model takes the keys as given) and options (``options``): the
  engine's own options are not the game's, an unknown one is refused;
- the templates: the five reports and forms, the texts, the compiled catalogs, the rules
  summary in English (``rules/en.md``) and any other language's named as the language;
- seeded playthroughs by the game's bots, each turn: state, views, contexts, orders, events and
  records that come back from JSON as they were; views with ``player``, ``to_do``, ``turn`` and
  ``over``; a spectator who sees nothing that a player does not; each bot order valid and
  normalised for good; the forfeit order (optional) plain and valid; wrong orders (the bot's,
  changed) refused with problems that have words in every language; ``resolve`` that leaves its
  input alone, advances the turn and announces each default order; an end; the same game again
  from the same seed;
- a game where every third turn's orders are missing, and one where a seat goes silent (it never
  sends an order: a player who resigned or conceded), still end;
- with ``other_world`` (a function that changes in a state what a reader may not see), each
  reader's view the same in both worlds.

Through the engine: the game installed (its entry point found), a whole game played as
``adjudicator demo`` plays it (keys, signed order files, every report); reports, forms and pages
in every language the adjudicator speaks; pictures (optional) that are PNG and the same bytes
twice; the record as ``log`` shows it; ``archive`` and ``archive --public``, each passing
``verify`` with every turn played again.

Nothing in the adjudicator imports this module; what a check needs of the engine, the
presentation and the audit is imported when it runs, so importing this module is cheap.
"""

from __future__ import annotations

import functools
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.rules.contract import Game, Order, Problem, Resolution, State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.plain import clone
from adjudicator.rules.rng import Rng

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
MAX_TURNS = 400
ENVELOPE = ("id", "player", "turn")
VIEW_KEYS = ("player", "to_do", "turn", "over")
"""What every view holds: the engine and the shared templates read them."""
TEMPLATES = ("player.txt.j2", "public.txt.j2", "gm.txt.j2", "final.txt.j2", "form.yaml.j2")
"""The templates every game ships (an HTML one is optional: the text is put in a page)."""
RECORD_KEYS = frozenset(("game", "id", "players", "options", "over", "seed", "salt", "orders"))
RECORD_KEYS |= {"press", "conceded", "absences", "ended", "commitment"}
"""The keys of the game record the engine writes: a game's ``record`` holds none of them."""
UNTYPED = (TypeError, ValueError, KeyError, AttributeError, IndexError)
"""What ``validate`` may raise on an order the order model refused (the engine lets it)."""

OtherWorld = Callable[[State, str | None], State]
"""``other_world(state, reader)``: the state with what ``reader`` (a player, None for the
spectators) may not see changed; the state passed in is a copy, to change or to replace."""
Missing = Callable[[int, str], bool]
"""``missing(turn, player)``: the player sends no order that turn."""


class ContractBroken(AssertionError):
    """The game does not keep the contract: the message says what and where."""


@dataclass
class Seen:
    """What playthroughs met: wrong orders tried and refused, states whose other world
    differed (a check that meets none of either checked nothing)."""

    tried: int = 0
    refused: int = 0
    hidden: int = 0


def need(condition: object, message: str) -> None:
    """Raise :class:`ContractBroken` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise ContractBroken(message)


def player_names(count: int) -> list[str]:
    """The names the checks seat: alice, bob, ... (then player9, player10, ...)."""
    return [NAMES[i] if i < len(NAMES) else f"player{i + 1}" for i in range(count)]


def entries(names: list[str]) -> list[dict[str, Any]]:
    """Player entries as the engine gives them to ``setup``: the keys every game reads."""
    return [
        {"name": n, "email": f"{n}@example.org", "key": "ssh-ed25519 A", "lang": "en"}
        for n in names
    ]


# -- the whole check ------------------------------------------------------------------------------
def check_game(
    game: Game,
    folder: Path | None = None,
    *,
    seeds: tuple[int, ...] = (1, 2),
    other_world: OtherWorld | None = None,
    max_turns: int = MAX_TURNS,
) -> Path | None:
    """Every check: :func:`check_rules`, then :func:`check_through_the_engine` in ``folder``
    (None: a temporary folder, removed after). The game directory played, when ``folder`` is
    given (to look at further)."""
    check_rules(game, seeds=seeds, other_world=other_world, max_turns=max_turns)
    if folder is not None:
        return check_through_the_engine(game, folder)
    with tempfile.TemporaryDirectory(prefix=f"adjudicator-testing-{game.name}-") as kept:
        check_through_the_engine(game, Path(kept))
    return None


def check_rules(
    game: Game,
    *,
    seeds: tuple[int, ...] = (1, 2),
    other_world: OtherWorld | None = None,
    invariant: Callable[[State], None] | None = None,
    max_turns: int = MAX_TURNS,
) -> None:
    """The game object alone, without the engine: declarations, player keys, options,
    templates, and at every player count a game from each seed, one of them again, one with
    every third turn's orders missing, one with a seat that goes silent."""
    need(seeds, "give at least one seed")
    check_declarations(game)
    check_player_keys(game)
    check_options(game)
    check_templates(game)
    seen = Seen()
    rules: dict[str, Any] = {"invariant": invariant, "max_turns": max_turns}
    for count in range(game.min_players, game.max_players + 1):
        first, *others = seeds
        ended = play(game, count, first, other_world=other_world, seen=seen, **rules)
        for seed in others:
            play(game, count, seed, other_world=other_world, seen=seen, **rules)
        again = play(game, count, first, probe=False, **rules)
        same(ended, again, f"{game.name}: {count} players, seed {first} played again")
        play(game, count, seeds[-1], probe=False, missing=_every_third_turn, **rules)
        silent = functools.partial(_seat_silent, player_names(count)[0])
        play(game, count, first, probe=False, missing=silent, **rules)
    wrong = f"{game.name}: none of {seen.tried} wrong orders was refused"
    need(seen.refused, f"{wrong}: does validate check anything?")
    if other_world is not None:
        need(seen.hidden, f"{game.name}: other_world never changed a state: it checked nothing")


def _every_third_turn(turn: int, player: str) -> bool:
    return turn % 3 == 0


def _seat_silent(seat: str, turn: int, player: str) -> bool:
    """A seat that never sends an order (a player who resigned or conceded)."""
    return player == seat


# -- what the game declares -----------------------------------------------------------------------
def check_declarations(game: Game) -> None:
    """Name, title, player counts, the envelope keys and the strict models."""
    need(isinstance(game.name, str) and game.name.strip() == game.name != "", f"name {game.name!r}")
    need(isinstance(game.title, str) and game.title.strip(), f"{game.name}: title {game.title!r}")
    low, high = game.min_players, game.max_players
    need(
        isinstance(low, int) and isinstance(high, int) and 1 <= low <= high,
        f"{game.name}: players {low} to {high}",
    )
    need(tuple(game.envelope_keys) == ENVELOPE, f"{game.name}: envelope_keys must be {ENVELOPE}")
    for what, model in (
        ("order_model", game.order_model()),
        ("context_model", game.context_model()),
    ):
        _strict(model, f"{game.name}: {what}()")
    fields = game.order_model().model_fields
    need(all(k in fields for k in ENVELOPE), f"{game.name}: order_model() has no {ENVELOPE} fields")


def _strict(model: Any, what: str) -> None:
    config = model.model_config
    need(config.get("strict") is True, f"{what}: model_config needs strict=True")
    need(config.get("extra") == "forbid", f"{what}: model_config needs extra='forbid'")


def check_player_keys(game: Game) -> None:
    """The game's own keys of a setup's player entry: strict, every one optional, none of the
    keys every game reads; a setup with those keys alone fits."""
    from adjudicator.engine.setup_schema import PlayerSpec, setup_model

    model = game.player_model()
    _strict(model, f"{game.name}: player_model()")
    required = [k for k, field in model.model_fields.items() if field.is_required()]
    need(not required, f"{game.name}: player keys {required} must be optional (a demo gives none)")
    shared = sorted(set(model.model_fields) & set(PlayerSpec.model_fields))
    need(not shared, f"{game.name}: player keys {shared} are keys every game reads")
    names = player_names(game.max_players)
    players = [{"name": n, "email": f"{n}@example.org", "key": "k"} for n in names]
    setup_model(game).model_validate(
        {"game": game.name, "id": "x", "players": players}, strict=True
    )
    problems = game.check_players(players[: game.min_players])
    need(problems == [], f"{game.name}: check_players refuses entries without its keys: {problems}")
    check_player_fits(game)


def check_player_fits(game: Game) -> None:
    """A game's plain check of a player entry's own keys (optional: ``player_fits``) says they
    fit only when the model takes them as they are: no problem, and the values given back (None
    left out) the values given."""
    fits = getattr(game, "player_fits", None)
    if fits is None:
        return
    model = game.player_model()
    odd: list[Any] = [None, "x", "", 1, 0, True, 1.5, 2**70, [], ["x"], {}, {"x": None}]
    keys = list(model.model_fields)
    samples = [
        {},
        {"no_such_key": 1},
        *({key: value} for key in keys for value in odd),
        *({key: value for key in keys} for value in odd),  # every key at once
    ]
    for own in samples:
        if not fits(clone(own)):
            continue
        what = f"{game.name}: player_fits({own!r}) says it fits"
        problems = _schema(model, own)
        need(not problems, f"{what}, yet the schema finds {problems}")
        taken = model.model_validate(own, strict=True).model_dump(exclude_none=True)
        given = {k: v for k, v in own.items() if v is not None}
        # repr tells 1 from 1.0 and True, which == does not
        need(repr(taken) == repr(given), f"{what}, yet the schema takes it as {taken!r}")


def check_options(game: Game) -> None:
    """Defaults with nothing given; the engine's options left to the engine; an unknown option
    refused in words; the effective options, given back, taken as they are."""
    from adjudicator.rules.options import ENGINE_OPTIONS, NUMBER_OPTIONS

    names = player_names(game.min_players)
    effective, problems = game.options(names, {})
    need(problems == [], f"{game.name}: options(players, {{}}) finds problems: {problems}")
    need(isinstance(effective, dict), f"{game.name}: options() gives no dict of options")
    plain(effective, f"{game.name}: the options")
    engine = sorted(set(effective) & {*ENGINE_OPTIONS, *NUMBER_OPTIONS})
    need(not engine, f"{game.name}: options {engine} are the engine's; the game never sees them")
    again, problems = game.options(names, effective)
    need(problems == [] and again == effective, f"{game.name}: its own options given back change")
    _, problems = game.options(names, {"no_such_option": 1})
    need(problems, f"{game.name}: an unknown option is taken without a word")
    for problem in problems:
        said(game, problem, f"{game.name}: an unknown option's problem")


def check_templates(game: Game) -> None:
    """The report templates in the game's folder, each compiling; the texts readable; a
    compiled catalog beside each translation, for a language the adjudicator speaks; the rules
    summary (``rules/en.md``, and ``rules/<lang>.md`` only for a language the adjudicator
    speaks)."""
    import yaml

    from adjudicator.present.catalogs import common_folder
    from adjudicator.present.reports import report_environment
    from adjudicator.present.words import common_texts, read_texts

    folder = game.templates()
    need(folder.is_dir(), f"{game.name}: templates() is no folder: {folder}")
    missing = [t for t in TEMPLATES if not (folder / t).is_file()]
    need(not missing, f"{game.name}: templates missing from {folder}: {missing}")
    env = report_environment(game)
    for item in folder.iterdir():
        if item.name.endswith(".j2"):
            env.get_template(item.name)
    try:
        codes = set(read_texts(folder / "texts"))
    except ValueError as error:
        raise ContractBroken(f"{game.name}: texts: {error}") from None
    words = common_folder() / "texts" / "game-words.yaml"  # what a game may word its own way
    taken = sorted(codes & set(common_texts()) - set(yaml.safe_load(words.read_text("utf-8"))))
    need(not taken, f"{game.name}: texts: the adjudicator's own codes {taken}")
    locale = folder / "locale"
    if locale.is_dir():
        for lang in locale.iterdir():
            if not lang.is_dir():
                continue
            need(lang.name in LANGUAGES, f"{game.name}: locale/{lang.name}: not one of {LANGUAGES}")
            messages = lang / "LC_MESSAGES"
            if (messages / "messages.po").is_file():
                compiled = (messages / "messages.mo").is_file()
                need(compiled, f"{game.name}: locale/{lang.name}: messages.po without messages.mo")
    check_rules_summary(game)


def check_rules_summary(game: Game) -> None:
    """The game's rules summary for players: ``rules/en.md`` in its templates folder, not
    empty, and beside it a file only for a language the adjudicator speaks."""
    from adjudicator.present.rules_summary import FOLDER, summary_of

    rules = game.templates() / FOLDER
    english = rules / "en.md"
    need(english.is_file(), f"{game.name}: no rules summary {FOLDER}/en.md in its templates")
    need(english.read_text("utf-8").strip(), f"{game.name}: {FOLDER}/en.md is empty")
    for item in rules.iterdir():
        lang = item.name.removesuffix(".md")
        need(
            item.name.endswith(".md") and lang in LANGUAGES,
            f"{game.name}: {FOLDER}/{item.name}: not <lang>.md for one of {LANGUAGES}",
        )
        need(summary_of(game, lang) == item.read_text("utf-8"), f"{game.name}: {item.name}")


# -- a playthrough --------------------------------------------------------------------------------
def play(
    game: Game,
    players: int,
    seed: int,
    *,
    missing: Missing | None = None,
    other_world: OtherWorld | None = None,
    probe: bool = True,
    invariant: Callable[[State], None] | None = None,
    seen: Seen | None = None,
    max_turns: int = MAX_TURNS,
) -> State:
    """A game of ``players`` seats played to its end by the game's bots from ``seed``, each
    turn checked; the final state. ``missing`` says which orders are not sent; ``probe``: try
    wrong orders too; ``invariant(state)``: a check of the game's own, each turn."""
    seen = seen if seen is not None else Seen()
    names = player_names(players)
    options, problems = game.options(names, {})
    need(problems == [], f"{game.name}: options(players, {{}}) finds problems: {problems}")
    rng = Rng(seed)
    state = game.setup(entries(names), options, rng)
    need(isinstance(state, dict) and state.get("turn") == 1, f"{game.name}: setup's turn is not 1")
    for _ in range(max_turns):
        turn = state["turn"]
        where = f"{game.name}, {players} players, seed {seed}, turn {turn}"
        plain(state, f"{where}: the state")
        if invariant is not None:
            invariant(state)
        over = game.is_over(state)
        owed = game.owed(state)
        check_views(game, state, names, where)
        check_record(game, state, over, where)
        if over:
            need(owed == {}, f"{where}: the game is over, yet owed names {sorted(owed)}")
            return state
        need(owed, f"{where}: the game runs, yet owed names nobody")
        if other_world is not None:
            check_hidden(game, state, names, other_world, seen, where)
        orders: dict[str, Order | None] = {}
        for player, to_do in owed.items():
            need(player in names and isinstance(to_do, str), f"{where}: owed {player!r}: {to_do!r}")
            view = game.view(state, player)
            context = game.context(view)
            plain(context, f"{where}: {player}'s context")
            problems = _schema(game.context_model(), context)
            need(
                not problems,
                f"{where}: {player}'s context does not fit context_model(): {problems}",
            )
            if probe:
                for wrong in wrong_orders(context):
                    check_fits(game, "context_fits", wrong, f"{where}: {player}'s wrong context")
            order = game.bot(view, rng.stream(f"bot {player} turn {turn}"))
            check_valid(game, context, player, turn, order, f"{where}: {player}'s bot order")
            normal = game.normalise(clone(order))
            check_valid(
                game, context, player, turn, normal, f"{where}: {player}'s normalised order"
            )
            need(game.normalise(clone(normal)) == normal, f"{where}: normalise twice differs")
            if probe:
                check_wrong_orders(game, context, player, turn, order, seen, where)
            forfeit = getattr(game, "forfeit_order", None)
            if forfeit is not None:  # optional: a sealed seat that did not reveal plays it
                given = forfeit(clone(view))
                plain(given, f"{where}: {player}'s forfeit order")
                check_valid(
                    game, context, player, turn, given, f"{where}: {player}'s forfeit order"
                )
            orders[player] = None if missing is not None and missing(turn, player) else normal
        state = check_resolve(game, state, orders, rng, where)
    raise ContractBroken(
        f"{game.name}, {players} players, seed {seed}: no end in {max_turns} turns"
    )


def plain(value: Any, what: str) -> None:
    """``value`` is plain data that comes back from JSON as it was."""
    try:
        again = json.loads(json.dumps(value))
    except (TypeError, ValueError) as error:
        raise ContractBroken(f"{what} is not plain JSON data: {error}") from None
    same(value, again, f"{what} changes through JSON")


def same(one: Any, other: Any, what: str) -> None:
    """Raise :class:`ContractBroken` with ``what`` and where the two differ, unless equal."""
    if one != other:
        raise ContractBroken(f"{what}, at {difference(one, other)}")


def difference(one: Any, other: Any, path: str = "") -> str:
    """Where two values first differ, as a path (``.hands.alice[2]``)."""
    if isinstance(one, dict) and isinstance(other, dict) and type(one) is type(other):
        for key in sorted(set(one) | set(other), key=str):
            if key not in one or key not in other or one[key] != other[key]:
                if key in one and key in other:
                    return difference(one[key], other[key], f"{path}.{key}")
                return f"{path}.{key}"
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        for index, (a, b) in enumerate(zip(one, other, strict=True)):
            if a != b:
                return difference(a, b, f"{path}[{index}]")
    return f"{path or 'the top'} ({one!r} / {other!r})"[:300]


def check_views(game: Game, state: State, names: list[str], where: str) -> None:
    """Each player's, the spectators' and the game master's view: plain data with the keys every
    view holds, saying what ``owed`` and ``is_over`` say; the spectators see nothing that a
    player does not; no view changes the state; a stranger's view is refused."""
    before = clone(state)
    owed = game.owed(state)
    over = game.is_over(state)
    public = game.view(state, None)
    readers: list[tuple[str, Any]] = [(n, game.view(state, n)) for n in names]
    readers += [("spectators", public), ("gm", game.gm_view(state))]
    for reader, view in readers:
        what = f"{where}: the {reader} view"
        need(isinstance(view, dict), f"{what} is no dict")
        plain(view, what)
        absent = [k for k in VIEW_KEYS if k not in view]
        need(not absent, f"{what} has no {absent} (every view holds {VIEW_KEYS})")
        taken = [k for k in ("id", "chain_head") if k in view]
        need(not taken, f"{what} holds {taken}: view --json puts the game's own there")
        need(view.get("game", game.name) == game.name, f"{what}: game is not {game.name!r}")
        player = reader if reader in names else None
        need(view["player"] == player, f"{what}: player is {view['player']!r}, not {player!r}")
        to_do = owed.get(player) if player is not None else None
        need(view["to_do"] == to_do, f"{what}: to_do is {view['to_do']!r}, owed says {to_do!r}")
        need(view["turn"] == state["turn"], f"{what}: turn {view['turn']!r}, not {state['turn']}")
        need(view["over"] is over, f"{what}: over {view['over']!r}, is_over says {over}")
    shown = {k: v for k, v in public.items() if k not in ("player", "to_do")}
    for reader, view in readers[: len(names)]:
        extra = more_than(shown, view)
        need(extra is None, f"{where}: the spectators see {extra}, which {reader} does not")
    same(before, state, f"{where}: a view changed the state")
    try:
        game.view(state, "nobody-of-this-game")
    except ValueError:
        pass
    else:
        raise ContractBroken(f"{where}: the view of a name that is no player's is not refused")


def more_than(public: Any, private: Any, path: str = "") -> str | None:
    """Where ``public`` shows what ``private`` does not: None in ``public`` hides anything, and
    a shorter list is matched in order against the longer one (a player's own events)."""
    if public is None or public == private:
        return None
    if isinstance(public, dict) and isinstance(private, dict):
        for key, value in public.items():
            if key not in private:
                return f"{path}.{key}"
            found = more_than(value, private[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(public, list) and isinstance(private, list):
        if len(public) == len(private):
            for index, (a, b) in enumerate(zip(public, private, strict=True)):
                found = more_than(a, b, f"{path}[{index}]")
                if found is not None:
                    return found
            return None
        rest = iter(private)
        for index, item in enumerate(public):
            if not any(more_than(item, other) is None for other in rest):
                return f"{path}[{index}] ({item!r})"[:300]
        return None
    return f"{path or 'the view'} ({public!r})"[:300]


def check_hidden(
    game: Game, state: State, names: list[str], other_world: OtherWorld, seen: Seen, where: str
) -> None:
    """Each reader's view is the same in the other world, which differs only in what that
    reader may not see."""
    for reader in [*names, None]:
        other = other_world(clone(state), reader)
        if other != state:
            seen.hidden += 1
        mine, theirs = game.view(state, reader), game.view(other, reader)
        same(mine, theirs, f"{where}: the {reader or 'spectators'} view shows what it may not see")


def check_valid(
    game: Game, context: Mapping[str, Any], player: str, turn: int, order: Any, what: str
) -> None:
    """A valid order: plain data, fitting the order model with its envelope, no problem from
    ``validate``; its notes (optional) have words."""
    need(isinstance(order, dict), f"{what} is no dict: {order!r}")
    plain(order, what)
    clash = [k for k in ENVELOPE if k in order]
    need(not clash, f"{what} holds {clash}: the envelope is the engine's")
    problems = _schema(
        game.order_model(), {"id": "contract", "player": player, "turn": turn, **order}
    )
    need(not problems, f"{what} does not fit order_model(): {problems} ({order})")
    problems = game.validate(clone(context), clone(order))
    need(problems == [], f"{what} is refused by validate: {problems} ({order})")
    notes = getattr(game, "notes", None)
    if notes is not None:
        for note in notes(clone(context), clone(order)):
            said(game, note, f"{what}: a note")


def check_wrong_orders(
    game: Game,
    context: Mapping[str, Any],
    player: str,
    turn: int,
    order: Order,
    seen: Seen,
    where: str,
) -> None:
    """The bot's order with one value changed at a time, checked as the engine checks an
    order file: the order model first, then ``validate``; every problem has words."""
    for wrong in wrong_orders(order):
        seen.tried += 1
        what = f"{where}: {player}'s wrong order {wrong}"
        whole = {"id": "contract", "player": player, "turn": turn, **wrong}
        schema = _schema(game.order_model(), whole)
        check_fits(game, "order_fits", whole, what)
        try:
            found = game.validate(clone(context), wrong)
        except UNTYPED as error:
            need(schema, f"{what}: validate raised {error!r} on an order that fits order_model()")
            found = []
        need(isinstance(found, list), f"{what}: validate gives no list")
        for problem in [*schema, *found]:
            said(game, problem, what)
        if schema or found:
            seen.refused += 1


def check_fits(game: Game, kind: str, data: Any, what: str) -> None:
    """A game's plain check of an order file or a form's context against its schema (optional:
    ``order_fits``, ``context_fits``) says it fits only when the schema finds nothing."""
    fits = getattr(game, kind, None)
    if fits is None or not fits(clone(data)):
        return
    model = game.order_model() if kind == "order_fits" else game.context_model()
    problems = _schema(model, data)
    need(not problems, f"{what}: {kind} says it fits, yet the schema finds {problems}")


def wrong_orders(order: Order, most: int = 24) -> Iterator[Order]:
    """``order`` with one value changed (a number far off, a word unheard of, a list emptied),
    at most ``most`` of them, then an empty order."""
    count = 0
    for path, value in leaves(order):
        for wrong in wrong_values(value):
            if count == most:
                break
            count += 1
            yield replaced(order, path, wrong)
    yield {}


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every value in ``value`` by its path, lists too (not the top)."""
    if path:
        yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))


def wrong_values(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1000, -1 - value]
    if isinstance(value, str):
        return [f"{value}-unheard-of"]
    if isinstance(value, list) and value:
        return [[]]
    return []


def replaced(order: Order, path: tuple[Any, ...], value: Any) -> Order:
    changed = clone(order)
    place: Any = changed
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value
    return changed


def check_resolve(
    game: Game, state: State, orders: dict[str, Order | None], rng: Rng, where: str
) -> State:
    """``resolve`` leaves its input alone, advances the turn by one, gives plain events each
    with a ``type``, and announces each default order; the next state as the engine reads it
    back from JSON."""
    before, sent = clone(state), clone(orders)
    resolution = game.resolve(state, orders, rng)
    need(isinstance(resolution, Resolution), f"{where}: resolve gives no Resolution")
    same(before, state, f"{where}: resolve changed its input")
    same(sent, orders, f"{where}: resolve changed the orders")
    new = resolution.state
    need(
        isinstance(new, dict) and new.get("turn") == state["turn"] + 1,
        f"{where}: resolve's turn is not {state['turn'] + 1}",
    )
    events = resolution.events
    plain(events, f"{where}: the events")
    need(isinstance(events, list), f"{where}: the events are no list")
    for event in events:
        need(
            isinstance(event, dict) and isinstance(event.get("type"), str),
            f"{where}: event {event!r} has no type",
        )
    for player, order in orders.items():
        announced = any(e["type"] == "default" and e.get("player") == player for e in events)
        need(order is not None or announced, f"{where}: {player}'s default order is not announced")
    plain(new, f"{where}: the state resolve made")
    state_again: State = json.loads(json.dumps(new))
    return state_again


def check_record(game: Game, state: State, complete: bool, where: str) -> None:
    """The game's part of the record: plain data, none of the engine's keys, ``rounds`` a list
    of mappings and ``result`` a mapping (or null) when there are; it reads as ``log`` says it."""
    from adjudicator.present.record_text import record_text

    record = game.record(state, complete)
    what = f"{where}: record(state, {complete})"
    need(isinstance(record, dict), f"{what} is no dict")
    plain(record, what)
    clash = sorted(set(record) & RECORD_KEYS)
    need(not clash, f"{what} holds {clash}: keys the engine writes")
    rounds = record.get("rounds", [])
    need(isinstance(rounds, list) and all(isinstance(r, dict) for r in rounds), f"{what}: rounds")
    result = record.get("result")
    need(result is None or isinstance(result, dict), f"{what}: result is no mapping")
    players = list(state.get("players") or [])
    head = {"game": game.name, "id": "contract", "players": players, "options": {}}
    record_text({**head, "over": complete, **record}, game.title)


def said(game: Game, problem: Problem, what: str) -> None:
    """``problem`` in words in every language the adjudicator speaks."""
    from adjudicator.present.words import MissingText, say

    need(isinstance(problem, Problem), f"{what}: {problem!r} is no Problem")
    for lang in LANGUAGES:
        try:
            say(problem.msg, game, lang)
        except MissingText:
            folder = game.templates() / "texts"
            raise ContractBroken(
                f"{what}: the code {problem.msg.code!r} has no words: give it its English text "
                f"in {folder}/*.yaml"
            ) from None
        except (KeyError, IndexError, ValueError) as error:
            raise ContractBroken(f"{what}: {problem.msg.code!r} in {lang}: {error!r}") from None


def _schema(model: Any, data: Any) -> list[Problem]:
    from adjudicator.rules.problems import schema_problems

    return schema_problems(model, data)


# -- through the engine ---------------------------------------------------------------------------
def check_through_the_engine(
    game: Game,
    folder: Path,
    *,
    players: int | None = None,
    seed: int = 1,
    options: dict[str, object] | None = None,
) -> Path:
    """A whole game played by the bots as ``adjudicator demo`` plays it (keys, signed order
    files, every report), in ``folder``; every stored view rendered in every language, its
    pictures (optional) drawn; the record read as ``log`` shows it; the game archived, whole
    and public, and each archive verified. The game directory."""
    from adjudicator import demo
    from adjudicator.store.registry import game_names, load_game

    need(
        game.name in game_names(),
        f"no game named {game.name!r} is installed: install its package (pip install -e .), "
        "whose entry point in the group adjudicator.games names it",
    )
    installed = load_game(game.name)
    need(
        type(installed).__module__ == type(game).__module__,
        f"{game.name} is installed from elsewhere",
    )
    told: list[str] = []
    gamedir = demo.run(game.name, players, seed, folder / "demo", told.append, options=options)
    check_reports(gamedir)
    check_archives(gamedir, folder)
    return gamedir


def check_reports(gamedir: Path) -> None:
    """The game at ``gamedir`` in every language: the first, the last but one and the last
    turn's text reports and forms, the first and the last turn's pages (the demo wrote every
    page in English), the final table; its pictures PNG, the same bytes twice; its record."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import record, stored_view
    from adjudicator.present.html import render_page
    from adjudicator.present.pictures import drawer
    from adjudicator.present.record_text import record_text
    from adjudicator.present.reports import render_final, render_view
    from adjudicator.rules.views import readers

    handle = OpenGame(gamedir)
    game, meta = handle.game, handle.meta
    need(handle.over(), f"{game.name}: the demo game is not over")
    draw = drawer(game)
    last = handle.turn()
    for turn in sorted({1, max(1, last - 1), last}):
        for reader in readers(meta):
            doc = stored_view(handle, reader, turn)
            for lang in LANGUAGES:
                render_view(game, meta, doc, lang)  # the form inside
                if turn in (1, last) and lang != meta.get("lang", "en"):
                    render_page(game, meta, doc, lang)
            if draw is not None and turn == last:
                check_pictures(draw, doc, f"{game.name}: {reader}'s pictures, turn {turn}")
    final = stored_view(handle, "public")
    for lang in LANGUAGES:
        render_final(game, meta, final, lang)
    data = record(gamedir)
    plain(data, f"{game.name}: the record")
    record_text(data, game.title)


def check_pictures(
    draw: Callable[[Mapping[str, Any], str], dict[str, bytes]],
    doc: dict[str, Any],
    what: str,
) -> None:
    """Each picture of ``doc`` PNG bytes, the same when drawn again."""
    pictures = draw(doc, "en")
    need(isinstance(pictures, dict), f"{what}: draw gives no dict")
    for name, data in pictures.items():
        need(
            isinstance(data, bytes) and data.startswith(b"\x89PNG\r\n\x1a\n"),
            f"{what}: {name} is no PNG",
        )
    need(draw(clone(doc), "en") == pictures, f"{what}: the same view drawn twice differs")


def check_archives(gamedir: Path, folder: Path) -> None:
    """The game archived whole and public (``archive``, ``archive --public``), each archive
    verified (``verify``): every adjudication played again and agreeing."""
    from adjudicator.audit import archive, verify
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.present.audit import finding_lines

    handle = OpenGame(gamedir)
    for public in (False, True):
        path = folder / ("public.archive.json" if public else "archive.json")
        archive.write(gamedir, path, public)
        summary = verify.verify(verify.read(path))
        if summary.findings:
            lines = "\n".join(finding_lines(summary))
            raise ContractBroken(f"{handle.game.name}: verify {path.name} disagrees:\n{lines}")
        played = summary.turns
        need(
            summary.replayed and played == handle.turn() - 1,
            f"{path.name}: {played} turns replayed",
        )
