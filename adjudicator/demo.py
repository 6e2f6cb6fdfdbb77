"""A whole game played by the game's bots through the real path.

Keys are generated, every order is written as a YAML file, signed, submitted and adjudicated by
the same engine functions the commands use, and every report is written. Same seed: same game.

A demo's seed is public by design: ``--seed S`` (a whole number, 0 or more) becomes the game's
seed ``f"{S:032x}"`` (S in 32 hex digits, more when S is that large), which passes the setup
file's rule for seeds; the bots draw from the same seed. A real game draws its seed from
``secrets`` and keeps it secret until the end.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from adjudicator.engine import adjudication, create, intake, open_game, queries
from adjudicator.engine.setup import MIN_SEED_DIGITS, check_options
from adjudicator.present.reports import render_final
from adjudicator.present.site import write as site_write
from adjudicator.present.site_early import Ahead
from adjudicator.present.verdict_lines import reason_lines
from adjudicator.rules import schedule, sealing, strictyaml
from adjudicator.rules.contract import Reason
from adjudicator.rules.errors import UsageProblem
from adjudicator.rules.lang import DEFAULT
from adjudicator.rules.rng import Rng
from adjudicator.signing import keys, sshsig
from adjudicator.store import clock
from adjudicator.store.registry import load_game

NAMES = ["alice", "bob", "carol", "dave", "erin"]
MAX_OPTION_BYTES = 1024
"""The longest value of ``--option KEY=VALUE`` read (an option's value is a word or a number)."""


def run(
    game_name: str,
    players: int | None,
    seed: int,
    directory: Path | None,
    echo: Callable[[str], None],
    lang: str = DEFAULT,
    options: dict[str, object] | None = None,
    site: bool = True,
) -> Path:
    """Play the demo game, every reader speaking ``lang``, with the game's ``options`` (as a
    setup file gives them), and write its static site unless ``site`` is False; returns the
    game directory."""
    game = load_game(game_name)
    count = players if players is not None else max(game.min_players, min(4, game.max_players))
    if not game.min_players <= count <= game.max_players:
        span = f"{game.min_players} to {game.max_players}"
        if game.min_players == game.max_players:
            span = str(game.min_players)
        raise UsageProblem(f"{game.title} takes {span} players, not {count}")
    if directory is not None and directory.exists() and any(directory.iterdir()):
        raise UsageProblem(f"{directory}: the demo directory must not exist or must be empty")
    if seed < 0:
        raise UsageProblem(f"--seed {seed}: a demo's seed is a whole number, 0 or more")
    names = NAMES[:count]
    _, problems = check_options(game, names, options or {})
    if problems:  # checked as a setup file's options are, before anything is written
        reasons = [Reason(p.msg) for p in problems]
        raise UsageProblem(f"--option: refused for {game.title}", reasons, game)
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix=f"adjudicator-demo-{game_name}-"))
    game_seed = demo_seed(seed)
    (directory / "keys").mkdir(parents=True, exist_ok=True)
    for name in names:
        keys.generate(directory / "keys" / name, f"{name}@demo")
    # each bot's key read from its file once, as a player's mail program keeps it loaded
    signing = {name: keys.load_private(directory / "keys" / name) for name in names}
    setup: dict[str, Any] = {
        "game": game_name,
        "id": f"demo-{game_name}-{seed}",
        "seed": _Quoted(game_seed),
        "players": [
            {"name": n, "email": f"{n}@example.org", "key_file": f"keys/{n}.pub"} for n in names
        ],
        "lang": lang,
    }
    if options:
        setup["options"] = options
    (directory / "setup.yaml").write_text(yaml.dump(setup, Dumper=_Dumper, sort_keys=False))
    gamedir = directory / "game"
    create.new(gamedir, directory / "setup.yaml")
    # the site's report pages made on another processor as the turns are played
    ahead = Ahead(gamedir) if site else None
    try:
        _play(game, gamedir, directory, setup, signing, game_name, ahead)
        return _ended(gamedir, directory, game_seed, seed, echo, lang, ahead)
    finally:
        if ahead is not None:
            ahead.close()


