"""The setup file (YAML) that creates a game: docs/setup-file.md describes it."""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Literal

from adjudicator.rules import digests
from adjudicator.rules.contract import Game, Msg, Problem, msg
from adjudicator.rules.errors import InputRefused
from adjudicator.rules.fits import Fits, exactly, one_of, text_or_none
from adjudicator.rules.lang import DEFAULT, LANGUAGES, Lang
from adjudicator.rules.names import RESERVED_READERS
from adjudicator.rules.options import ENGINE_OPTIONS, NUMBER_OPTIONS
from adjudicator.rules.problems import describe_value, located_all
from adjudicator.rules.schedule import (
    DAILY,
    DURATION,
    PastTheCalendar,
    ScheduleError,
    deadline_after,
    duration,
    earlier,
    later,
    zone,
)
from adjudicator.rules.schedule import moment as moment_of
from adjudicator.rules.strictyaml import StrictYamlError, load
from adjudicator.signing import keys
from adjudicator.store import clock
from adjudicator.store.readfile import FileRefused, read_regular
from adjudicator.store.registry import installed, load_game

MAX_SETUP_BYTES = 256 * 1024
MAX_KEY_FILE_BYTES = 16 * 1024
"""A public key line is under 1 KiB (an RSA key of 16384 bits: about 2.8 KiB)."""
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}\Z")
NAME_SHOWN = 32
"""Characters of a name that is no name quoted back, the longest a name may be."""
GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL = re.compile(
    rf"(?!.*=\?)(?=[^@]{{1,64}}@)(?=.{{1,254}}\Z){_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})+\Z"
)
"""One mail address, as the game mails it (RFC 5321's mailbox, in ASCII): a dot-atom before the
``@``, host-name labels after it (an international domain in its ``xn--`` form), at most 254
characters. Nothing a mail header reads as more than the one address: no name part, no list, no
encoded word (``=?``), which a header would decode into line breaks, other headers or other
recipients; no character a server would refuse."""
ONE_ADDRESS = EMAIL
"""The address a stranger gives (an open game's join), held to the same rule."""
"""The setup's patterns end in ``\\Z``: ``$`` would take a value that ends in a line break."""
PRIVACY_BYTES = 16
"""The random bits of a file that holds addresses (``game.json``, a replacement's): the end of
the game reveals the seed and salt, and with them the key of every digest a public archive
shows; addresses are never revealed, and these bits keep a guess of the rest of such a file
from giving its digest. Nothing else reads them."""
SEED_BYTES = 16
"""A drawn seed: ``secrets.token_hex(16)``, 32 hex digits, 128 bits."""
MIN_SEED_DIGITS = 2 * SEED_BYTES
MAX_SEED_DIGITS = 128
HEX_SEED = re.compile(f"[0-9a-fA-F]{{{MIN_SEED_DIGITS},{MAX_SEED_DIGITS}}}")


_A_LANGUAGE: Final = one_of(*LANGUAGES)
_ENTRY_FITS: Final[Mapping[str, Fits]] = {
    "name": exactly(str),
    "email": exactly(str),
    "key": text_or_none,
    "key_file": text_or_none,
    "lang": lambda value: value is None or _A_LANGUAGE(value),
    "tz": text_or_none,
}
"""Each key of a player entry that every game reads (``setup_schema.PlayerSpec``), and its
plain check (a key left out is checked as None)."""
PLAYER_KEYS: Final = tuple(_ENTRY_FITS)
"""The keys of a player entry that every game reads; a game declares its own beside them
(``Game.player_model()``), and any other key is refused."""
SETUP_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "seed": None,
        "options": {},
        "deadline": None,
        "timezone": None,
        "reminders": [],
        "lang": DEFAULT,
        "shares": "none",
        "seats": None,
        "seating": None,
        "signup_until": None,
    }
)
"""The keys of a setup file but ``game``, ``id`` and ``players`` (which it must give), each
with the value it stands at when left out (``setup_schema.SetupSpec``)."""
_SETUP_FITS: Final[Mapping[str, Fits]] = {
    "game": exactly(str),
    "id": exactly(str),
    "seed": lambda value: True,  # any value: _seed_problems words a bad one
    "players": exactly(list),  # each entry: _plain_entry
    "options": lambda value: type(value) is dict and all(type(key) is str for key in value),
    "deadline": text_or_none,
    "timezone": text_or_none,
    "reminders": lambda value: type(value) is list and all(type(r) is str for r in value),
    "lang": _A_LANGUAGE,
    "shares": one_of("none", "ask"),
    "seats": lambda value: True,  # any value: _signup words a bad one
    "seating": lambda value: value is None or one_of("first-come", "approve")(value),
    "signup_until": text_or_none,
}
"""Each key of a setup file (``setup_schema.SetupSpec``), and its plain check."""
SIGNUP_KEYS = ("seats", "seating", "signup_until")
"""The keys only a setup that ``open`` reads takes (docs/signup.md)."""


