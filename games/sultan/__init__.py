"""Sultan (2–5 players): bid money cards for jewels on cushions over three stages.

Rules in ``rules``, order files in ``orders`` (their checks in ``checks``), views and record in
``view``, the bot in ``bots``.
Rulings: docs/rulings.md S1–S11, and these of the implementation:

- When the returned colour was drawn more than once, the earliest-drawn jewel of that colour goes
  back; the other jewels keep their draw order on cushions 1..k. A random or default return picks
  one of the drawn jewels at random (so a colour drawn twice is twice as likely) and then follows
  the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adjudicator.rules.contract import Order, Problem, Resolution, State, View
from adjudicator.rules.plain import clone
from adjudicator.rules.rng import Rng, Stream

from . import rules
from .bots import bot_order
from .checks import context_fits, english_colour, order_fits, validate
from .view import build_view, record

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from pydantic import BaseModel


class SultanGame:
    """The Sultan game module (the engine's ``Game`` contract)."""

    name = "sultan"
    title = "Sultan"
    min_players = 2
    max_players = 5
    envelope_keys = ("id", "player", "turn")
    pictures = "adjudicator.present.pictures_sultan"  # drawn for HTML pages only

    # The schemas (pydantic) load when they are first needed, not when a game is opened to be
    # read: .orders and .option_models import them.
    def order_model(self) -> type[BaseModel]:
        from .orders import SultanOrder

        return SultanOrder

    def context_model(self) -> type[BaseModel]:
        from .orders import Context

        return Context

    def order_fits(self, order: Any) -> bool:
        """The order file fits ``order_model()``, told without loading it (optional in the
        contract; False: ask the schema)."""
        return order_fits(order)

    def context_fits(self, context: Any) -> bool:
        """A form's context fits ``context_model()``, told without loading it (optional)."""
        return context_fits(context)

    def templates(self) -> Traversable:
        from adjudicator.rules import shipped

        return shipped.templates() / "sultan"

    def player_model(self) -> type[BaseModel]:
        from .option_models import PlayerKeys

        return PlayerKeys

    def player_fits(self, own: Mapping[str, Any]) -> bool:
        """A setup's player entry's own keys fit ``player_model()``, told without loading it
        (optional in the contract; False: ask the schema)."""
        from .options import player_fits

        return player_fits(own)

    def check_players(self, players: Sequence[Mapping[str, Any]]) -> list[tuple[int, Problem]]:
        del players  # no keys of its own
        return []

    def options(
        self, players: Sequence[str], given: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[Problem]]:
        from .options import check_options

        return check_options(players, given)

    def setup(
        self, players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng
    ) -> State:
        return rules.setup(players, options, rng)

    def owed(self, state: State) -> dict[str, str]:
        return rules.owed(state)

    def view(self, state: State, player: str | None) -> View:
        if player is not None and player not in state["players"]:
            raise ValueError(f"{player!r} is not a player of this game")
        return build_view(state, player)

    def gm_view(self, state: State) -> View:
        return build_view(state, None, gm=True)

    def context(self, view: View) -> dict[str, Any]:
        """The part of a player's view that ``validate`` needs; small plain JSON."""
        placements = view.get("placements") or []
        me = view.get("player")
        return {
            "to_do": view.get("to_do"),
            "hand": list(view.get("hand") or []),
            "cushions": view.get("cushions"),
            "drawn": list(view.get("drawn") or []),
            "used_cushions": [p["cushion"] for p in placements if p.get("player") == me]
            if placements
            else [],
        }

    def validate(self, context: Mapping[str, Any], order: Order) -> list[Problem]:
        return validate(context, order)

    def normalise(self, order: Order) -> Order:
        """The order with a jewel colour written in another language in English."""
        normal = clone(order)
        if "return" in normal:
            normal["return"] = english_colour(normal["return"])
        return normal

    def resolve(self, state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        return rules.resolve(state, orders, rng)

    def is_over(self, state: State) -> bool:
        return bool(state["phase"] == "over")

    def record(self, state: State, complete: bool) -> dict[str, Any]:
        return record(state, complete)

    def bot(self, view: View, stream: Stream) -> Order:
        return bot_order(view, stream)

    def forfeit_order(self, view: View) -> Order:
        return rules.forfeit_order(view)


GAME = SultanGame()

__all__ = ["GAME", "SultanGame"]
