"""Turn order (docs/rulings.md C5) and travel (C7)."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.rules.contract import Event, Msg, Order, State, msg

from .board import (
    CITIES,
    KINDS,
    RESERVE,
    at_court,
    check_victory,
    describe_place,
    occupant,
    position_of_seat,
    seat_of,
    vizir_name,
)


def turn_order(state: State) -> tuple[list[str], int | None]:
    """C5: seating order from the owner of the highest occupied seat (and that seat number).

    With nobody at court the previous round's first player starts again (before any round: the
    first player in seating order).
    """
    players: list[str] = state["players"]
    best: tuple[int, str] | None = None
    for vizir, place in state["vizirs"].items():
        if at_court(place):
            seat = int(state["markers"][place])
            if best is None or seat > best[0]:
                best = (seat, vizir.rsplit(".", 1)[0])
    if best is not None:
        first, seat_used = best[1], best[0]
    else:
        first, seat_used = state.get("start_player") or players[0], None
    i = players.index(first)
    return players[i:] + players[:i], seat_used


def travel(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """C7: in turn order, each player's moves to cities (fat, small, big), then to seats."""
    claims: dict[int, set[str]] = {}
    for player in order:
        for kind, target in orders[player]["travel"].items():
            if (
                isinstance(target, int)
                and seat_of(state, state["vizirs"][vizir_name(player, kind)]) != target
            ):
                claims.setdefault(target, set()).add(player)
    for player in order:
        moves = orders[player]["travel"]
        for kind in KINDS:
            target = moves.get(kind)
            if isinstance(target, str) and target != "stay":
                _to_city(state, player, kind, target, events)
        for kind in KINDS:
            target = moves.get(kind)
            if isinstance(target, int):
                _to_seat(state, player, kind, target, claims, events)
        for kind in KINDS:
            if moves.get(kind) == "stay":
                vizir = vizir_name(player, kind)
                place = state["vizirs"][vizir]
                reason = msg("waits-in-reserve" if place == RESERVE else "ordered-to-stay")
                events.append(_moved(state, player, vizir, place, "stay", place, reason))


def _moved(
    state: State,
    player: str,
    vizir: str,
    start: object,
    target: object,
    end: object,
    reason: Msg | None,
) -> Event:
    """A travel event; ``reason`` (why the vizir did not move) is stored as JSON."""
    return {
        "type": "travel",
        "round": state["round"],
        "player": player,
        "vizir": vizir,
        "from": start,
        "order": target,
        "to": end,
        "moved": start != end,
        "reason": None if reason is None else reason.to_json(),
    }


def _to_city(state: State, player: str, kind: str, city: str, events: list[Event]) -> None:
    vizir = vizir_name(player, kind)
    start = state["vizirs"][vizir]
    assert city in CITIES
    if start == city:
        events.append(
            _moved(state, player, vizir, start, city, start, msg("already-in-city", city=city))
        )
        return
    state["vizirs"][vizir] = city
    events.append(_moved(state, player, vizir, start, city, city, None))
    check_victory(state)


def _to_seat(
    state: State,
    player: str,
    kind: str,
    seat: int,
    claims: Mapping[int, set[str]],
    events: list[Event],
) -> None:
    vizir = vizir_name(player, kind)
    start = state["vizirs"][vizir]
    if seat_of(state, start) == seat:
        reason = msg("already-on-seat", seat=seat)
        events.append(_moved(state, player, vizir, start, seat, start, reason))
        return
    others = sorted(claims.get(seat, set()) - {player})
    position = position_of_seat(state, seat)
    sitter = occupant(state, position)
    place = describe_place(state, start)
    blocked: Msg | None = None
    if others:
        blocked = msg("seat-contested", others=others, seat=seat, vizir=vizir, place=place)
    elif sitter is not None:
        blocked = msg("seat-taken", seat=seat, sitter=sitter, vizir=vizir, place=place)
    if blocked is not None:
        events.append(_moved(state, player, vizir, start, seat, start, blocked))
        return
    state["vizirs"][vizir] = position
    events.append(_moved(state, player, vizir, start, seat, position, None))
    check_victory(state)
