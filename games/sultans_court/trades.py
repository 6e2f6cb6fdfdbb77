"""Trades (docs/rulings.md C14): matching offers carried out at the start of the round's
resolution."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.rules.contract import Event, Msg, Order, State, msg

from .board import CARD_WORDS, check_victory, sort_hand


def skipped(player: str, instruction: str, index: int | None, reason: Msg) -> Event:
    """A standing instruction that did not apply (C6): private to its player (``seen_by``);
    ``reason`` is stored as JSON (``{"code", "params"}``)."""
    return {
        "type": "skipped",
        "player": player,
        "seen_by": player,
        "instruction": instruction,
        "index": index,
        "reason": reason.to_json(),
    }


def trades(
    state: State, order: list[str], orders: Mapping[str, Order], events: list[Event]
) -> None:
    """In turn order each offer pairs with the partner's first unpaired mirror offer (C14)."""
    paired: set[tuple[str, int]] = set()
    for player in order:
        for i, offer in enumerate(orders[player]["trades"]):
            if (player, i) in paired:
                continue
            partner = offer["with"]
            match = next(
                (
                    j
                    for j, other in enumerate(orders[partner]["trades"])
                    if (partner, j) not in paired
                    and other["with"] == player
                    and other["give"] == offer["get"]
                    and other["get"] == offer["give"]
                ),
                None,
            )
            if match is None:
                continue
            paired |= {(player, i), (partner, match)}
            _carry_out(state, (player, i, offer["give"]), (partner, match, offer["get"]), events)
    for player in order:
        for i, offer in enumerate(orders[player]["trades"]):
            if (player, i) not in paired:
                events.append(
                    skipped(
                        player,
                        "trades",
                        i,
                        msg(
                            "no-matching-offer",
                            partner=offer["with"],
                            give=CARD_WORDS[offer["give"]],
                            get=CARD_WORDS[offer["get"]],
                        ),
                    )
                )


def _carry_out(
    state: State, first: tuple[str, int, str], second: tuple[str, int, str], events: list[Event]
) -> None:
    hands = state["hands"]
    lacking = [(p, i, card) for p, i, card in (first, second) if card not in hands[p]]
    if lacking:
        for p, i, _ in (first, second):
            why = [
                msg("you-no-longer-held", card=CARD_WORDS[card])
                if q == p
                else msg("no-longer-held", player=q, card=CARD_WORDS[card])
                for q, _, card in lacking
            ]
            if len(why) == 1:
                reason = msg("trade-not-made", why=why[0])
            else:
                reason = msg("trade-not-made-by-both", first=why[0], second=why[1])
            events.append(skipped(p, "trades", i, reason))
        return
    (a, _, a_card), (b, _, b_card) = first, second
    hands[a].remove(a_card)
    hands[b].remove(b_card)
    hands[a] = sort_hand([*hands[a], b_card])
    hands[b] = sort_hand([*hands[b], a_card])
    events.append(
        {
            "type": "trade",
            "round": state["round"],
            "players": [a, b],
            "gives": {a: a_card, b: b_card},
        }
    )
    check_victory(state)
