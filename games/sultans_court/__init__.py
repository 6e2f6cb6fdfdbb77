"""At the Sultan's Court (exactly 4 players): vizirs, cities, power cards, banishment.

Rules by phase: ``travel`` (turn order, travel), ``trades``, ``collect`` (cards, seat-1 demand),
``banish`` (banishment, dungeons, pardons), ``rules`` (the round). Order files in ``orders``,
views and record in ``view``, the bot in ``bots``, the deal in ``setup``. Rulings: docs/rulings.md
C1–C17, and those of this implementation listed in ``docs/rulings.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adjudicator.rules.contract import Order, Problem, Resolution, State, View
from adjudicator.rules.rng import Rng, Stream

from . import orders, rules
from .board import PARDON, POWER
from .bots import bot_order
from .view import build_view, record

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from pydantic import BaseModel


class SultansCourtGame:
    """The At the Sultan's Court game module (the engine's ``Game`` contract)."""

    name = "sultans_court"
    title = "At the Sultan's Court"
    min_players = 4
    max_players = 4
    envelope_keys = ("id", "player", "turn")
    pictures = "adjudicator.present.pictures_sultans_court"  # drawn for HTML pages only

    # The schemas (pydantic) load when they are first needed, not when a game is opened to be
    # read: .schemas and .option_models import them.
    def order_model(self) -> type[BaseModel]:
        from .schemas import CourtOrder

        return CourtOrder

    def context_model(self) -> type[BaseModel]:
        from .schemas import Context

        return Context

    def order_fits(self, order: Any) -> bool:
        """The order file fits ``order_model()``, told without loading it (optional in the
        contract; False: ask the schema)."""
        return orders.order_fits(order)

    def context_fits(self, context: Any) -> bool:
        """A form's context fits ``context_model()``, told without loading it (optional)."""
        return orders.context_fits(context)

    def templates(self) -> Traversable:
        from adjudicator.rules import shipped

        return shipped.templates() / "sultans_court"

    def player_model(self) -> type[BaseModel]:
        from .option_models import PlayerKeys

        return PlayerKeys

    def player_fits(self, own: Mapping[str, Any]) -> bool:
        """A setup's player entry's own keys fit ``player_model()``, told without loading it
        (optional in the contract; False: ask the schema)."""
        from .setup import player_fits

        return player_fits(own)

    def check_players(self, players: Sequence[Mapping[str, Any]]) -> list[tuple[int, Problem]]:
        from .setup import colour_problems

        return colour_problems(players)

    def options(
        self, players: Sequence[str], given: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[Problem]]:
        from .setup import check_options

        return check_options(players, given)

    def setup(
        self, players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng
    ) -> State:
        from .setup import setup

        return setup(players, options, rng)

    def owed(self, state: State) -> dict[str, str]:
        return rules.owed(state)

    def view(self, state: State, player: str | None) -> View:
        if player is not None and player not in state["players"]:
            raise ValueError(f"{player!r} is not a player of this game")
        return build_view(state, player)

    def gm_view(self, state: State) -> View:
        return build_view(state, None, gm=True)

    def context(self, view: View) -> dict[str, Any]:
        """``player``, ``players``, ``round``, ``to_do``, ``first_round_all_travel``, ``vizirs``,
        ``pardons``, ``held`` (the power types in the player's hand)."""
        hand = (view.get("hands") or {}).get(view.get("player")) or []
        return {
            "player": view.get("player"),
            "players": list(view.get("players") or []),
            "round": view.get("round"),
            "to_do": view.get("to_do"),
            "first_round_all_travel": bool(
                (view.get("options") or {}).get("first_round_all_travel", True)
            ),
            "vizirs": copy_vizirs(view.get("my_vizirs") or {}),
            "pardons": hand.count(PARDON),
            "held": [card for card in POWER if card in hand],
        }

    def validate(self, context: Mapping[str, Any], order: Order) -> list[Problem]:
        return orders.validate(context, order)

    def notes(self, context: Mapping[str, Any], order: Order) -> list[Problem]:
        """What a valid order should hear (optional in the contract): standing instructions
        that cannot apply as things stand."""
        return orders.notes(context, order)

    def normalise(self, order: Order) -> Order:
        return orders.normalise(order)

    def resolve(self, state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        return rules.resolve(state, orders, rng)

    def is_over(self, state: State) -> bool:
        return bool(state["over"])

    def record(self, state: State, complete: bool) -> dict[str, Any]:
        return record(state, complete)

    def bot(self, view: View, stream: Stream) -> Order:
        return bot_order(view, stream)

    def forfeit_order(self, view: View) -> Order:
        return orders.forfeit_order(self.context(view))


def copy_vizirs(vizirs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(k): dict(v) for k, v in vizirs.items()}


GAME = SultansCourtGame()

__all__ = ["GAME", "SultansCourtGame"]
