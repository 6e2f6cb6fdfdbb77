"""The game contract: what every game module provides to the engine.

A game is pure rules: ``state + orders -> new state + events``. It reads no files, mail, clocks or
terminals; randomness comes from the :class:`~adjudicator.rules.rng.Rng` passed in. State, views,
orders and events are plain data (dicts, lists, str, int, bool, None) that round-trip through JSON.

The engine calls, in this order of a game's life:

- ``player_model()``: the game's own keys of a setup's player entry (such as ``colour``), beside
  those every game reads (``adjudicator.engine.setup.PLAYER_KEYS``: ``name``, ``email``,
  ``key``, ``key_file``, ``lang``, ``tz``); the setup reader refuses any other key as unknown;
- ``check_players(players)``: problems with the values of those keys (one entry, or several
  together), each path relative to that entry;
- ``options(players, given)``: the effective options (defaults filled in) and the problems found;
- ``setup(players, options, rng)``: the state as turn 1 opens (``state["turn"] == 1``);
- ``owed(state)``: who owes which order now (``{player: to_do}``), empty once the game is over;
- ``view(state, player)`` / ``view(state, None)`` (spectators) / ``gm_view(state)``: what each may
  see; the only door from the state to a report, a form or ``view --json``. Every view holds
  ``player`` (None for spectators and the game master), ``to_do`` (what ``owed`` says of that
  player, else None), ``turn`` and ``over``; a name that is no player's raises ValueError;
- ``context(view)``: the part of a player's view that checking an order needs (it travels in the
  order form, so ``check --form`` can check an order without the game directory);
  ``context_model()`` is its pydantic model, so a form whose context was damaged on the way is
  refused before ``validate`` sees it;
- ``validate(context, order)``: every problem of one order, in words that use only the context;
- ``normalise(order)``: the order written in canonical form, once it is valid;
- ``resolve(state, orders, rng)``: the next state (``turn`` one higher) and the events, each a
  mapping with a ``type``; ``orders`` holds every player ``owed`` names, and an order that is
  ``None`` is missing: the game applies its default order and announces it as an event
  ``{"type": "default", "player": ...}``. ``rng`` is the same every turn: label each stream
  with the turn;
- ``is_over(state)``; ``record(state, complete)``: the game's part of the game record,
  ``complete`` once the game is over (while it runs, only what is public);
- ``bot(view, stream)``: a legal order for the demo and the contract tests.

Six parts are optional, read with ``getattr`` (a game without them has none):

- ``notes(context, order)``: problems a valid order should hear without being refused;
- ``order_fits(order)`` and ``context_fits(context)``: True only when an order file (envelope
  included) or a form's context fits ``order_model()`` or ``context_model()`` as it is, told
  in plain Python; False whenever not sure, and the engine then asks the schema. They let a
  valid order be checked without loading pydantic (a command's start is most of its time);
- ``player_fits(own)``: True only when ``own``, the keys of a setup's player entry beyond those
  every game reads, fit ``player_model()`` as they are (the model adds no value but None, and
  takes each value as given), told in plain Python; False whenever not sure. With it a valid
  setup is read without pydantic; without it the schema reads every setup;
- ``forfeit_order(view)``: under ``sealing: commit-reveal``, the order of a seat that committed
  to an order and did not reveal it, from that player's view: a fixed order, the least useful
  the rules allow (without one, such a seat plays the default order);
- ``pictures``: the name of a module (``"raj_game.pictures"``) whose ``draw(doc, lang)`` returns
  the PNG pictures of a stored view by name, for the HTML reports; imported only when a page is
  rendered, so the rules never load it.

:mod:`adjudicator.testing` checks a game against all of this.

Every other part of a game ships with it, in its own package: its templates (``templates()``),
its entry point in the group ``adjudicator.games``. docs/games.md tells how to write one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from adjudicator.rules.rng import Rng, Stream

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable  # importing it costs a tenth of click's start

    from pydantic import BaseModel

State = dict[str, Any]
View = dict[str, Any]
Order = dict[str, Any]
Event = dict[str, Any]
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Msg:
    """Something to tell a reader, as data: a code and its parameters.

    The words come at the edge: :mod:`adjudicator.present` looks the code up in the texts of the
    game and of the adjudicator (``texts/*.yaml``) and renders it in the reader's language. A
    parameter is a plain value (str, int, bool, None), a list, or another ``Msg`` (rendered in
    turn), so that a message round-trips through JSON.
    """

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "params": {k: _to_json(v) for k, v in self.params.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Msg:
        return cls(data["code"], {k: _from_json(v) for k, v in data["params"].items()})


def msg(code: str, **params: Any) -> Msg:
    """``msg("card-not-in-hand", card=12)``: a message with keyword parameters."""
    return Msg(code, params)


def _to_json(value: Any) -> Any:
    if isinstance(value, Msg):
        return value.to_json()
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"code", "params"}:
        return Msg.from_json(value)
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


@dataclass(frozen=True, init=False)
class Problem:
    """One thing wrong with an order or a setup: a code, where it applies, and the parameters
    its words need (``Problem("card-not-in-hand", ("bid", "card"), card=12)``).

    ``path`` locates the problem in the file (mapping keys and list indices from the top), so
    the engine can name the line; ``()`` means the file as a whole.
    """

    code: str
    path: Path
    params: Mapping[str, Any]

    words: Msg | None

    def __init__(
        self, code: str, path: Path = (), /, words: Msg | None = None, **params: Any
    ) -> None:
        # written to the instance's dict (frozen: no __setattr__), in two thirds of the time of
        # object.__setattr__ field by field; an order page makes thousands of problems
        fields = self.__dict__
        fields["code"] = code
        fields["path"] = path if type(path) is tuple else tuple(path)
        fields["params"] = params
        fields["words"] = words

    @property
    def msg(self) -> Msg:
        """What the reader is told: ``words`` when given (a problem told in other words than
        its code's, such as one of a player entry named with the player), else the code's."""
        if self.words is not None:
            return self.words
        return Msg(self.code, self.params)

    def at(self, *prefix: str | int) -> Problem:
        """The same problem, its path below ``prefix`` (a problem of a part of a larger file)."""
        return Problem(self.code, (*prefix, *self.path), words=self.words, **self.params)


@dataclass(frozen=True)
class Reason:
    """A problem placed in its file: its message and, where one applies, its line (from 1) and
    column; ``0``/None where none does."""

    msg: Msg
    line: int = 0
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"msg": self.msg.to_json(), "line": self.line, "column": self.column}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reason:
        return cls(Msg.from_json(data["msg"]), data["line"], data["column"])


@dataclass
class Resolution:
    """What ``resolve`` returns: the next state and the events of the turn resolved."""

    state: State
    events: list[Event] = field(default_factory=list)


class Game(Protocol):
    # Read-only, so that plain class attributes fit (``envelope_keys = ("id", "player", "turn")``
    # is a tuple of three strings, which a settable ``tuple[str, ...]`` would not take).
    @property
    def name(self) -> str:
        """The game type: ``game:`` in a setup file, the entry point's name."""
        ...

    @property
    def title(self) -> str: ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def envelope_keys(self) -> tuple[str, ...]:
        """Always ``("id", "player", "turn")``."""
        ...

    def order_model(self) -> Any:
        """The pydantic model of a whole order file (envelope included); strict, no extra keys."""
        ...

    def templates(self) -> Traversable:
        """The folder of this game's Jinja templates, shipped in the game's own package."""
        ...

    def player_model(self) -> type[BaseModel]:
        """The pydantic model (strict, no extra keys) of the game's own keys of a setup's player
        entry; a model without fields when there are none. Every key is optional (a setup, or a
        demo, may give none), and none is one of the keys every game reads."""
        ...

    def check_players(self, players: Sequence[Mapping[str, Any]]) -> list[tuple[int, Problem]]:
        """``(index, problem)`` for each problem with the values of the game's keys of the player
        entries: each entry holds ``name``, ``email``, ``key`` and the game's keys that were
        given (a key left out or null is not in the entry; ``setup`` gets the same entries)."""
        ...

    def options(
        self, players: Sequence[str], given: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[Problem]]: ...

    def setup(
        self, players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng
    ) -> State: ...

    def owed(self, state: State) -> dict[str, str]: ...

    def view(self, state: State, player: str | None) -> View: ...

    def gm_view(self, state: State) -> View: ...

    def context(self, view: View) -> dict[str, Any]: ...

    def context_model(self) -> Any:
        """The pydantic model (strict, no extra keys) that every ``context(view)`` fits."""
        ...

    def validate(self, context: Mapping[str, Any], order: Order) -> list[Problem]: ...

    def normalise(self, order: Order) -> Order: ...

    def resolve(self, state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution: ...

    def is_over(self, state: State) -> bool: ...

    def record(self, state: State, complete: bool) -> dict[str, Any]: ...

    def bot(self, view: View, stream: Stream) -> Order: ...
