"""At the Sultan's Court's options and player keys as pydantic models: loaded only for a setup
whose options or player entries do not plainly fit them (.setup), whose problems they word."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Options(BaseModel):
    """At the Sultan's Court's options (docs/rulings.md C3, C9, C16)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    first_round_all_travel: bool = True
    banish_tie: Literal["lower_seat_goes", "higher_seat_goes"] = "lower_seat_goes"
    max_rounds: int | None = Field(default=None, ge=1)


class PlayerKeys(BaseModel):
    """The setup's player entry: ``colour`` (C1), checked by ``colour_problems``; assigned when
    left out."""

    model_config = ConfigDict(strict=True, extra="forbid")
    colour: str | None = None
