"""The schemas (pydantic) of the files the engine reads besides orders: a commitment, a
notice, and what an order form carries.

They live apart from the modules that read those files so that reading a valid order never
loads pydantic: a file is checked against one of these only when it is such a file (a form's
carried data, only when it does not plainly fit).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.rules.lang import DEFAULT, Lang


class Commitment(BaseModel):
    """A commitment file: the envelope of an order and the SHA-256 of its reveal
    (:mod:`adjudicator.rules.sealing`)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str
    player: str
    turn: int
    commit: str


class Press(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    to: str | list[str]
    """``all``, or the recipients' names (another word:
    :func:`adjudicator.engine.notice_intake.press_problems` says how to write it)."""
    text: str


class Absence(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    from_: dt.date = Field(alias="from")
    to: dt.date


class NoticeFile(BaseModel):
    """A notice file (:mod:`adjudicator.engine.notices`): the envelope of an order without
    ``turn``, and one kind."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str
    player: str
    press: Press | None = None
    absence: Absence | None = None
    vote: Literal["draw", "concede", "none"] | None = None
    share: str | None = None


class Carried(BaseModel):
    """The envelope of what a form carries; ``context`` is checked by the game's own model."""

    model_config = ConfigDict(strict=True, extra="forbid")

    game: str
    id: str
    player: str
    turn: int = Field(ge=1)
    context: dict[str, Any]
    lang: Lang = DEFAULT  # the player's language: check speaks it
