"""A setup file, its options and its player entries are read without pydantic when they plainly
fit the schema (adjudicator/engine/setup.py ``plain_spec``, each game's ``plain_options`` and
``player_fits``): what the plain reading takes must be what the schema takes, value for value,
for setups valid or not, near-valid or junk. Readings are compared by ``repr``, which tells
``1`` from ``1.0`` and ``True`` (``==`` does not) and keeps the order of keys."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from adjudicator.engine.setup import (
    _SETUP_FITS,
    PLAYER_KEYS,
    SETUP_DEFAULTS,
    Spec,
    _spec_of,
    plain_spec,
)
from adjudicator.engine.setup_schema import PlayerSpec, SetupSpec, schema_read
from adjudicator.games.sultan import options as sultan_options
from adjudicator.games.sultan.option_models import Options as SultanOptions
from adjudicator.games.sultan.rules import DEFAULTS as SULTAN_DEFAULTS
from adjudicator.games.sultans_court import setup as court_setup
from adjudicator.games.sultans_court.option_models import Options as CourtOptions
from adjudicator.rules.problems import option_problems
from adjudicator.store.registry import load_game

ODD = st.sampled_from(
    [
        *(None, True, False, 0, 1, 2, -1, 7.0, 1.5, 2**63, float("nan"), "", "x", "en", "fr"),
        *("xx", "none", "ask", [], {}, ["x"], [None], {"a": [1]}, {None: 1}, {1.5: "x"}),
        *(datetime.date(2026, 11, 30), datetime.datetime(2026, 11, 30, 12, 0)),
    ]
)
WORDS = st.sampled_from(
    ["en", "de", "nl", "fr", "none", "ask", "first-come", "approve", "sealed", "sequential"]
)
TEXT = st.one_of(st.text(max_size=4), WORDS, st.none())
VALUE = st.one_of(ODD, TEXT, st.integers(-2, 5))
ODD_KEYS = (3, None, True, 1.5, datetime.date(2026, 1, 1))
"""Keys YAML can give that are no text."""


def shown(spec: Spec | None) -> str:
    """``spec`` as ``repr`` shows it, the keys it gave sorted (a set's order is no reading's)."""
    return repr(spec if spec is None else {**vars(spec), "given": sorted(spec.given)})


FITTING: dict[Any, st.SearchStrategy[Any]] = {
    "name": st.text(max_size=4),
    "email": st.text(max_size=4),
    "key": TEXT,
    "key_file": TEXT,
    "tz": TEXT,
    "lang": st.sampled_from(["en", "de", "nl", "fr", None]),
    "colour": TEXT,
    "seed": VALUE,
    "options": st.dictionaries(st.sampled_from(["press", "nmr", "other", *ODD_KEYS]), VALUE),
    "deadline": TEXT,
    "timezone": TEXT,
    "reminders": st.lists(st.text(max_size=3), max_size=2),
    "shares": st.sampled_from(["none", "ask"]),
    "seats": VALUE,
    "seating": st.sampled_from(["first-come", "approve", None]),
    "signup_until": TEXT,
}
"""For each key, values of the kind the schema takes (and some it refuses, where any kind
goes); any other value is drawn now and then."""


ONE_IN = {n: st.integers(0, n - 1) for n in (6, 10, 20, 30)}
"""Draws that are 0 one time in n."""
ENTRY_KEYS = st.lists(st.sampled_from([*PLAYER_KEYS, "colour", "other", *ODD_KEYS]), max_size=3)
SETUP_KEYS = st.lists(
    st.sampled_from([*SETUP_DEFAULTS, *SETUP_DEFAULTS, "other", *ODD_KEYS]), max_size=4
)
IDS = st.text(max_size=3)


def value_of(draw: st.DrawFn, key: Any) -> Any:
    if key in FITTING and draw(ONE_IN[10]) > 0:
        return draw(FITTING[key])
    return draw(VALUE)


@st.composite
def entries(draw: st.DrawFn) -> Any:
    """A player entry: mostly the keys every game reads, now and then a value or key off."""
    entry: dict[Any, Any] = {"name": value_of(draw, "name"), "email": value_of(draw, "email")}
    for key in draw(ENTRY_KEYS):
        entry[key] = value_of(draw, key)
    if draw(ONE_IN[20]) == 0:
        entry.pop(draw(st.sampled_from(["name", "email"])))
    return entry if draw(ONE_IN[30]) else draw(VALUE)


PLAYERS = st.lists(entries(), max_size=5)


@st.composite
def setups(draw: st.DrawFn) -> Any:
    """A setup as YAML would give it: the three keys it must give, some of the others, now
    and then a key unheard of, one left out, or a value of the wrong kind."""
    setup: dict[Any, Any] = {
        "game": draw(st.sampled_from(["sultan", "sultans_court"])),
        "id": draw(IDS) if draw(ONE_IN[10]) else draw(VALUE),
        "players": draw(PLAYERS) if draw(ONE_IN[10]) else draw(VALUE),
    }
    for key in draw(SETUP_KEYS):
        setup[key] = value_of(draw, key)
    if draw(ONE_IN[20]) == 0:
        setup.pop(draw(st.sampled_from(["game", "id", "players"])))
    return setup


@pytest.mark.slow  # 1,000 examples (`make quick` leaves it out)
@settings(max_examples=1000, deadline=None)
@given(data=setups())
def test_a_setup_read_plainly_is_the_setup_the_schema_reads(data: Any) -> None:
    game = load_game(data.get("game", "sultan"))
    plain = plain_spec(data, game)
    event(f"read plainly: {plain is not None}")
    if plain is None:
        return
    read, problems = schema_read(data, game)
    assert problems == []
    assert read is not None
    assert shown(plain) == shown(_spec_of(read))


def test_the_common_setups_are_read_plainly() -> None:
    """A setup as a game master writes it, a colour given or not, is read without the schema."""
    players = [{"name": n, "email": f"{n}@example.org", "key": "k"} for n in "abcd"]
    given = {"reminders": ["12h"], "timezone": "Europe/Paris", "seed": "ab" * 16}
    for name, entry in (("sultan", {}), ("sultans_court", {"colour": "red"})):
        data = {"game": name, "id": "g1", "players": [{**players[0], **entry}, *players[1:]]}
        game = load_game(name)
        for setup in (data, {**data, **given, "options": {"press": "public"}}):
            spec = plain_spec(setup, game)
            read, _ = schema_read(setup, game)
            assert spec is not None and shown(spec) == shown(_spec_of(read))


def full_setup(game: str) -> dict[str, Any]:
    """A setup of ``game`` that gives every key, each player entry too."""
    entry = {"key": "k", "key_file": None, "lang": "fr", "tz": "Europe/Paris"}
    players = [{"name": n, "email": f"{n}@example.org", **entry} for n in "abcd"]
    if game == "sultans_court":
        players[0]["colour"] = "red"
    return {
        "game": game,
        "id": "g1",
        "players": players,
        **{key: value for key, value in SETUP_DEFAULTS.items()},
        "seed": "ab" * 16,
        "options": {"press": "public"},
        "deadline": "48h",
        "timezone": "UTC",
        "reminders": ["12h"],
        "lang": "de",
        "shares": "ask",
        "seating": "approve",
        "signup_until": "7d",
    }


LEFT_TO_THE_SCHEMA = (None, True, 1, 1.5, "", "xx", [], {}, ["x"], {1: "x"}, [None])
"""Values put in place of each of a setup's values, one at a time."""


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_each_value_of_a_setup_changed_is_read_plainly_only_as_the_schema_reads_it(
    game: str,
) -> None:
    """Every value of a whole setup, and of its first player entry, changed one at a time to
    values of every kind, and a key of each added or taken out: where the plain reading takes
    the setup, the schema takes it the same; a whole setup and one without its optional keys
    are taken."""
    base = full_setup(game)
    found = load_game(game)
    changed: list[dict[str, Any]] = []
    for key in [*base, "other", 1]:
        changed += [{**base, key: value} for value in LEFT_TO_THE_SCHEMA]
        changed.append({k: v for k, v in base.items() if k != key})
    for key in [*PLAYER_KEYS, "colour", "other", None]:
        for value in LEFT_TO_THE_SCHEMA:
            entry = {**base["players"][0], key: value}
            changed.append({**base, "players": [entry, *base["players"][1:]]})
        entry = {k: v for k, v in base["players"][0].items() if k != key}
        changed.append({**base, "players": [entry, *base["players"][1:]]})
    taken = 0
    for setup in changed:
        plain = plain_spec(setup, found)
        read, problems = schema_read(setup, found)
        if plain is not None:
            taken += 1
            assert problems == [], setup
            assert shown(plain) == shown(_spec_of(read)), setup
    assert taken >= 20  # the values that fit: None for what may be left out, ...
    bare = {key: base[key] for key in ("game", "id", "players")}
    for setup in (base, bare):
        read, _ = schema_read(setup, found)
        assert shown(plain_spec(setup, found)) == shown(_spec_of(read))


