"""The deal of a game that asks for the players' shares (``shares: ask``, docs/randomness.md).

``new`` makes such a game without dealing. Each player's signed share notice is taken by the
notice intake; the step that takes the last one deals: it makes the first turn's state and
views from the seed hashed from the game master's seed and every share, as ``new`` makes them
for a game without shares, and its journal line says ``dealt``.
"""

from __future__ import annotations

from typing import Any

from adjudicator.engine.open_game import OpenGame, deadline_of, game_options
from adjudicator.rules.rng import Rng
from adjudicator.store import clock


def deal_if_ready(handle: OpenGame, starts: bool = False) -> dict[str, Any]:
    """Deal when this step took the last share owed, or ``starts`` an open game whose seats
    all carry their share; what the step's line adds (``dealt``: ``turn`` 1 and its
    ``deadline``), or nothing."""
    took = starts or any(n["kind"] == "share" for n in handle.noticed)
    if not took or not handle.waiting() or handle.signing_up() or handle.owing():
        return {}
    # the files a turn opens with come from the step runner: loaded when a step deals, not
    # by every order and notice that passes here
    from adjudicator.engine.adjudication import opening_files, write_files

    game, meta = handle.game, handle.meta
    state = game.setup(meta["players"], game_options(meta), Rng(handle.play_seed()))
    deadline = deadline_of(meta, clock.now()) if not game.is_over(state) else None
    write_files(handle.dir, opening_files(game, meta, 1, state, None))
    return {"dealt": {"turn": 1, "deadline": deadline}}
