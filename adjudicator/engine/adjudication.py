"""Adjudication: the current turn resolved once every owed order is in (or the game master or
the clock says so), and the files a turn writes as it opens.

``submit`` only stores orders (:mod:`adjudicator.engine.intake`); only :func:`adjudicate`
resolves a turn: the orders in effect -> the game's ``resolve`` -> the next turn's state and
every reader's view -> the journal line. ``verify`` recomputes these files with the same
functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from adjudicator.engine import absences
from adjudicator.engine.open_game import OpenGame, deadline_of, now
from adjudicator.rules import views
from adjudicator.rules.contract import Game, State
from adjudicator.rules.errors import NotNow
from adjudicator.rules.rng import Rng
from adjudicator.store import clock, steps
from adjudicator.store.gamedir import GameDir, dump_json


def opening_files(
    game: Game,
    meta: dict[str, Any],
    turn: int,
    state: State,
    orders: dict[str, Any] | None,
    ended: dict[str, Any] | None = None,
    conceded: list[str] | None = None,
    forfeited: list[str] | None = None,
) -> dict[str, bytes]:
    """The files of a turn as it opens: its state and every reader's view (what their reports
    and forms are rendered from); ``orders``: every order used, by turn, once the game is over;
    ``ended``: how the players' votes ended the game; ``conceded``: who conceded so far;
    ``forfeited``: who played the forfeit order in the turn before (they committed and did not
    reveal). ``verify`` recomputes these to compare them with the journal."""
    folder = GameDir.turn_dir(turn)
    files = {f"{folder}/state.json": dump_json(state)}
    for reader in views.readers(meta):
        doc = views.reader_view(game, meta, state, reader, orders, ended, conceded, forfeited)
        files[views.path(folder, reader)] = dump_json(doc, sort_keys=False)
    return files


def resolution_file(
    turn: int,
    orders: dict[str, Any],
    defaulted: list[str],
    events: list[Any],
    forfeited: list[str] | None = None,
) -> tuple[str, bytes]:
    """The path and bytes of turn ``turn``'s resolution: the orders used, who was defaulted (and
    of them, who played the forfeit order: only when someone did), and what happened."""
    doc: dict[str, Any] = {"turn": turn, "orders": orders, "defaulted": defaulted}
    if forfeited:
        doc["forfeited"] = forfeited
    doc["events"] = events
    return f"{GameDir.turn_dir(turn)}/resolution.json", dump_json(doc)


def write_files(store: GameDir, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        store.write_bytes(rel, data)


def stored_order(handle: OpenGame, turn: int, player: str) -> dict[str, Any]:
    """The body of ``player``'s order in effect for ``turn``, normalised."""
    entry = handle.in_effect(turn)[player]
    name = entry["file"].rsplit("/", 1)[-1]
    raw = handle.dir.named(f"{handle.dir.turn_dir(turn)}/orders/{name}", handle.facts.files)
    from adjudicator.engine.orders import parse

    sealed = handle.sealing_option() == "commit-reveal"
    parsed = parse(raw, handle.game, "reveal" if sealed else "order")
    return handle.game.normalise(parsed.body())


Why = Literal["complete", "deadline", "gm", "agreed"]


"""Why a turn was adjudicated: every order was in, its deadline passed, the game master, or
the players' votes ended the game (a draw agreed, or one player left)."""


def missing_from(
    game: Game, state: State, players: list[str], received: Mapping[str, Any]
) -> list[str]:
    """The players, in seating order, who owe an order for the turn of ``state`` and have none
    in effect (``received``): their seats play the game's default orders."""
    owed = game.owed(state)
    return [p for p in players if p in owed and p not in received]


def absent_from(handle: OpenGame, turn: int, missing: list[str]) -> list[str]:
    """The players among ``missing`` (:func:`missing_from`) who are still playing: not
    resigned, conceded, away, or left out of the turn's reveal (who made no commitment)."""
    away = absences.left_out(handle)
    left_out = handle.resigned() + handle.votes().conceded + handle.without(turn) + away
    return [p for p in missing if p not in left_out]


