"""What the read commands ask of a game: its status, a player's view, a stored view, the record.

Nothing here writes: each reads the game as its journal names it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adjudicator.engine import absences
from adjudicator.engine.open_game import OpenGame
from adjudicator.rules import schedule, views
from adjudicator.rules.errors import UsageProblem
from adjudicator.store import clock, journal


def status(root: Path) -> dict[str, Any]:
    return status_of(OpenGame(root))


def status_of(handle: OpenGame) -> dict[str, Any]:
    """The status as ``handle`` read the journal (one reading: turn and clock agree)."""
    if handle.waiting():
        return waiting_status(handle)
    turn = handle.turn()
    state = handle.state(turn)
    over = handle.over()
    owed = {} if over else handle.game.owed(state)
    received = handle.received(turn)
    order = handle.players
    resigned = handle.resigned()
    conceded = handle.votes().conceded
    times = handle.clock()
    deadline = times.deadline  # while the reports wait to be sent: as if they left now
    if times.mail_since is not None:
        deadline = times.deadline_if_sent(clock.now())
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
        "deadline": None if over or deadline is None else clock.stamp(deadline),
        "timezone": schedule.game_zone_name(handle.meta),
        "paused": times.paused_since is not None,
        "waiting_for_mail": not over and times.mail_since is not None,
        "rolled_back": times.rolled_back,
    }


def waiting_status(handle: OpenGame) -> dict[str, Any]:
    """The status of a game whose deal waits for the players' shares: turn 0, nobody owes an
    order, and ``shares_owed`` names who owes a share."""
    signup = handle.meta.get("signup")
    seats: dict[str, Any] = {}
    if signup is not None and (handle.signing_up() or handle.facts.closed):
        joining = handle.joining()
        seats = {
            "seats": {
                "taken": handle.players,
                "open": max(0, signup["seats"]["max"] - len(handle.players)),
                "min": signup["seats"]["min"],
                "max": signup["seats"]["max"],
                "seating": signup["seating"],
                "until": signup.get("until"),
                "confirmed": [n for n, j in joining.items() if j.get("confirmed")],
                "unconfirmed": [n for n, j in joining.items() if not j.get("confirmed")],
            }
        }
    phase = "closed" if handle.facts.closed else "signup" if seats else "shares"
    return {
        "id": handle.meta["id"],
        "game": handle.meta["game"],
        "turn": 0,
        "over": handle.facts.closed,
        "phase": phase,
        "owed": {},
        "waiting_for": [],
        "received": [],
        "resigned": handle.resigned(),
        "conceded": [],
        "ended": None,
        "agreed": False,
        "without": [],
        "away": [],
        "deadline": None,
        "timezone": schedule.game_zone_name(handle.meta),
        "paused": False,
        "rolled_back": False,
        "shares_owed": handle.owing(),
        **seats,
    }


def stored_view(handle: OpenGame, reader: str, turn: int | None = None) -> dict[str, Any]:
    """``reader``'s view as turn ``turn`` (default: the current one) opened."""
    doc: dict[str, Any] = json.loads(stored_view_bytes(handle, reader, turn))
    return doc


def stored_view_bytes(handle: OpenGame, reader: str, turn: int | None = None) -> bytes:
    """The file of ``reader``'s view as turn ``turn`` (default: the current one) opened."""
    if reader not in ("gm", "public"):
        handle.require_player(reader)
    if handle.waiting():
        handle.state()  # NotNow: no view before the deal
    current = handle.turn()
    turn = current if turn is None else turn
    if turn < 1 or turn > current:
        raise UsageProblem(f"there is no turn {turn} (turns 1 to {current})")
    return handle.dir.named(views.path(handle.dir.turn_dir(turn), reader), handle.facts.files)


def view(root: Path, player: str) -> dict[str, Any]:
    """What ``player`` may see now. Under ``sealing: commit-reveal``, ``to_do`` is ``commit``,
    then ``reveal`` (``order`` keeps the key the order file needs), or null for a player whose
    seat plays the default orders because they made no commitment."""
    return view_of(OpenGame(root), player)


def view_of(handle: OpenGame, player: str) -> dict[str, Any]:
    """:func:`view` as ``handle`` read the journal (the players of one turn, one reading)."""
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


def record(root: Path) -> dict[str, Any]:
    """The game record: public while the game runs (with the seed commitment), complete once
    it is over (with the seed and salt that open the commitment)."""
    handle = OpenGame(root)
    if handle.waiting():
        return record_before_the_deal(handle)
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
    forfeits = forfeits_played(handle)
    if forfeits:  # public: the reports that open the next turns say them
        data["forfeits"] = forfeits
    away = absences.stretches(absences.days_of(handle), handle.players)
    if away:  # public, as the reports say them (rulings E22)
        data["absences"] = [a.json() for a in away]
    wanted = ("turn", "deadline", "was")
    moved = [{k: e["mailed"][k] for k in wanted} for e in handle.log if e.get("mailed")]
    if moved:  # public: the reminders say the deadlines; ``why``: the clock waited for the mail
        data["deadlines_moved"] = [{**m, "why": "mail"} for m in moved]
    if handle.meta.get("commitment"):
        data["commitment"] = handle.meta["commitment"]
    if over and any(n["kind"] == "press" for n in handle.facts.notices):
        from adjudicator.engine.press import everything

        keys = ("turn", "at", "from", "to", "text")
        data["press"] = [{k: p[k] for k in keys} for p in everything(root, handle.log)]
    if over:
        data["seed"] = handle.meta["seed"]
        if handle.meta.get("salt"):
            data["salt"] = handle.meta["salt"]
        data["orders"] = handle.orders_used()
        if handle.meta.get("shares") == "ask":  # with the seed, they give the seed played
            taken = handle.shares()
            data["shares"] = [taken[p] for p in handle.players]
    return data


def record_before_the_deal(handle: OpenGame) -> dict[str, Any]:
    """The record of a game not dealt yet (docs/record.md): the game, the seats so far, the
    seed commitment, no round; its ``phase`` says why (``signup``, ``closed``, ``shares``), and
    an open game's ``seats`` the seats taken and open, as ``status`` says them."""
    status = waiting_status(handle)
    data: dict[str, Any] = {
        "game": handle.meta["game"],
        "id": handle.meta["id"],
        "players": handle.players,
        "options": handle.meta["options"],
        "over": status["over"],
        "phase": status["phase"],
        "commitment": handle.meta["commitment"],
        "rounds": [],
    }
    if "seats" in status:  # the taken seats' names and the open seats' count: no address
        data["seats"] = {k: status["seats"][k] for k in ("taken", "open", "min", "max")}
    return data


def forfeits_played(handle: OpenGame) -> list[dict[str, Any]]:
    """Each turn whose resolution played a forfeit order (``sealing: commit-reveal``: a seat
    committed and did not reveal), with those players: ``[{"turn": 3, "players": ["bob"]}]``."""
    if handle.sealing_option() != "commit-reveal":
        return []
    found = []
    for turn in range(1, handle.turn()):
        rel = f"{handle.dir.turn_dir(turn)}/resolution.json"
        resolution = journal.parse(handle.dir.named(rel, handle.facts.files))
        if resolution.get("forfeited"):
            found.append({"turn": turn, "players": list(resolution["forfeited"])})
    return found