@dataclass(frozen=True)
class Entry:
    """A player entry of a setup that fits the schema: the keys every game reads (None when
    left out) and the game's own (``own``; those given as None left out)."""

    name: str
    email: str
    key: str | None
    key_file: str | None
    lang: Lang | None
    tz: str | None
    own: dict[str, Any]


@dataclass(frozen=True)
class Spec:
    """A setup file that fits the schema: each key at its value, or where left out at its
    default; ``given``, the keys it gave."""

    game: str
    id: str
    seed: Any
    players: list[Entry]
    options: dict[str, Any]
    deadline: str | None
    timezone: str | None
    reminders: list[str]
    lang: Lang
    shares: Literal["none", "ask"]
    seats: Any
    seating: Literal["first-come", "approve"] | None
    signup_until: str | None
    given: frozenset[str]


def read_setup(path: Path, opening: bool = False) -> tuple[Game, dict[str, Any], bytes]:
    """The game and its ``game.json`` content from a setup file; InputRefused with every problem.
    ``opening``: for ``open``, a game in sign-up (docs/signup.md)."""
    try:
        raw = read_regular(path, MAX_SETUP_BYTES)
    except FileRefused as error:
        raise InputRefused(msg("setup-unreadable", path=str(path), why=error.why)) from None
    try:
        loaded = load(raw, max_bytes=MAX_SETUP_BYTES, max_depth=8)
    except StrictYamlError as error:
        raise InputRefused(f"{path}: refused", [p.reason for p in error.problems]) from None
    # A player entry's keys depend on the game: an unknown game is named once the rest is read.
    named = loaded.data.get("game") if isinstance(loaded.data, dict) else None
    known = load_game(named) if isinstance(named, str) and installed(named) else None
    spec = plain_spec(loaded.data, known) if known is not None else None
    if known is None or spec is None:  # the schema words what is wrong, if anything is
        from adjudicator.engine.setup_schema import schema_read

        read, problems = schema_read(loaded.data, known)
        if read is None:
            raise InputRefused(f"{path}: refused", located_all(problems, loaded), known)
        known = known or load_game(read.game)
        spec = _spec_of(read)
    meta, problems = _meta(spec, known, path.parent, opening)
    if problems:
        raise InputRefused(f"{path}: refused", located_all(problems, loaded), known)
    return known, meta, raw


def plain_spec(data: Any, game: Game) -> Spec | None:
    """``data``, a setup of ``game`` read from YAML, as the schema would read it when it
    plainly fits it, told without the schema (loading pydantic and building the models took
    a third of a ``new``); None whenever not sure, and the schema then tells. Types are checked
    exactly, as the strict schema has them. Each player entry's own keys (those beyond
    :data:`PLAYER_KEYS`) are the game's ``player_fits`` to tell: a game without it is read by
    the schema."""
    if type(data) is not dict or not {"game", "id", "players"} <= set(data) <= _SETUP_FITS.keys():
        return None
    if getattr(game, "player_fits", None) is None:  # even for no player: the schema is built
        return None
    values = {**SETUP_DEFAULTS, **data}
    if not all(fits(values[key]) for key, fits in _SETUP_FITS.items()):
        return None
    players = [_plain_entry(entry, game) for entry in values["players"]]
    if any(entry is None for entry in players):
        return None
    values.update(options=dict(values["options"]), reminders=list(values["reminders"]))
    values.update(players=players, given=frozenset(data))
    return Spec(**values)


def _plain_entry(entry: Any, game: Game) -> Entry | None:
    """A player entry as the schema would read it when it plainly fits; else None."""
    if type(entry) is not dict:
        return None
    if not all(fits(entry.get(key)) for key, fits in _ENTRY_FITS.items()):
        return None
    own = {key: value for key, value in entry.items() if key not in PLAYER_KEYS}
    fits = getattr(game, "player_fits", None)
    if fits is None or not fits(dict(own)):
        return None
    common: dict[str, Any] = {key: entry.get(key) for key in PLAYER_KEYS}
    return Entry(**common, own={key: value for key, value in own.items() if value is not None})