def waited_for(handle: OpenGame, turn: int, missing: list[str]) -> list[str]:
    """The players among ``missing`` whose orders a game under ``nmr: wait`` waits for before
    it plays the turn: those still playing, unless the turn was rolled back (its orders are
    fixed, as they were the first time)."""
    if handle.meta["options"]["nmr"] != "wait" or handle.clock().rolled_back:
        return []
    return absent_from(handle, turn, missing)


def forfeits(
    game: Game, state: State, orders: dict[str, Any], committed: Mapping[str, Any]
) -> list[str]:
    """Under ``sealing: commit-reveal``: each seat that committed to an order and did not reveal
    it plays the game's forfeit order (``Game.forfeit_order``, from what the player could see),
    put into ``orders``; the players who did, in seating order. A game without a forfeit order
    plays its default order (left None)."""
    forfeit = getattr(game, "forfeit_order", None)
    if forfeit is None:
        return []
    found = [p for p, order in orders.items() if order is None and p in committed]
    for player in found:
        orders[player] = game.normalise(forfeit(game.view(state, player)))
    return found


@dataclass(frozen=True)
class Played:
    """A turn played: the state of the turn it opens, whether the game is over, and the files of
    its resolution and of the turn it opens."""

    state: State
    over: bool
    files: dict[str, bytes]


def play(
    game: Game,
    meta: dict[str, Any],
    turn: int,
    state: State,
    orders: dict[str, Any],
    missing: list[str],
    conceded: list[str],
    earlier: Callable[[], dict[str, Any]],
    forfeited: list[str] | None = None,
    seed: int | str | None = None,
) -> Played:
    """Turn ``turn`` played from ``state`` with ``orders`` (each player's order in effect,
    normalised; None: the game's default order): the game's ``resolve`` with the game's seeded
    generator, then the resolution and the next turn's state and views. The engine and ``verify``
    both play every turn through here. ``earlier``: every order used in the turns before, asked
    for only when this turn ends the game (the final views reveal them). ``seed``: the seed
    played with when it is not the game master's (``shares: ask``)."""
    resolution = game.resolve(state, orders, Rng(meta["seed"] if seed is None else seed))
    if resolution.state["turn"] != turn + 1:
        raise RuntimeError(f"{game.name}: resolve must advance the turn by one")
    over = game.is_over(resolution.state)
    everything = {**earlier(), str(turn): orders} if over else None
    files = dict([resolution_file(turn, orders, missing, resolution.events, forfeited)])
    after = opening_files(
        game, meta, turn + 1, resolution.state, everything, None, conceded, forfeited
    )
    return Played(resolution.state, over, {**files, **after})


def play_current(handle: OpenGame) -> Played:
    """The current turn played as the journal stands: each player's order in effect (a seat
    that committed and did not reveal plays its forfeit order; a seat with none, the default),
    and the concessions so far. ``adjudicate`` writes what it makes; ``verify`` compares it
    with what the journal names."""
    game, turn = handle.game, handle.turn()
    state = handle.state(turn)
    received = handle.received(turn)
    owed = game.owed(state)
    orders = {
        p: (stored_order(handle, turn, p) if p in received else None)
        for p in handle.players
        if p in owed
    }
    forfeited = forfeits(game, state, orders, handle.committed(turn))
    missing = missing_from(game, state, handle.players, received)
    conceded = handle.votes().conceded
    earlier = handle.orders_used
    seed = handle.play_seed()
    return play(game, handle.meta, turn, state, orders, missing, conceded, earlier, forfeited, seed)