def test_a_game_without_player_fits_is_read_by_the_schema() -> None:
    """Even with no player entry to read (an open game's setup may give none)."""

    class Unsure:
        def __getattr__(self, name: str) -> Any:
            if name == "player_fits":
                raise AttributeError(name)
            return getattr(load_game("sultan"), name)

    for players in ([], full_setup("sultan")["players"]):
        setup = {**full_setup("sultan"), "players": players}
        assert plain_spec(setup, Unsure()) is None  # type: ignore[arg-type]
        assert plain_spec(setup, load_game("sultan")) is not None


def test_the_plain_tables_are_the_schemas() -> None:
    assert tuple(PlayerSpec.model_fields) == PLAYER_KEYS
    assert set(SetupSpec.model_fields) == set(_SETUP_FITS)
    defaults = SetupSpec.model_validate({"game": "g", "id": "g", "players": []}).model_dump()
    assert {k: v for k, v in defaults.items() if k not in ("game", "id", "players")} == dict(
        SETUP_DEFAULTS
    )
    assert list(SULTAN_DEFAULTS.items()) == list(SultanOptions().model_dump().items())
    assert list(court_setup.DEFAULTS.items()) == list(CourtOptions().model_dump().items())


OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "placement": st.sampled_from(["sealed", "sequential"]),
    "jewel_choice": st.sampled_from(["player", "random"]),
    "screens": st.booleans(),
    "start_player": TEXT,
    "first_round_all_travel": st.booleans(),
    "banish_tie": st.sampled_from(["lower_seat_goes", "higher_seat_goes"]),
    "max_rounds": st.one_of(st.none(), st.integers(-1, 30), st.integers(2**62, 2**70)),
}
"""Each option's values of the kind its model takes (and some it refuses)."""