def _spec_of(read: Any) -> Spec:
    """The setup the schema read (``setup_schema.SetupSpec``) as a :class:`Spec`."""
    players = [
        Entry(
            **{key: getattr(player, key) for key in PLAYER_KEYS},
            own=player.model_dump(exclude=set(PLAYER_KEYS), exclude_none=True),
        )
        for player in read.players
    ]
    values = {key: getattr(read, key) for key in ("game", "id", *SETUP_DEFAULTS)}
    return Spec(**values, players=players, given=frozenset(read.model_fields_set))


def _meta(
    spec: Spec, game: Game, base: Path, opening: bool = False
) -> tuple[dict[str, Any], list[Problem]]:
    problems: list[Problem] = []
    if not GAME_ID.match(spec.id):
        problems.append(Problem("bad-id", ("id",)))
    count = len(spec.players)
    signup, signup_problems = _signup(spec, game) if opening else (None, [])
    problems += signup_problems
    problems += [
        Problem("signup-key-for-open", (key,), key=key)
        for key in SIGNUP_KEYS
        if not opening and key in spec.given
    ]
    if signup is None and not game.min_players <= count <= game.max_players:
        span = f"{game.min_players}–{game.max_players}"
        if game.min_players == game.max_players:
            span = str(game.min_players)
        problems.append(
            Problem("player-count", ("players",), title=game.title, span=span, count=count)
        )
    players: list[dict[str, Any]] = []
    seen_names: dict[str, str] = {}  # casefolded: as first written
    seen_keys: dict[bytes, str] = {}
    for index, spec_player in enumerate(spec.players):
        where = ("players", index)
        name = spec_player.name
        problems += player_name_problems(name, (*where, "name"))
        first = seen_names.get(name.casefold())
        if first == name:
            problems.append(Problem("duplicate-player", where, name=name))
        elif first is not None:
            problems.append(Problem("duplicate-player-case", where, name=name, first=first))
        else:
            seen_names[name.casefold()] = name
        if not EMAIL.match(spec_player.email):
            problems.append(Problem("bad-email", where, email=spec_player.email))
        key_line = _key_line(spec_player, base, where, problems)
        if key_line is not None:
            try:
                blob = keys.parse_public_line(key_line)
            except keys.KeyProblem as error:
                problems.append(Problem("bad-key", where, player=name, why=error.reason))
            else:
                if blob in seen_keys:
                    problems.append(
                        Problem("shared-key", where, player=name, other=seen_keys[blob])
                    )
                seen_keys[blob] = name
        entry = {"name": name, "email": spec_player.email, "key": key_line, **spec_player.own}
        if spec_player.tz is not None:  # a game.json of a setup without one stays as before
            if zone_ok(spec_player.tz):
                entry["tz"] = spec_player.tz
            else:
                problems.append(Problem("bad-timezone", (*where, "tz"), zone=spec_player.tz))
        players.append({**entry, "lang": spec_player.lang or spec.lang})
    problems += [
        Problem(
            p.code,
            ("players", i, *p.path),
            words=msg("of-player", player=players[i]["name"], problem=p.msg),
        )
        for i, p in game.check_players(players)
    ]
    effective, option_problems = check_options(game, [p["name"] for p in players], spec.options)
    if signup is not None:  # every number of players the game may start with
        effective, option_problems = _open_options(game, signup["seats"], spec.options)
    problems += [p.at("options") for p in option_problems]
    problems += _schedule_problems(spec)
    if "seed" in spec.given:
        problems += _seed_problems(spec.seed)
    seed = spec.seed if "seed" in spec.given else secrets.token_hex(SEED_BYTES)
    salt = digests.new_salt()
    meta = {
        "id": spec.id,
        "game": spec.game,
        "players": players,
        "options": effective,
        "seed": seed,
        "salt": salt,
        "commitment": digests.commitment(seed, salt) if not problems else None,
        "deadline": spec.deadline,
        "timezone": spec.timezone,
        "reminders": spec.reminders,
        "lang": spec.lang,
        "privacy": secrets.token_hex(PRIVACY_BYTES),
    }
    if spec.shares == "ask" or signup is not None:  # a game.json without shares stays as before
        meta["shares"] = "ask"
    if signup is not None:
        meta["signup"] = signup
    return meta, problems


