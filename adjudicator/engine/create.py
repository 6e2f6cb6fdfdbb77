"""``new``: a game made from its setup file, with its first turn open and every reader's first
view."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from adjudicator.engine.adjudication import opening_files, write_files
from adjudicator.engine.open_game import OpenGame, deadline_of, game_options
from adjudicator.rules.errors import UsageProblem
from adjudicator.rules.rng import Rng
from adjudicator.store import clock, steps
from adjudicator.store.gamedir import GameDir, make_folder


def new(root: Path, setup_path: Path, opening: bool = False) -> OpenGame:
    """Create a game from a setup file and write the first reports. ``opening``: ``open``'s
    game, in sign-up (docs/signup.md): it deals, and welcomes its players, once it starts."""
    from adjudicator.engine.setup import read_setup

    game, meta, raw = read_setup(setup_path, opening)
    _make_room(root)
    asks = meta.get("shares") == "ask"  # the deal waits for the players' shares
    state = None if asks else game.setup(meta["players"], game_options(meta), Rng(meta["seed"]))
    opened = clock.now()
    deadline = deadline_of(meta, opened) if state and not game.is_over(state) else None
    make_folder(root)  # its name lasts in the folder above, as the game's files do in it
    with steps.step(root, "new") as running:
        running.strays = set()  # what a new cut short left, moved aside: named with the game
        store = running.store
        store.write_bytes("setup.yaml", raw)
        store.write_json("game.json", meta)
        if state is not None:
            write_files(store, opening_files(game, meta, 1, state, None))
        running.commit(
            "created",
            at=clock.stamp(opened),
            turn=0 if asks else 1,
            deadline=deadline,
            commitment=meta["commitment"],
            public=public_header(meta),
            # each player's welcome mail is queued by the next send (docs/mail.md)
            **({"signup": meta["signup"]} if opening else {"welcome": True}),
        )
    return OpenGame(root)


def public_header(meta: dict[str, Any]) -> dict[str, Any]:
    """What the ``created`` line says of the game for everyone (docs/archive.md): what a replay
    needs but the seed, and no address."""
    return {
        "game": meta["game"],
        "id": meta["id"],
        "players": [_public_seat(p) for p in meta["players"]],
        "options": meta["options"],
        **({"shares": "ask"} if meta.get("shares") == "ask" else {}),
        **({"signup": meta["signup"]} if "signup" in meta else {}),
    }


def _public_seat(player: dict[str, Any]) -> dict[str, Any]:
    """A seat as everyone may see it: no address, and its key without the comment, which is
    any text the player wrote (often an address: an open game's join drops it too)."""
    from adjudicator.signing import keys

    seat = {k: v for k, v in player.items() if k != "email"}
    if isinstance(seat.get("key"), str):
        seat["key"] = keys.bare(seat["key"])
    return seat


def _make_room(root: Path) -> None:
    """``root`` must not exist, be empty, or hold only what a ``new`` cut short left, which
    is moved aside to ``discarded/``."""
    if not root.exists():
        return
    if not root.is_dir():
        raise UsageProblem(f"{root}: the game directory must be a folder")
    store = GameDir(root)
    entries = [p for p in root.iterdir() if p.name != ".lock" and not steps.is_half_marker(p.name)]
    if not entries:
        return  # empty, or a new killed while it wrote its marker (the step removes that)
    marker = store.marker()
    if store.log() or marker is None or marker.get("kind") != "new":
        if store.log():  # a game: a new cut short after its line is finished, not left half
            steps.settle(root)
        raise UsageProblem(f"{root}: the game directory must not exist or must be empty")
    with store.locked():
        box = root / steps.next_discarded(root)  # after what the new itself moved aside
        box.mkdir(parents=True)
        for entry in entries:
            if entry.name not in (steps.DISCARDED, ".step"):
                os.replace(entry, box / entry.name)
        (root / ".step").unlink(missing_ok=True)