def _play(
    game: Any,
    gamedir: Path,
    directory: Path,
    setup: dict[str, Any],
    signing: dict[str, keys.PrivateKey],
    game_name: str,
    ahead: Ahead | None,
) -> None:
    """Play the game to its end, each bot ordering from its own view and signing with its
    key in ``signing`` (by name)."""
    bots = Rng(setup["seed"])
    while True:
        status = queries.status(gamedir)
        if ahead is not None:
            ahead.opened(status["turn"])
        if status["over"]:
            break
        turn = status["turn"]
        _table_talk(gamedir, directory, setup["id"], signing, turn, game_name)
        if turn == 1:
            _away(gamedir, directory, setup["id"], signing, game_name)
        signed = []
        reading = open_game.OpenGame(gamedir)  # the turn as its press and absences leave it
        for player in status["owed"]:
            view = queries.view_of(reading, player)
            view["to_do"] = view.pop("order", view["to_do"])  # sealed: the order it seals
            order = game.bot(view, bots.stream(f"bot {player} turn {turn}"))
            path = directory / "orders" / f"turn{turn:03d}-{player}.yaml"
            sealed = _write_signed(
                path,
                {"id": setup["id"], "player": player, "turn": turn, **order},
                signing[player],
                commit=status["phase"] == "commit",
            )
            signed.append(sealed or path)
        # the orders a turn owes in one submit, as a game master submits the files of a turn
        _submit(gamedir, signed, game_name)
        if status["phase"] == "commit":  # every commitment is in: the reveal is open
            orders = directory / "orders"
            _submit(
                gamedir, [orders / f"turn{turn:03d}-{p}.yaml" for p in status["owed"]], game_name
            )
        adjudication.adjudicate(gamedir)


def _ended(
    gamedir: Path,
    directory: Path,
    game_seed: str,
    seed: int,
    echo: Callable[[str], None],
    lang: str,
    ahead: Ahead | None,
) -> Path:
    """Print the final table and where to look, and write the site (``ahead``: its pages made
    so far; None: no site)."""
    handle = open_game.OpenGame(gamedir)
    final = queries.stored_view(handle, "public")
    # Without the lines that let a reader check the game: the salt is fresh in every game, and
    # the same seed makes the same demo (`report` shows them).
    table = render_final(handle.game, handle.meta, final, lang, checking=False)
    echo(table.rstrip("\n"))
    played = ", ".join(f"{k}={_scalar(v)}" for k, v in handle.meta["options"].items())
    echo(f"options: {played} (each as --option KEY=VALUE gives it)")
    # The last adjudication, of turn T, ended the game and wrote the final reports into the
    # next turn's folder, T+1, which no turn uses (the final table says "over after turn T").
    last = handle.turn() - 1
    echo(
        f"reports: adjudicator report {gamedir} --player NAME --turn N (turns 1 to {last}: as "
        f"each turn opened; {last + 1}: the final reports)"
    )
    echo(f"html:    adjudicator report {gamedir} --player NAME --format html (with pictures)")
    if ahead is not None:
        ahead.opened(handle.turn() + 1)  # the final reports' turn (those before it are handed)
        site_write(gamedir, directory / "site", ahead)
        echo(f"viewer:  {directory / 'site' / 'index.html'} (a static site of the whole game)")
    else:
        echo(f"viewer:  none made (--no-site); adjudicator site {gamedir} -o DIR makes it")
    echo(f"record:  adjudicator log {gamedir} (--json for the JSON)")
    echo(
        f"seed:    {game_seed} (--seed {seed} as {MIN_SEED_DIGITS} hex digits; a demo's seed is "
        "public, a real game draws its own and keeps it secret until the end)"
    )
    return gamedir


def read_options(pairs: Sequence[str]) -> dict[str, object]:
    """The options of ``demo --option KEY=VALUE`` (each given once): VALUE read as YAML, as
    strictly as a setup file reads it (``max_rounds=5``: the number 5, ``screens=false``: false,
    ``max_rounds=null``: null; an empty VALUE is refused). The game checks them in :func:`run`."""
    options: dict[str, object] = {}
    given: dict[str, str] = {}
    for pair in pairs:
        if len(pair) > MAX_OPTION_BYTES:
            raise UsageProblem(
                f"--option {pair[:40]}...: {len(pair)} characters; an option takes at most "
                f"{MAX_OPTION_BYTES}"
            )
        try:
            pair.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8 come as lone surrogates
            shown = pair.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise UsageProblem(
                f"--option {shown}: not UTF-8 text; write the option in UTF-8"
            ) from None
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise UsageProblem(
                f"--option {pair}: write KEY=VALUE, as in a setup file's options "
                "(placement=sequential, screens=false, max_rounds=5)"
            )
        if not value.strip():
            raise UsageProblem(f"--option {pair}: give a value after '=' (null for none)")
        if key in given:
            twice = f"{given[key]}, {pair}"
            raise UsageProblem(f"--option {key} is given twice ({twice}): give it once")
        try:
            loaded = strictyaml.load(value.encode("utf-8"), max_bytes=MAX_OPTION_BYTES, max_depth=2)
        except strictyaml.StrictYamlError as error:
            raise UsageProblem(
                f"--option {pair}: its value is not plain YAML",
                [Reason(problem.msg) for problem in error.problems],
            ) from None
        given[key] = pair
        options[key] = loaded.data
    return options