def _signup(spec: Spec, game: Game) -> tuple[dict[str, Any] | None, list[Problem]]:
    """An open game's sign-up (docs/signup.md): its seats (``min``, ``max``, within the game's
    bounds), ``seating``, and ``until`` (the sign-up deadline as a UTC stamp, or None)."""
    problems: list[Problem] = []
    low, high = game.min_players, game.max_players
    seats = spec.seats
    if isinstance(seats, int) and not isinstance(seats, bool):
        low = high = seats
    elif isinstance(seats, dict) and set(seats) <= {"min", "max"}:
        low, high = seats.get("min", low), seats.get("max", high)
    elif seats is not None:
        problems.append(Problem("bad-seats", ("seats",), given=describe_value(seats)))
    bounds = [low, high]
    if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or not (
        game.min_players <= low <= high <= game.max_players
    ):
        if not problems:
            span = f"{game.min_players}–{game.max_players}"
            problems.append(Problem("seats-out-of-bounds", ("seats",), title=game.title, span=span))
        low, high = game.min_players, game.max_players
    if len(spec.players) > high:
        problems.append(Problem("seats-too-few", ("players",), count=len(spec.players), seats=high))
    until = None
    if spec.signup_until is not None:
        now = clock.now()
        text = spec.signup_until
        # a zone that is none is a problem of its own (bad-timezone): the time is read in UTC
        known = spec.timezone if spec.timezone and zone_ok(spec.timezone) else None
        try:
            moment = (
                later(now, duration(text))
                if DURATION.match(text)
                else moment_of(text, lambda: zone(known))
            )
        except PastTheCalendar:  # well formed, but past what every reader can be shown
            problems.append(Problem("signup-until-past-calendar", ("signup_until",), given=text))
        except ScheduleError:
            problems.append(Problem("bad-signup-until", ("signup_until",), given=text))
        else:
            if moment <= now:
                problems.append(Problem("signup-until-past", ("signup_until",), given=text))
            until = clock.stamp(moment)
    seating = spec.seating or "first-come"
    return {"seats": {"min": low, "max": high}, "seating": seating, "until": until}, problems