def adjudicate(
    root: Path,
    default_missing: bool = False,
    why: Why = "gm",
    only_turn: int | None = None,
    still_due: Callable[[OpenGame], Why | None] | None = None,
) -> dict[str, Any]:
    """Resolve the current turn; NotNow while orders are missing (unless defaults are asked for).

    A resigned player's seat always plays the default orders; so does a missing player's in a
    turn that was rolled back (its orders are fixed, as they were the first time). With
    ``only_turn``, NotNow unless that is still the current turn (another run was quicker). With
    ``still_due`` (the clock's), why the turn is due as the game stands under the lock: NotNow
    when it is due no longer (a deadline moved, a pause, while the clock waited for the lock).
    """
    with steps.step(root, "adjudicate") as running:
        handle = OpenGame(root)
        turn = handle.turn()
        if only_turn is not None and turn != only_turn:
            raise NotNow(f"turn {only_turn} was adjudicated already (turn {turn} is open)")
        if still_due is not None:
            due = still_due(handle)
            if due is None:
                raise NotNow(f"turn {turn} is due no longer (its deadline moved, or a pause)")
            why, default_missing = due, due == "deadline"
        state = handle.state(turn)
        game = handle.game
        if handle.over():
            raise NotNow(f"game {handle.meta['id']} is over")
        ending = handle.ending()
        if ending is not None:
            _end_by_votes(handle, running, state, ending)
            return {
                "turn": turn,
                "defaulted": [],
                "over": True,
                "revealing": False,
                "ended": ending,
            }
        missing = missing_from(game, state, handle.players, handle.received(turn))
        absent = absent_from(handle, turn, missing)
        if absent and not (default_missing or handle.clock().rolled_back):
            raise NotNow(
                f"turn {turn} cannot be adjudicated: orders missing from {', '.join(absent)} "
                "(adjudicate --default-missing applies the default orders)"
            )
        if waited_for(handle, turn, missing):
            raise NotNow(
                f"turn {turn} cannot be adjudicated: orders missing from {', '.join(absent)}, "
                "and this game waits for every order (nmr: wait)"
            )
        if handle.phase(turn) == "commit":
            running.commit("revealing", reveal=absences.reveal_of(handle, turn, missing))
            return {"turn": turn, "defaulted": missing, "over": False, "revealing": True}
        played = play_current(handle)
        over = played.over
        opened = clock.now()
        deadline = None if over else deadline_of(handle.meta, opened)
        owing = list(game.owed(played.state))
        deadline = absences.opening_deadline(handle, deadline, owing)
        write_files(handle.dir, played.files)
        running.commit(
            "adjudicated",
            at=clock.stamp(opened),
            turn=turn,
            defaulted=missing,
            why=why,
            deadline=deadline,
        )
    return {"turn": turn, "defaulted": missing, "over": over, "revealing": False}


def _end_by_votes(
    handle: OpenGame, running: steps.Step, state: State, ending: dict[str, Any]
) -> None:
    """End the game at the current turn as the votes say: no order is played; the next turn's
    folder holds the state as it stood and the final views, which say how it ended."""
    turn = handle.turn()
    files = dict(ending_files(handle.game, handle.meta, state, ending, handle.orders_used()))
    write_files(handle.dir, files)
    running.commit(
        "adjudicated",
        at=now(),
        turn=turn,
        defaulted=[],
        why="agreed",
        deadline=None,
        ended=ending,
    )


def ending_files(
    game: Game,
    meta: dict[str, Any],
    state: State,
    ending: dict[str, Any],
    orders: dict[str, Any],
) -> dict[str, bytes]:
    """The files of an adjudication that ends the game by the players' votes: a resolution
    that played no order, and the state as it stood (its turn one higher) with the final
    views. ``verify`` recomputes these."""
    turn = state["turn"]
    event = {"type": "ended_by_votes", **ending}
    files = dict([resolution_file(turn, {}, [], [event])])
    after = {**state, "turn": turn + 1}
    everything = {**orders, str(turn): {}}
    files.update(opening_files(game, meta, turn + 1, after, everything, ending, ending["conceded"]))
    return files