FIVE_IN_SIX = st.integers(0, 5)
"""Draws that are not 0 five times in six."""


@st.composite
def options_given(draw: st.DrawFn, names: st.SearchStrategy[list[Any]]) -> dict[Any, Any]:
    """Some of a game's options (``names``: lists of them), mostly at values of their kind; now
    and then another value, an option of the other game, or one unheard of."""
    given: dict[Any, Any] = {}
    for name in draw(names):
        fitting = OPTION_VALUES.get(name)
        given[name] = draw(fitting) if fitting is not None and draw(FIVE_IN_SIX) else draw(VALUE)
    return given


def option_names(defaults: dict[str, Any]) -> st.SearchStrategy[list[Any]]:
    """Lists of a game's options (``defaults``: its options at their defaults), of the other
    game's and of ones unheard of: made once for each game, since a strategy made inside a draw
    is made again for every example."""
    return st.lists(st.sampled_from([*defaults, *defaults, *OPTION_VALUES, "other", 2]), max_size=4)


GIVEN = {
    model: options_given(option_names(model().model_dump()))
    for model in (SultanOptions, CourtOptions)
}
"""Each game's options as :func:`options_given` draws them."""


@pytest.mark.slow  # 1,000 examples each (`make quick` leaves it out)
@settings(max_examples=1000, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize(
    ("plain", "model", "title"),
    [
        (sultan_options.plain_options, SultanOptions, "Sultan"),
        (court_setup.plain_options, CourtOptions, "At the Sultan's Court"),
    ],
    ids=["sultan", "sultans_court"],
)
def test_options_taken_plainly_are_the_options_the_schema_takes(
    plain: Any, model: Any, title: str, data: st.DataObject
) -> None:
    given = data.draw(GIVEN[model])
    effective = plain(given)
    event(f"read plainly: {effective is not None}")
    if effective is not None:
        taken, problems = option_problems(model, given, title)
        assert problems == []
        assert repr(effective) == repr(taken)


@settings(max_examples=300, deadline=None)
@given(own=st.dictionaries(st.sampled_from(["colour", "other", "name"]), VALUE, max_size=2))
def test_player_keys_that_fit_plainly_fit_the_schema(own: dict[str, Any]) -> None:
    for name in ("sultan", "sultans_court"):
        game = load_game(name)
        if game.player_fits(own):  # type: ignore[attr-defined]
            model = game.player_model().model_validate(own, strict=True)
            given_back = {k: v for k, v in own.items() if v is not None}
            assert repr(model.model_dump(exclude_none=True)) == repr(given_back)
