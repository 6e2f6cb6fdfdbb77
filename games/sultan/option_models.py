"""Sultan's options and player keys as pydantic models: loaded only for a setup whose options
or player entries do not plainly fit them (.options), whose problems they word."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Options(BaseModel):
    """Sultan's options (docs/rulings.md S4-S10)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    placement: Literal["sealed", "sequential"] = "sealed"
    jewel_choice: Literal["player", "random"] = "player"
    screens: bool = True
    start_player: str | None = None


class PlayerKeys(BaseModel):
    """Sultan reads no keys of a player entry beyond those every game reads (no colours)."""

    model_config = ConfigDict(strict=True, extra="forbid")
