"""The schemas (pydantic) of At the Sultan's Court: the order file and the context a form
carries. Loaded only when a file has a problem to word, a schema is printed, or a form's context
does not plainly fit (``orders.order_fits``, ``orders.context_fits``); the checks are in
``orders``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .board import POSITIONS, POWER

Kind = Literal["fat", "small", "big"]
Destination = str | int


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


Place = (
    Annotated[int, Field(ge=0, le=POSITIONS - 1)]
    | Literal["Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan"]
    | Literal["dungeon1", "dungeon2", "dungeon3", "island", "reserve"]
)


class VizirPlace(_Strict):
    place: Place
    seat: Annotated[int, Field(ge=1, le=POSITIONS)] | None


class Context(_Strict):
    """What ``validate`` needs of a player's position; it travels in the order form."""

    player: str
    players: list[str] = Field(min_length=4, max_length=4)
    round: int = Field(ge=1)
    to_do: Literal["orders"] | None
    first_round_all_travel: bool
    vizirs: dict[Kind, VizirPlace]
    # the Pardon cards in the player's hand; absent from forms made before it was carried
    pardons: int | None = Field(default=None, ge=0, le=6)
    # the power types in the player's hand; absent from forms made before it was carried
    held: list[str] | None = Field(default=None, max_length=len(POWER))


class Demand(_Strict):
    """One seat-1 demand: a power card asked of another player (C8)."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=False)
    from_: str = Field(alias="from", description="The player asked for the card.")
    card: str = Field(description="A power type: Horses, Cannons, Gold, Troops, Supplies, Ships.")


class PardonPlea(_Strict):
    """A plea for a vizir in Dungeon 2 or 3; the Pardon card goes under a city's stack (C11)."""

    vizir: str = Field(description="Your vizir: fat, small or big.")
    city: str = Field(description="The city whose stack gets the Pardon card (name or initial).")


class TradeOffer(_Strict):
    """One power card each way with another player, if their order holds the mirror (C14)."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=False)
    with_: str = Field(alias="with", description="The other player.")
    give: str = Field(description="The power type you give.")
    get: str = Field(description="The power type you get.")


class CourtOrder(_Strict):
    """An At the Sultan's Court order file: the envelope, travel, accusation, instructions."""

    model_config = ConfigDict(strict=True, extra="forbid", title="At the Sultan's Court order file")

    id: str = Field(description="The game id, as on your order form.")
    player: str = Field(description="Your player name.")
    turn: int = Field(ge=1, description="The turn (round) number printed on your order form.")
    travel: dict[Kind, Destination] | None = Field(
        default=None,
        description="A destination for each of your vizirs that can move: a city (name or "
        "initial B T S K G U I), a seat number 1-12, or stay.",
    )
    accuse: str | None = Field(
        default=None, description="The vizir you accuse, such as bob.big, or none."
    )
    kaffa: list[str] = Field(
        default_factory=list, description="Kaffa preference list: card types, best first."
    )
    demand: list[Demand] = Field(
        default_factory=list, description="Seat-1 demands, tried in order; one is carried out."
    )
    pardon: list[PardonPlea] = Field(
        default_factory=list, description="Pardons: which vizir, and the city for the card."
    )
    trades: list[TradeOffer] = Field(
        default_factory=list, description="Trade offers: one power card each way."
    )
