"""What each reader may see as a turn opens: the data every report, form and page renders.

Each turn keeps one view per reader (each player, ``public``, ``gm``) as JSON in
``turns/NNNN/views/<reader>.json``, written by the step that opens the turn. The presentation
layer renders reports and forms from these, in any format and language, whenever they are shown
or sent; nothing here is words. A stored view holds:

- ``reader``, ``turn``, ``over``;
- ``owed``: who owes an order now, in seating order;
- ``view``: the game's view for this reader (``Game.view`` / ``Game.gm_view``), the only source
  of game facts;
- for a player who owes an order: ``to_do`` and ``context`` (what ``check --form`` needs);
- once the game is over: ``orders``, every order used, by turn (the record's ``orders``);
- ``commitment``: the seed commitment (docs/archive.md), and once the game is over the ``seed``
  and ``salt`` that open it (games made before seeds were committed have neither);
- ``conceded``: the players who conceded so far (only when someone did);
- ``forfeited``: the players whose seats played the forfeit order in the turn before, having
  committed to an order and not revealed it (only when someone did);
- ``ended``: how the players' votes ended the game (:func:`adjudicator.rules.votes.ending`; only
  then): the game is over, whatever its rules say of the state, and nobody owes anything.
"""

from __future__ import annotations

from typing import Any

from adjudicator.rules.contract import Game, State

FOLDER = "views"


def readers(meta: dict[str, Any]) -> list[str]:
    """Every reader of a game: the players in seating order, then ``public`` and ``gm``."""
    return [*(p["name"] for p in meta["players"]), "public", "gm"]


def reader_view(
    game: Game,
    meta: dict[str, Any],
    state: State,
    reader: str,
    orders: dict[str, Any] | None = None,
    ended: dict[str, Any] | None = None,
    conceded: list[str] | None = None,
    forfeited: list[str] | None = None,
) -> dict[str, Any]:
    """The stored view of ``reader`` (a player's name, ``"public"`` or ``"gm"``)."""
    over = ended is not None or game.is_over(state)
    if reader == "gm":
        view = game.gm_view(state)
    elif reader == "public":
        view = game.view(state, None)
    else:
        view = game.view(state, reader)
    owed = {} if over else game.owed(state)
    seats = [p["name"] for p in meta["players"]]
    doc: dict[str, Any] = {
        "reader": reader,
        "turn": state["turn"],
        "over": over,
        "owed": sorted(owed, key=seats.index),
        "view": view,
    }
    if reader in owed:
        doc["to_do"] = owed[reader]
        doc["context"] = game.context(view)
    if over and orders is not None:
        doc["orders"] = orders
    if conceded:
        doc["conceded"] = [p for p in seats if p in conceded]
    if forfeited:
        doc["forfeited"] = [p for p in seats if p in forfeited]
    if ended is not None:
        doc["ended"] = ended
    if meta.get("commitment"):
        doc["commitment"] = meta["commitment"]
        if over:
            doc["seed"], doc["salt"] = meta["seed"], meta["salt"]
    return doc


def path(turn_dir: str, reader: str) -> str:
    return f"{turn_dir}/{FOLDER}/{reader}.json"
