"""The setup file's schema (pydantic): loaded only for a setup that does not plainly fit it
(:func:`adjudicator.engine.setup.plain_spec`), whose problems it words."""

from __future__ import annotations

from functools import cache
from types import GenericAlias
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from adjudicator.rules.contract import Game, Problem, msg
from adjudicator.rules.lang import DEFAULT, Lang
from adjudicator.rules.problems import schema_problems


class PlayerSpec(BaseModel):
    """The keys of a player entry that every game reads; a game declares its own beside them
    (``Game.player_model()``), and any other key is refused."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str
    email: str
    key: str | None = None
    key_file: str | None = None
    lang: Lang | None = None
    tz: str | None = None


class SetupSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    game: str
    id: str
    seed: Any = None  # checked by _seed_problems: a string of 32 to 128 hex digits
    players: list[Any]  # each a PlayerSpec with the game's keys: see setup_model
    options: dict[str, Any] = Field(default_factory=dict)
    deadline: str | None = None
    timezone: str | None = None
    reminders: list[str] = Field(default_factory=list)
    lang: Lang = DEFAULT
    shares: Literal["none", "ask"] = "none"
    """``ask``: the deal waits for every player's signed share (docs/randomness.md)."""
    seats: Any = None  # an open game's (docs/signup.md): checked by _signup
    seating: Literal["first-come", "approve"] | None = None
    signup_until: str | None = None


def setup_model(game: Game) -> type[SetupSpec]:
    """The setup file's model for ``game``: each player entry takes the keys every game reads
    (``PlayerSpec``) and the game's own (``game.player_model()``), and no other."""
    return _setup_model(game.name, game.player_model())


@cache
def _setup_model(name: str, own: type[BaseModel]) -> type[SetupSpec]:
    """Built once for each game's player keys (building the two models took some 4 ms)."""
    shared = set(own.model_fields) & set(PlayerSpec.model_fields)
    if shared:
        raise ValueError(f"{name}'s player keys {sorted(shared)} are keys every game reads")
    fields: dict[str, Any] = {key: (f.annotation, f) for key, f in own.model_fields.items()}
    player = create_model("GamePlayerSpec", __base__=PlayerSpec, **fields)
    players: Any = GenericAlias(list, player)
    return create_model("GameSetupSpec", __base__=SetupSpec, players=(players, ...))


def schema_read(data: Any, known: Game | None) -> tuple[SetupSpec | None, list[Problem]]:
    """``data``, a setup read from YAML, as the schema of ``known``'s setup reads it (of any
    game's, when the game is unknown); or None and every problem the schema finds, unplaced."""
    model = setup_model(known) if known is not None else SetupSpec
    problems = schema_problems(model, data)
    if problems:
        if known is not None:
            problems = [_player_key_problem(p, known) for p in problems]
        return None, problems
    return model.model_validate(data, strict=True), []


def _player_key_problem(problem: Problem, game: Game) -> Problem:
    """An unknown key of a player entry, with the keys that entry takes for this game."""
    if problem.code != "unknown-key" or len(problem.path) != 3 or problem.path[0] != "players":
        return problem
    takes = [*PlayerSpec.model_fields, *game.player_model().model_fields]
    words = msg("unknown-player-key", problem=problem.msg, title=game.title, keys=takes)
    return Problem(problem.code, problem.path, words=words)