def _open_options(
    game: Game, seats: dict[str, int], given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The options of an open game, checked for every number of players it may start with:
    the first number they do not suit is the one named."""
    effective: dict[str, Any] = {}
    for count in range(seats["max"], seats["min"] - 1, -1):
        names = [f"seat{n}" for n in range(1, count + 1)]
        effective, problems = check_options(game, names, given)
        if problems:
            return effective, [
                Problem(p.code, p.path, words=msg("with-players", count=count, problem=p.msg))
                for p in problems
            ]
    return effective, []


def check_options(
    game: Game, players: Sequence[str], given: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The effective options, the game's and the engine's (``nmr``, ``sealing``, ``press``),
    defaults filled in, and every problem with those ``given``, each placed under the option's name:
    what a setup file's ``options`` and ``demo --option`` are checked by."""
    game_options = {
        k: v for k, v in given.items() if k not in ENGINE_OPTIONS and k not in NUMBER_OPTIONS
    }
    engine_options = {
        "nmr": given.get("nmr", "default"),
        "sealing": given.get("sealing", "plain"),  # games made before: plain
        "press": given.get("press", "none"),  # games made before: none
        "absence": given.get("absence", "none"),  # games made before: none
    }
    problems = [
        Problem(f"bad-{name}", (name,))
        for name, values in ENGINE_OPTIONS.items()
        if engine_options[name] not in values
    ]
    for name, (default, highest) in NUMBER_OPTIONS.items():
        value = given.get(name, default)
        engine_options[name] = value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= highest:
            given_as = describe_value(value)  # as the user wrote it: true, not Python's True
            problems.append(Problem(f"bad-{name}", (name,), given=given_as, highest=highest))
    if engine_options["press"] == "grey" and len(players) < 3:  # the other knows who wrote
        problems.append(Problem("press-grey-players", ("press",), count=len(players)))
    effective, game_problems = game.options(players, game_options)
    problems += [_with_engine_options(p) for p in game_problems]
    return {**effective, **engine_options}, problems


def _with_engine_options(problem: Problem) -> Problem:
    """An unknown option, with the engine's options named beside the game's."""
    known = problem.params.get("known")
    if problem.code != "unknown-option" or not isinstance(known, list):
        return problem
    params = {**problem.params, "known": [*known, *ENGINE_OPTIONS, *NUMBER_OPTIONS]}
    return Problem(problem.code, problem.path, words=problem.words, **params)


# The words of the reader each reserved name stands for (adjudicator.rules.names.RESERVED_READERS).
_READER_WORDS: Final = {"gm": "reader-gm", "public": "reader-public", "all": "reader-all"}


def player_name_problems(name: str, where: tuple[str | int, ...]) -> list[Problem]:
    """Why ``name`` cannot be a player's: not a name at all (quoted at most :data:`NAME_SHOWN`
    characters: a join's name is anyone's text, and its receipt may go to anyone), or one of
    :func:`name_problems`."""
    if not NAME.match(name):
        shown = name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "…"
        return [Problem("bad-name", where, name=shown)]
    return name_problems(name, where)


def name_problems(name: str, where: tuple[str | int, ...]) -> list[Problem]:
    """A name the game directory or the mail uses for another reader, or that an order file
    could not write as a plain value (docs/setup-file.md, docs/rulings.md E12)."""
    if name.casefold() in RESERVED_READERS:
        reader = msg(_READER_WORDS[name.casefold()])
        every = [repr(n) for n in sorted(RESERVED_READERS)]
        return [Problem("reserved-name", where, name=name, reader=reader, every=every)]
    if not _reads_as_text(name):
        return [Problem("name-not-text", where, name=name)]
    return []


def _seed_problems(seed: Any) -> list[Problem]:
    """A seed anyone could guess or try: anything but 32 to 128 hex digits (docs/rulings.md E16)."""
    if isinstance(seed, str) and HEX_SEED.fullmatch(seed):
        return []
    found: Msg
    if isinstance(seed, str) and re.fullmatch(r"[0-9a-fA-F]*", seed):
        found = (
            msg("seed-too-short", seed=_show(seed), digits=len(seed))
            if len(seed) < MIN_SEED_DIGITS
            else msg("seed-too-long", digits=len(seed))
        )
    elif isinstance(seed, str):
        bad = next(c for c in seed if c not in string.hexdigits)
        found = msg("seed-not-hex", seed=_show(seed), bad=bad)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        found = msg("seed-unquoted", value=describe_value(seed))
    else:
        found = describe_value(seed)
    return [Problem("bad-seed", ("seed",), low=MIN_SEED_DIGITS, high=MAX_SEED_DIGITS, found=found)]


def _show(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _reads_as_text(name: str) -> bool:
    """Whether ``player: NAME`` in an order file gives the text NAME (not ``no`` or ``null``)."""
    try:
        value = load(name.encode("utf-8")).data
    except StrictYamlError:
        return False
    return isinstance(value, str) and value == name


def _key_line(
    spec: Entry, base: Path, where: tuple[str | int, ...], problems: list[Problem]
) -> str | None:
    if (spec.key is None) == (spec.key_file is None):
        problems.append(Problem("key-or-key-file", where, player=spec.name))
        return None
    if spec.key is not None:
        return spec.key.strip()
    assert spec.key_file is not None
    try:
        return read_regular(base / spec.key_file, MAX_KEY_FILE_BYTES).decode("utf-8").strip()
    except (FileRefused, UnicodeDecodeError) as error:
        why = error.why if isinstance(error, FileRefused) else msg("not-utf8")
        problems.append(Problem("key-file", (*where, "key_file"), file=spec.key_file, why=why))
        return None


def zone_ok(name: str) -> bool:
    try:
        zone(name)
    except ScheduleError:
        return False
    return True


def _schedule_problems(spec: Spec) -> list[Problem]:
    problems: list[Problem] = []
    if spec.deadline is not None:
        daily = DAILY.match(spec.deadline)
        if not DURATION.match(spec.deadline) and not daily:
            problems.append(Problem("bad-deadline", ("deadline",)))
        elif daily and daily.group(3) and not zone_ok(daily.group(3)):
            problems.append(Problem("bad-timezone", ("deadline",), zone=daily.group(3)))
    if spec.timezone is not None and not zone_ok(spec.timezone):
        problems.append(Problem("bad-timezone", ("timezone",), zone=spec.timezone))
    for index, reminder in enumerate(spec.reminders):
        if not DURATION.match(reminder):
            problems.append(Problem("bad-reminder", ("reminders", index)))
    if not problems:
        problems += _calendar_problems(spec)
    return problems


def _calendar_problems(spec: Spec) -> list[Problem]:
    """A deadline or reminder that leads past the calendar (the year 9999, or before the year
    1) from now, when the game would start: refused before anything is created.

    Every later deadline is later than the first (or, without one, than now, where `extend`
    puts the first), so a reminder that fits before it fits before them all."""
    now = clock.now()
    first, which = now, msg("any-deadline")
    if spec.deadline is not None:
        meta = {"deadline": spec.deadline, "timezone": spec.timezone}
        try:
            first, which = deadline_after(spec.deadline, now, meta), msg("the-first-deadline")
        except PastTheCalendar:
            return [Problem("deadline-past-calendar", ("deadline",), deadline=spec.deadline)]
    problems = []
    for index, reminder in enumerate(spec.reminders):
        try:
            earlier(first, duration(reminder))
        except PastTheCalendar:
            problems.append(
                Problem(
                    "reminder-before-calendar", ("reminders", index), reminder=reminder, which=which
                )
            )
    return problems
