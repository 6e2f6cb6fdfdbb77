"""Reading back an order form for ``check --form``: the data it carries, checked for shape.

A form travels by mail and through the player's editor, so what it carries for checking (the
``# adjudicator-form:`` lines: game, id, player, turn and the game's context) may come back
damaged. It is refused as a whole, naming the form, the line and what is wrong, before anything
of the order is judged against it (docs/rulings.md E13).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adjudicator.rules.contract import Game, Reason, msg
from adjudicator.rules.errors import InputRefused, UsageProblem
from adjudicator.rules.formlines import FORM_MARK
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.problems import schema_problems
from adjudicator.store.readfile import FileRefused, read_regular
from adjudicator.store.registry import load_game

MAX_FORM_BYTES = 64 * 1024


def carried_payload(lines: list[str]) -> tuple[int, str] | None:
    """The first line (from 1) and the joined payload of the ``FORM_MARK`` lines, which follow
    one another; None when there is none."""
    first = next((i for i, line in enumerate(lines) if line.startswith(FORM_MARK)), None)
    if first is None:
        return None
    end = first
    while end < len(lines) and lines[end].startswith(FORM_MARK):
        end += 1
    run = lines[first:end]
    return first + 1, "".join(line[len(FORM_MARK) :] for line in run)


def read_form_file(path: Path) -> tuple[Game, dict[str, Any]]:
    """The game and the data ``path`` carries; UsageProblem when there is no such file,
    InputRefused when it is no form or what it carries is damaged."""
    try:
        raw = read_regular(path, MAX_FORM_BYTES)
    except FileRefused as error:
        if error.missing:
            raise UsageProblem(msg("form-unreadable", path=str(path), why=error.why)) from None
        raise InputRefused(msg("form-unreadable", path=str(path), why=error.why)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputRefused(f"{path}: the form is not UTF-8 text") from None
    found = carried_payload(text.splitlines())
    if found is not None:
        return _carried(path, *found)
    raise InputRefused(f"{path}: not an order form (no '{FORM_MARK.strip()}' line)")


def _carried(path: Path, line: int, payload: str) -> tuple[Game, dict[str, Any]]:
    def damaged(reasons: list[str | Reason]) -> InputRefused:
        return InputRefused(
            f"{path}: refused: line {line}: the data this order form carries for checking is "
            "damaged, so nothing was checked; get the form again",
            reasons,
        )

    try:
        data = json.loads(payload)
    except json.JSONDecodeError as error:
        raise damaged([Reason(msg("form-not-json", error=error.msg))]) from None
    except RecursionError:
        raise damaged([Reason(msg("form-nested-too-deep"))]) from None
    if _envelope_fits(data):  # the common form, told without loading the schemas
        game = _game(data["game"], damaged)
        fits = getattr(game, "context_fits", None)
        if fits is not None and fits(data["context"]):
            return game, data
    from pydantic import create_model

    from adjudicator.engine.file_models import Carried

    problems = schema_problems(Carried, data)
    if problems:
        raise damaged([Reason(p.msg) for p in problems])
    game = _game(data["game"], damaged)
    typed = create_model("CarriedContext", __base__=Carried, context=(game.context_model(), ...))
    problems = schema_problems(typed, data)
    if problems:
        raise damaged([Reason(p.msg) for p in problems])
    return game, data


def _game(name: str, damaged: Callable[[list[str | Reason]], InputRefused]) -> Game:
    try:
        return load_game(name)
    except UsageProblem as error:
        raise damaged(
            [error.message if isinstance(error.message, str) else Reason(error.message)]
        ) from None


_ENVELOPE = {"game", "id", "player", "turn", "context"}


def _envelope_fits(data: Any) -> bool:
    """True only when ``data`` fits ``file_models.Carried`` as it is, told in plain Python."""
    if type(data) is not dict or not _ENVELOPE <= data.keys() <= {*_ENVELOPE, "lang"}:
        return False
    turn, lang = data["turn"], data.get("lang", "en")
    return (
        all(type(data[key]) is str for key in ("game", "id", "player"))
        and type(turn) is int
        and turn >= 1
        and type(data["context"]) is dict
        and type(lang) is str
        and lang in LANGUAGES
    )
