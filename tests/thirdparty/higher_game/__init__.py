"""Higher (2–3 players), a game written as a third party would write one (docs/games.md).

Each player holds the cards 1 to 5. Every turn each plays one card, face down; the highest card
that nobody else played scores a point. After ``rounds`` turns (an option, 3 by default) the most
points win. A player entry of the setup may carry a ``motto``, which every report shows.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.rules.contract import Order, Problem, Resolution, State, View
from adjudicator.rules.problems import option_problems
from adjudicator.rules.rng import Rng, Stream

CARDS = [1, 2, 3, 4, 5]


class HigherOrder(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    id: str
    player: str
    turn: int
    pick: int


class Context(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    hand: list[int]


class PlayerKeys(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    motto: str | None = None


class Options(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    rounds: int = Field(default=3, ge=1, le=5)


class HigherGame:
    name = "higher"
    title = "Higher"
    min_players = 2
    max_players = 3
    envelope_keys = ("id", "player", "turn")

    def order_model(self) -> type[HigherOrder]:
        return HigherOrder

    def context_model(self) -> type[Context]:
        return Context

    def templates(self) -> Traversable:
        return files(__name__) / "templates"

    def player_model(self) -> type[PlayerKeys]:
        return PlayerKeys

    def check_players(self, players: Sequence[Mapping[str, Any]]) -> list[tuple[int, Problem]]:
        return [
            (i, Problem("long-motto", ("motto",), most=40))
            for i, player in enumerate(players)
            if len(player.get("motto", "")) > 40
        ]

    def options(
        self, players: Sequence[str], given: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[Problem]]:
        return option_problems(Options, given, self.title)

    def setup(
        self, players: Sequence[Mapping[str, Any]], options: Mapping[str, Any], rng: Rng
    ) -> State:
        del rng  # nothing is drawn
        names = [str(p["name"]) for p in players]
        return {
            "turn": 1,
            "players": names,
            "mottos": {str(p["name"]): p["motto"] for p in players if "motto" in p},
            "rounds": int(options["rounds"]),
            "hands": {n: list(CARDS) for n in names},
            "scores": dict.fromkeys(names, 0),
            "played": [],
        }

    def owed(self, state: State) -> dict[str, str]:
        return {} if self.is_over(state) else dict.fromkeys(state["players"], "pick")

    def view(self, state: State, player: str | None) -> View:
        if player is not None and player not in state["players"]:
            raise ValueError(f"{player!r} is not a player of this game")
        view = self.gm_view(state)
        view["player"] = player
        view["to_do"] = self.owed(state).get(player) if player is not None else None
        view["hands"] = {player: view["hands"][player]} if player is not None else {}
        return view

    def gm_view(self, state: State) -> View:
        return {
            "game": self.name,
            "player": None,
            "turn": state["turn"],
            "to_do": None,
            "over": self.is_over(state),
            "players": list(state["players"]),
            "mottos": dict(state["mottos"]),
            "hands": copy.deepcopy(state["hands"]),
            "scores": dict(state["scores"]),
            "played": copy.deepcopy(state["played"]),
            "winners": winners(state) if self.is_over(state) else None,
        }

    def context(self, view: View) -> dict[str, Any]:
        return {"hand": list(view["hands"][view["player"]])}

    def validate(self, context: Mapping[str, Any], order: Order) -> list[Problem]:
        if order["pick"] in context["hand"]:
            return []
        hand = list(context["hand"])
        return [Problem("higher-not-in-hand", ("pick",), pick=order["pick"], hand=hand)]

    def normalise(self, order: Order) -> Order:
        return copy.deepcopy(order)

    def resolve(self, state: State, orders: Mapping[str, Order | None], rng: Rng) -> Resolution:
        del rng
        new = copy.deepcopy(state)
        picks, events = {}, []
        for name in new["players"]:
            order = orders.get(name)
            picks[name] = order["pick"] if order is not None else min(new["hands"][name])
            if order is None:
                events.append({"type": "default", "player": name, "pick": picks[name]})
            new["hands"][name].remove(picks[name])
        alone = [p for p in picks.values() if list(picks.values()).count(p) == 1]
        scorer = next((n for n, p in picks.items() if alone and p == max(alone)), None)
        if scorer is not None:
            new["scores"][scorer] += 1
        new["played"].append({"turn": state["turn"], "picks": picks, "scorer": scorer})
        events.append({"type": "scored", "player": scorer})
        new["turn"] = state["turn"] + 1
        return Resolution(new, events)

    def is_over(self, state: State) -> bool:
        return len(state["played"]) >= int(state["rounds"])

    def record(self, state: State, complete: bool) -> dict[str, Any]:
        over = self.is_over(state)
        return {
            "played": copy.deepcopy(state["played"]),
            "winners": winners(state) if over else None,
        }

    def bot(self, view: View, stream: Stream) -> Order:
        return {"pick": stream.choice(view["hands"][view["player"]])}


def winners(state: State) -> list[str]:
    best = max(state["scores"].values())
    return [n for n in state["players"] if state["scores"][n] == best]


GAME = HigherGame()
