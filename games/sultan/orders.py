"""Sultan's order files: the pydantic model (types, JSON Schema) and the context's model.

The checks of an order against its context are in ``checks`` (plain Python), and ``validate``
and the colour names are imported here from there as well.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from .checks import COLOUR_NAMES, ENVELOPE, ORDER_COLOURS, ORDER_KEYS, english_colour, validate

__all__ = [
    "COLOUR_NAMES",
    "ENVELOPE",
    "ORDER_COLOURS",
    "ORDER_KEYS",
    "Context",
    "Placement",
    "SultanOrder",
    "english_colour",
    "validate",
]

Colour = Literal["white", "red", "yellow", "green", "blue"]

_ANY_COLOUR_NAME = WithJsonSchema({"type": "string", "enum": sorted(COLOUR_NAMES)})


class Placement(BaseModel):
    """One money card laid on one cushion."""

    model_config = ConfigDict(strict=True, extra="forbid")

    cushion: int = Field(ge=1, description="The cushion, numbered from 1 as in your report.")
    card: int = Field(ge=1, description="The value of a money card in your hand.")


class SultanOrder(BaseModel):
    """A Sultan order file: the envelope and the one key owed this turn."""

    model_config = ConfigDict(strict=True, extra="forbid", title="Sultan order file")

    id: str = Field(description="The game id, as on your order form.")
    player: str = Field(description="Your player name.")
    turn: int = Field(ge=1, description="The turn number printed on your order form.")
    return_: Annotated[Colour, BeforeValidator(english_colour), _ANY_COLOUR_NAME] | None = Field(
        default=None,
        alias="return",
        description="Start player only: the drawn jewel that goes back into the pouch.",
    )
    bid: Placement | None = Field(
        default=None, description="One card on one cushion (3–5 players, or sequential placement)."
    )
    bids: list[Placement] | None = Field(
        default=None,
        description="Two players, sealed placement: two cards on two different cushions, "
        "in your placement order.",
    )


class Context(BaseModel):
    """What ``validate`` needs of a player's position; it travels in the order form."""

    model_config = ConfigDict(strict=True, extra="forbid")

    to_do: Literal["return", "bid", "bids"] | None
    hand: list[Annotated[int, Field(ge=1, le=15)]] = Field(max_length=24)
    cushions: int = Field(ge=2, le=3)
    drawn: list[Colour] = Field(max_length=4)
    used_cushions: list[Annotated[int, Field(ge=1, le=3)]] = Field(max_length=3)
