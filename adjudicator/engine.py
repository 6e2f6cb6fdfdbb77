"""The engine: the fixed pipeline from setup and signed order files to new states and reports.

Every command that changes a game holds the game's lock. ``submit`` only stores orders; only
``adjudicate`` resolves a turn: parse -> verify signature -> check envelope -> validate -> store,
and when complete: resolve -> log -> render reports.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from adjudicator import absences, clock, journal, schedule, steps, views, votes
from adjudicator.contract import Game, State
from adjudicator.errors import NotNow, UsageProblem
from adjudicator.registry import load_game
from adjudicator.rng import Rng
from adjudicator.store import GameDir, dump_json, make_folder

if TYPE_CHECKING:
    from adjudicator import sealing


class OpenGame:
    """A game directory opened with its game module: the engine's working handle.

    It reads the journal once: everything it says (the turn, the orders in effect, the seats)
    is as the journal stood then. Within a step, the orders the step accepted so far are
    ``pending`` and count as accepted.
    """

    def __init__(self, root: Path) -> None:
        self.dir = GameDir(root)
        self.dir.require()
        self.log = self.dir.log()
        self.facts = journal.facts(self.log)
        self.meta = journal.seats(self.dir.created(), self.log, self.dir.read_json)
        self.game: Game = load_game(self.meta["game"])
        self.pending: list[dict[str, Any]] = []
        self.noticed: list[dict[str, Any]] = []
        """The notices this step accepted so far (press, absences, votes)."""
        self._notices: dict[tuple[str, str], dict[str, Any]] = {}
        """The notice files read so far, by kind and file (each is read once per opening)."""
        self.opens: dict[str, Any] | None = None
        """The reveal this step opens (``sealing: commit-reveal``), journaled with its line."""

    @property
    def players(self) -> list[str]:
        return [p["name"] for p in self.meta["players"]]

    def key_of(self, player: str) -> str:
        for p in self.meta["players"]:
            if p["name"] == player:
                key: str = p["key"]
                return key
        raise KeyError(player)

    def turn(self) -> int:
        return self.facts.turn

    def state(self, turn: int | None = None) -> State:
        return self.dir.state(self.turn() if turn is None else turn)

    def in_effect(self, turn: int) -> dict[str, dict[str, Any]]:
        """Each player's order in effect for ``turn`` (this step's orders included)."""
        orders = dict(self.facts.in_effect.get(turn, {}))
        orders.update(
            {o["player"]: o for o in self.pending if o["turn"] == turn and not o.get("kind")}
        )
        return orders

    def committed(self, turn: int) -> dict[str, dict[str, Any]]:
        """Each player's commitment in effect for ``turn`` (this step's included)."""
        commitments = dict(self.facts.committed.get(turn, {}))
        commitments.update(
            {o["player"]: o for o in self.pending if o["turn"] == turn and o.get("kind")}
        )
        return commitments

    def sealing_option(self) -> str:
        """``plain``, or ``commit-reveal`` (docs/commit-reveal.md)."""
        return str(self.meta["options"].get("sealing", "plain"))

    def phase(self, turn: int | None = None) -> sealing.Phase:
        """What ``turn`` (default: the current one) asks for now."""
        turn = self.turn() if turn is None else turn
        if self.sealing_option() != "commit-reveal":
            return "orders"
        return "reveal" if turn in self.revealing() else "commit"

    def revealing(self) -> dict[int, dict[str, Any]]:
        """The turns whose reveal has opened (this step's opening included)."""
        return {**self.facts.revealing, **({self.opens["turn"]: self.opens} if self.opens else {})}

    def received(self, turn: int) -> dict[str, dict[str, Any]]:
        """What each player sent that counts now: their commitment in the commit phase, else
        their order."""
        return self.committed(turn) if self.phase(turn) == "commit" else self.in_effect(turn)

    def without(self, turn: int) -> list[str]:
        """The players who made no commitment for ``turn`` before its reveal opened."""
        return list(self.revealing().get(turn, {}).get("without", []))

    def accepted(self) -> dict[str, int]:
        """The digest of every order accepted in this game, with its turn (for replays)."""
        return {
            **self.facts.accepted,
            **{o["digest"]: o["turn"] for o in self.pending},
            **{n["digest"]: n["turn"] for n in self.noticed},
        }

    def notices(self) -> list[dict[str, Any]]:
        """Every notice accepted, in the order they came (this step's included)."""
        return [*self.facts.notices, *self.noticed]

    def accepted_lines(self) -> dict[str, Any]:
        """What a step's journal line says it accepted: ``orders``, and ``notices`` when it
        took any (a line without notices has no such key, as lines made before them), and
        ``deadline_moved`` when an absence it took moves the current turn's deadline."""
        noticed = {"notices": self.noticed} if self.noticed else {}
        return {"orders": self.pending, **noticed, **absences.moved_now(self)}

    def resigned(self) -> list[str]:
        """The players who resigned: their seats play the default orders."""
        return [p["name"] for p in self.meta["players"] if p.get("resigned")]

    def clock(self) -> journal.Clock:
        return journal.clock(self.log, self.turn())

    def over(self) -> bool:
        """The game is over: by its rules, or because the players' votes ended it."""
        return self.facts.ended is not None or self.game.is_over(self.state())

    def notice(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The notice a journal entry names, as its player signed it (:func:`notices.stored`;
        read once per opening of the game: votes and absences are asked for again and again)."""
        key = (str(entry["kind"]), str(entry["file"]))
        if key not in self._notices:
            from adjudicator import notices  # pydantic: only for a game that has notices

            self._notices[key] = notices.stored(self.dir.root, *key)
        return self._notices[key]

    def votes(self) -> votes.Tally:
        """The players' draw votes and concessions as they stand (this step's included)."""
        found = [self.notice(n) for n in self.notices() if n["kind"] == "vote"]
        return votes.tally((d["player"], d["vote"]) for d in found)

    def ending(self) -> dict[str, Any] | None:
        """How the votes as they stand end the game at the adjudication of the current turn
        (None: they do not)."""
        if self.facts.ended is not None:
            return None
        return votes.ending(self.votes(), self.players, self.resigned(), self.turn())

    def opening(self) -> dict[str, Any]:
        """What the step's line says of the reveal it opens (nothing when it opens none)."""
        return {"reveal": self.opens} if self.opens else {}

    def require_player(self, player: str) -> None:
        if player not in self.players:
            raise UsageProblem(
                f"no player {player!r} in game {self.meta['id']} "
                f"(players: {', '.join(self.players)})"
            )


def game_options(meta: dict[str, Any]) -> dict[str, Any]:
    """The options the game module sees: the engine's own (nmr, sealing, press, absence,
    absence_days) left out."""
    from adjudicator.setupfile import ENGINE_OPTIONS, NUMBER_OPTIONS

    engine = {*ENGINE_OPTIONS, *NUMBER_OPTIONS}
    return {k: v for k, v in meta["options"].items() if k not in engine}


def now() -> str:
    return clock.stamp()


def deadline_of(meta: dict[str, Any], opened: datetime) -> str | None:
    """The deadline of a turn that opens at ``opened`` (None when the game has none)."""
    spec = meta.get("deadline")
    if not spec:
        return None
    try:
        return clock.stamp(schedule.deadline_after(spec, opened, meta))
    except schedule.PastTheCalendar:
        return None  # the setup's first deadline was checked; a later one past 9999: none


# -- new ---------------------------------------------------------------------------------------
def new(root: Path, setup_path: Path) -> OpenGame:
    """Create a game from a setup file and write the first reports."""
    from adjudicator.setupfile import read_setup

    game, meta, raw = read_setup(setup_path)
    _make_room(root)
    state = game.setup(meta["players"], game_options(meta), Rng(meta["seed"]))
    opened = clock.now()
    deadline = deadline_of(meta, opened) if not game.is_over(state) else None
    make_folder(root)  # its name lasts in the folder above, as the game's files do in it
    with steps.step(root, "new") as running:
        running.strays = set()  # what a new cut short left, moved aside: named with the game
        store = running.store
        store.write_bytes("setup.yaml", raw)
        store.write_json("game.json", meta)
        write_files(store, opening_files(game, meta, 1, state, None))
        running.commit(
            "created",
            at=clock.stamp(opened),
            turn=1,
            deadline=deadline,
            commitment=meta["commitment"],
            public=public_header(meta),
        )
    return OpenGame(root)


def public_header(meta: dict[str, Any]) -> dict[str, Any]:
    """What the ``created`` line says of the game for everyone (docs/archive.md): what a replay
    needs but the seed, and no address."""
    return {
        "game": meta["game"],
        "id": meta["id"],
        "players": [{k: v for k, v in p.items() if k != "email"} for p in meta["players"]],
        "options": meta["options"],
    }


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
        raise UsageProblem(f"{root}: the game directory must not exist or must be empty")
    with store.locked():
        box = root / steps.DISCARDED / "0001"
        box.mkdir(parents=True, exist_ok=True)
        for entry in entries:
            if entry.name not in (steps.DISCARDED, ".step"):
                os.replace(entry, box / entry.name)
        (root / ".step").unlink(missing_ok=True)


def opening_files(
    game: Game,
    meta: dict[str, Any],
    turn: int,
    state: State,
    orders: dict[str, Any] | None,
    ended: dict[str, Any] | None = None,
    conceded: list[str] | None = None,
) -> dict[str, bytes]:
    """The files of a turn as it opens: its state and every reader's view (what their reports
    and forms are rendered from); ``orders``: every order used, by turn, once the game is over;
    ``ended``: how the players' votes ended the game; ``conceded``: who conceded so far.
    ``verify`` recomputes these to compare them with the journal."""
    folder = GameDir.turn_dir(turn)
    files = {f"{folder}/state.json": dump_json(state)}
    for reader in views.readers(meta):
        doc = views.reader_view(game, meta, state, reader, orders, ended, conceded)
        files[views.path(folder, reader)] = dump_json(doc, sort_keys=False)
    return files


def resolution_file(
    turn: int, orders: dict[str, Any], defaulted: list[str], events: list[Any]
) -> tuple[str, bytes]:
    """The path and bytes of turn ``turn``'s resolution: the orders used, who was defaulted, and
    what happened."""
    doc = {"turn": turn, "orders": orders, "defaulted": defaulted, "events": events}
    return f"{GameDir.turn_dir(turn)}/resolution.json", dump_json(doc)


def write_files(store: GameDir, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        store.write_bytes(rel, data)


# -- submit and check live in adjudicator.judging ----------------------------------------------
def reveal_of(handle: OpenGame, turn: int, without: list[str]) -> dict[str, Any]:
    """The reveal of ``turn`` opening now: its deadline (counted as a turn's is) and who made
    no commitment."""
    deadline = deadline_of(handle.meta, clock.now())
    owing = [p for p in handle.players if p in handle.committed(turn) and p not in without]
    deadline = absences.opening_deadline(handle, deadline, owing)
    return {"turn": turn, "deadline": deadline, "without": without}


# -- adjudicate --------------------------------------------------------------------------------
def status(root: Path) -> dict[str, Any]:
    return status_of(OpenGame(root))


def status_of(handle: OpenGame) -> dict[str, Any]:
    """The status as ``handle`` read the journal (one reading: turn and clock agree)."""
    turn = handle.turn()
    state = handle.state(turn)
    over = handle.over()
    owed = {} if over else handle.game.owed(state)
    received = handle.received(turn)
    order = handle.players
    resigned = handle.resigned()
    conceded = handle.votes().conceded
    times = handle.clock()
    away = absences.left_out(handle)
    left_out = resigned + conceded + handle.without(turn) + away
    return {
        "id": handle.meta["id"],
        "game": handle.meta["game"],
        "turn": turn,
        "over": over,
        "phase": handle.phase(turn),
        "owed": {p: owed[p] for p in order if p in owed},
        "waiting_for": [p for p in order if p in owed and p not in received and p not in left_out],
        "received": [p for p in order if p in received],
        "resigned": resigned,
        "conceded": [p for p in order if p in conceded],
        "ended": handle.facts.ended,
        "agreed": not over and handle.ending() is not None,
        "without": handle.without(turn),
        "away": [a.json() for a in absences.ahead(handle)],
        "deadline": None if over or times.deadline is None else clock.stamp(times.deadline),
        "timezone": schedule.game_zone(handle.meta).key,
        "paused": times.paused_since is not None,
        "rolled_back": times.rolled_back,
    }


def stored_order(handle: OpenGame, turn: int, player: str) -> dict[str, Any]:
    """The body of ``player``'s order in effect for ``turn``, normalised."""
    entry = handle.in_effect(turn)[player]
    name = entry["file"].rsplit("/", 1)[-1]
    raw = (handle.dir.root / handle.dir.turn_dir(turn) / "orders" / name).read_bytes()
    from adjudicator.orders import parse

    sealed = handle.sealing_option() == "commit-reveal"
    parsed = parse(raw, handle.game, "reveal" if sealed else "order")
    return handle.game.normalise(parsed.body())


Why = Literal["complete", "deadline", "gm", "agreed"]
"""Why a turn was adjudicated: every order was in, its deadline passed, the game master, or
the players' votes ended the game (a draw agreed, or one player left)."""


def adjudicate(
    root: Path, default_missing: bool = False, why: Why = "gm", only_turn: int | None = None
) -> dict[str, Any]:
    """Resolve the current turn; NotNow while orders are missing (unless defaults are asked for).

    A resigned player's seat always plays the default orders; so does a missing player's in a
    turn that was rolled back (its orders are fixed, as they were the first time). With
    ``only_turn``, NotNow unless that is still the current turn (another run was quicker).
    """
    with steps.step(root, "adjudicate") as running:
        handle = OpenGame(root)
        turn = handle.turn()
        if only_turn is not None and turn != only_turn:
            raise NotNow(f"turn {only_turn} was adjudicated already (turn {turn} is open)")
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
        owed = game.owed(state)
        received = handle.received(turn)
        missing = [p for p in handle.players if p in owed and p not in received]
        away = absences.left_out(handle)
        left_out = handle.resigned() + handle.votes().conceded + handle.without(turn) + away
        absent = [p for p in missing if p not in left_out]
        fixed = handle.clock().rolled_back
        if absent and not (default_missing or fixed):
            raise NotNow(
                f"turn {turn} cannot be adjudicated: orders missing from {', '.join(absent)} "
                "(adjudicate --default-missing applies the default orders)"
            )
        if absent and handle.meta["options"]["nmr"] == "wait" and not fixed:
            raise NotNow(
                f"turn {turn} cannot be adjudicated: orders missing from {', '.join(absent)}, "
                "and this game waits for every order (nmr: wait)"
            )
        if handle.phase(turn) == "commit":
            running.commit("revealing", reveal=reveal_of(handle, turn, missing))
            return {"turn": turn, "defaulted": missing, "over": False, "revealing": True}
        orders = {
            p: (stored_order(handle, turn, p) if p in received else None)
            for p in handle.players
            if p in owed
        }
        resolution = game.resolve(state, orders, Rng(handle.meta["seed"]))
        if resolution.state["turn"] != turn + 1:
            raise RuntimeError(f"{game.name}: resolve must advance the turn by one")
        over = game.is_over(resolution.state)
        opened = clock.now()
        deadline = None if over else deadline_of(handle.meta, opened)
        owing = list(game.owed(resolution.state))
        deadline = absences.opening_deadline(handle, deadline, owing)
        everything = {**all_orders(handle), str(turn): orders} if over else None
        files = dict([resolution_file(turn, orders, missing, resolution.events)])
        conceded = handle.votes().conceded
        files.update(
            opening_files(game, handle.meta, turn + 1, resolution.state, everything, None, conceded)
        )
        write_files(handle.dir, files)
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
    files = dict(ending_files(handle.game, handle.meta, state, ending, all_orders(handle)))
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


# -- reading -----------------------------------------------------------------------------------
def stored_view(handle: OpenGame, reader: str, turn: int | None = None) -> dict[str, Any]:
    """``reader``'s view as turn ``turn`` (default: the current one) opened."""
    doc: dict[str, Any] = json.loads(stored_view_bytes(handle, reader, turn))
    return doc


def stored_view_bytes(handle: OpenGame, reader: str, turn: int | None = None) -> bytes:
    """The file of ``reader``'s view as turn ``turn`` (default: the current one) opened."""
    if reader not in ("gm", "public"):
        handle.require_player(reader)
    current = handle.turn()
    turn = current if turn is None else turn
    if turn < 1 or turn > current:
        raise UsageProblem(f"there is no turn {turn} (turns 1 to {current})")
    return (handle.dir.root / views.path(handle.dir.turn_dir(turn), reader)).read_bytes()


def view(root: Path, player: str) -> dict[str, Any]:
    """What ``player`` may see now. Under ``sealing: commit-reveal``, ``to_do`` is ``commit``,
    then ``reveal`` (``order`` keeps the key the order file needs), or null for a player whose
    seat plays the default orders because they made no commitment."""
    handle = OpenGame(root)
    handle.require_player(player)
    doc = {
        "id": handle.meta["id"],
        "game": handle.meta["game"],
        **handle.game.view(handle.state(), player),
    }
    phase = handle.phase()
    if phase != "orders" and doc.get("to_do") is not None:
        doc["order"] = doc["to_do"]
        left_out = player in handle.without(handle.turn())
        doc["to_do"] = None if left_out else phase
    return doc


def all_orders(handle: OpenGame) -> dict[str, Any]:
    """Every order used, by turn: ``{"1": {"alice": {...}, "bob": null}}`` (null: default)."""
    result: dict[str, Any] = {}
    for turn in range(1, handle.turn()):
        resolution = handle.dir.read_json(f"{handle.dir.turn_dir(turn)}/resolution.json")
        result[str(turn)] = resolution["orders"]
    return result


def record(root: Path) -> dict[str, Any]:
    """The game record: public while the game runs (with the seed commitment), complete once
    it is over (with the seed and salt that open the commitment)."""
    handle = OpenGame(root)
    state = handle.state()
    over = handle.over()
    data: dict[str, Any] = {
        "game": handle.meta["game"],
        "id": handle.meta["id"],
        "players": handle.players,
        "options": handle.meta["options"],
        "over": over,
    }
    data.update(handle.game.record(state, over))
    if handle.facts.ended is not None:  # the game's own result never came
        data["result"] = None
        data["ended"] = handle.facts.ended
    conceded = handle.votes().conceded
    if conceded:
        data["conceded"] = [p for p in handle.players if p in conceded]
    away = absences.stretches(absences.days_of(handle), handle.players)
    if away:  # public, as the reports say them (rulings E22)
        data["absences"] = [a.json() for a in away]
    if handle.meta.get("commitment"):
        data["commitment"] = handle.meta["commitment"]
    if over and any(n["kind"] == "press" for n in handle.facts.notices):
        from adjudicator.press import everything

        keys = ("turn", "at", "from", "to", "text")
        data["press"] = [{k: p[k] for k in keys} for p in everything(root, handle.log)]
    if over:
        data["seed"] = handle.meta["seed"]
        if handle.meta.get("salt"):
            data["salt"] = handle.meta["salt"]
        data["orders"] = all_orders(handle)
    return data