def _scalar(value: object) -> str:
    """An option's value as YAML writes it (``true``, ``null``, ``5``, ``sealed``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


class _Quoted(str):
    """Text written in double quotes (a seed of digits only would read as a number)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _Quoted, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", value, '"')
)

_OrderDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""How a bot's order is written: by libyaml where PyYAML has it, in a fifth of the time of
PyYAML's own emitter, which writes the same bytes for an order (plain keys, whole numbers,
words)."""


def demo_seed(seed: int) -> str:
    """The game seed of ``demo --seed S``: S in hex, at least 32 digits (public by design)."""
    return f"{seed:0{MIN_SEED_DIGITS}x}"


def _submit(gamedir: Path, paths: list[Path], game_name: str) -> None:
    verdicts = intake.submit(gamedir, paths)
    if not all(v.accepted for v in verdicts):
        problems = "; ".join(r for v in verdicts for r in reason_lines(v))
        raise RuntimeError(f"the {game_name} bot's order was refused: {problems}")


def _table_talk(
    gamedir: Path,
    directory: Path,
    game_id: str,
    signing: dict[str, keys.PrivateKey],
    turn: int,
    game_name: str,
) -> None:
    """Under a ``press`` option other than ``none``, one bot a turn (in seat order) sends press:
    to everyone under ``public``, else to the next seat. Grey press needs three players: with
    two, it would tell who wrote, and is refused."""
    names = list(signing)
    option = open_game.OpenGame(gamedir).meta["options"].get("press", "none")
    if option == "none" or (option == "grey" and len(names) < 3):
        return
    sender = names[(turn - 1) % len(names)]
    to: object = "all" if option == "public" else [names[turn % len(names)]]
    text = f"Greetings to the table in turn {turn}."  # under grey it must not name the sender
    notice: dict[str, object] = {"id": game_id, "player": sender, "press": {"to": to, "text": text}}
    path = directory / "press" / f"turn{turn:03d}-{sender}.yaml"
    _write_signed(path, notice, signing[sender])
    _submit(gamedir, [path], game_name)


AWAY = {"from": dt.date(2099, 1, 1), "to": dt.date(2099, 1, 7)}
"""The week the last seat's bot is away: fixed, so that the same seed makes the same demo, and
far ahead, so that it moves no deadline and skips no order of the game played now."""


def _away(
    gamedir: Path,
    directory: Path,
    game_id: str,
    signing: dict[str, keys.PrivateKey],
    game_name: str,
) -> None:
    """Under an ``absence`` option other than ``none`` (and days to take), the last seat's bot
    announces an absence in the first turn: every report shows it. A demo played after that
    week (``ADJUDICATOR_NOW``) announces none: an absence that has ended is refused."""
    meta = open_game.OpenGame(gamedir).meta
    options = meta["options"]
    if options.get("absence", "none") == "none" or not options.get("absence_days"):
        return
    if clock.now().astimezone(schedule.game_zone(meta)).date() > AWAY["to"]:
        return
    sender = list(signing)[-1]
    notice: dict[str, object] = {"id": game_id, "player": sender, "absence": dict(AWAY)}
    path = directory / "absence" / f"{sender}.yaml"
    _write_signed(path, notice, signing[sender])
    _submit(gamedir, [path], game_name)


def _write_signed(
    path: Path, order: dict[str, object], private: keys.PrivateKey, commit: bool = False
) -> Path | None:
    """Write the order and its signature; with ``commit`` (``sealing: commit-reveal``), salted,
    beside its signed commitment, whose path is returned."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = yaml.dump(order, Dumper=_OrderDumper, sort_keys=False, default_flow_style=None).encode()
    if commit:
        data = sealing.salted(data)
    path.write_bytes(data)
    path.with_name(path.name + ".sig").write_bytes(sshsig.sign(data, private))
    if not commit:
        return None
    promise = sealing.commitment_file(order, data)
    sealed = path.with_name(path.name + sealing.COMMIT_EXTENSION)
    sealed.write_bytes(promise + sshsig.sign(promise, private))
    return sealed
