"""Sultan's order checks: every problem of an order against its context, in plain Python.

The context is the small part of a player's view that travels in the order form: ``to_do``,
``hand``, ``cushions`` (how many this round), ``drawn`` and ``used_cushions`` (cushions this player
already has a card on this round; only 2-player sequential play has one). The schemas
(``orders``, pydantic) are not needed to check an order, so that the engine checks one without
loading them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from adjudicator.rules.contract import Msg, Path, Problem, msg
from adjudicator.rules.fits import envelope_fits

ORDER_COLOURS = ("white", "red", "yellow", "green", "blue")
ORDER_KEYS = ("return", "bid", "bids")
ENVELOPE = ("id", "player", "turn")

COLOUR_NAMES: dict[str, str] = {
    **{colour: colour for colour in ORDER_COLOURS},
    # German (002 lines 34-50), Dutch (001 lines 125-129), French (001 lines 335-339): the
    # rulebooks' words, as docs/glossary.md lists them; a test checks them against it.
    **{"weiß": "white", "weiss": "white", "rot": "red", "gelb": "yellow"},
    **{"grün": "green", "gruen": "green", "blau": "blue"},
    **{"wit": "white", "rood": "red", "geel": "yellow", "groen": "green", "blauw": "blue"},
    **{"blanc": "white", "rouge": "red", "jaune": "yellow", "vert": "green", "bleu": "blue"},
}
"""Every name a jewel colour may be written with in an order file, in any of the game's
languages (lower case), and the colour it stands for; orders are stored in English."""


def english_colour(value: Any) -> Any:
    """The English colour ``value`` names in any language (any case); else ``value`` as it is."""
    if isinstance(value, str):
        return COLOUR_NAMES.get(value.strip().lower(), value)
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _owed(to_do: str) -> Msg:
    """The key owed this turn, with what it holds."""
    if to_do == "return":
        return msg("owed-return")
    if to_do == "bid":
        return msg("owed-bid")
    return msg("owed-bids")


def _times(count: int) -> Msg:
    """How often a card is played: twice, three times, 4 times."""
    if count == 2:
        return msg("twice")
    if count == 3:
        return msg("three-times")
    return msg("times", count=count)


def _how_many(count: int) -> Msg | int:
    """How many a hand holds: one, two, 3."""
    if count == 1:
        return msg("number-one")
    if count == 2:
        return msg("number-two")
    return count


def _listed(values: list[Any]) -> list[Any] | Msg:
    """The values, or the word for none when there are none."""
    return values if values else msg("none-listed")


# -- fitting the schemas, without loading them -------------------------------------------------
_FILE_KEYS = frozenset((*ENVELOPE, *ORDER_KEYS))
_CONTEXT_KEYS = {"to_do", "hand", "cushions", "drawn", "used_cushions"}


def order_fits(order: Any) -> bool:
    """True only when ``order`` (a whole file) fits ``orders.SultanOrder`` as it is, decided in
    plain Python: every key typed as the schema types it. False for anything else, fitting or
    not; the engine then asks the schema (a test holds the schema to finding nothing wherever
    this is True)."""
    if not envelope_fits(order, _FILE_KEYS):
        return False
    colour = order.get("return")
    if colour is not None and not (type(colour) is str and english_colour(colour) in ORDER_COLOURS):
        return False
    bid, bids = order.get("bid"), order.get("bids")
    if bid is not None and not _placement_fits(bid):
        return False
    return bids is None or (type(bids) is list and all(_placement_fits(b) for b in bids))


def _placement_fits(value: Any) -> bool:
    return (
        type(value) is dict
        and value.keys() == {"cushion", "card"}
        and all(type(number) is int and number >= 1 for number in value.values())
    )


def context_fits(context: Any) -> bool:
    """True only when a form's ``context`` fits ``orders.Context`` as it is, decided in plain
    Python (as :func:`order_fits` decides for an order file)."""
    if type(context) is not dict or context.keys() != _CONTEXT_KEYS:
        return False
    to_do, cushions = context["to_do"], context["cushions"]
    drawn = context["drawn"]
    return (
        (to_do is None or (type(to_do) is str and to_do in ORDER_KEYS))
        and _numbers(context["hand"], 1, 15, 24)
        and type(cushions) is int
        and 2 <= cushions <= 3
        and type(drawn) is list
        and len(drawn) <= 4
        and all(type(colour) is str and colour in ORDER_COLOURS for colour in drawn)
        and _numbers(context["used_cushions"], 1, 3, 3)
    )


def _numbers(values: Any, low: int, high: int, most: int) -> bool:
    """A list of at most ``most`` whole numbers from ``low`` to ``high``."""
    return (
        type(values) is list
        and len(values) <= most
        and all(type(v) is int and low <= v <= high for v in values)
    )


def validate(context: Mapping[str, Any], order: Any) -> list[Problem]:
    """Every problem of one order body (the file without id, player and turn)."""
    if _plainly_valid(context, order):
        return []
    return _problems(context, order)


def _plainly_valid(context: Mapping[str, Any], order: Any) -> bool:
    """True for the common valid order, checked in a few steps: one ``return`` of a drawn colour
    written in English, or one ``bid`` of a held card on a free cushion, beside envelope keys.
    False for anything else, valid or not: ``_problems`` then checks it in full (a test holds
    that ``_problems`` finds nothing wherever this is True)."""
    if type(order) is not dict:
        return False
    to_do = context.get("to_do")
    for key in order:
        if key != to_do and key not in ENVELOPE:
            return False
    if to_do == "return":
        value, drawn = order.get("return"), context.get("drawn")
        return (
            type(value) is str and value in ORDER_COLOURS and type(drawn) is list and value in drawn
        )
    if to_do != "bid":
        return False
    bid = order.get("bid")
    if type(bid) is not dict or len(bid) != 2:
        return False
    card, cushion = bid.get("card"), bid.get("cushion")
    cushions, hand = context.get("cushions"), context.get("hand")
    used = context.get("used_cushions")
    if type(card) is not int or type(cushion) is not int or type(cushions) is not int:
        return False
    if type(hand) is not list or type(used) is not list:
        return False
    # the first card of the hand equal to ``card`` a whole number (not True, not 7.0)
    return (
        card in hand
        and type(hand[hand.index(card)]) is int
        and 1 <= cushion <= cushions
        and cushion not in used
    )


def _problems(context: Mapping[str, Any], order: Any) -> list[Problem]:
    """Every problem of one order body, checked in full."""
    if not isinstance(order, Mapping):
        return [Problem("order-not-a-mapping")]
    problems = [
        Problem("unknown-key", (str(key),), key=key)
        for key in order
        if key not in ORDER_KEYS and key not in ENVELOPE
    ]
    to_do = context.get("to_do")
    if to_do not in ORDER_KEYS:
        problems.append(Problem("not-owed"))
        return problems
    wrong = [key for key in ORDER_KEYS if key in order and key != to_do]
    for key in wrong:
        problems.append(Problem("wrong-key", (key,), owed=_owed(to_do), key=key))
    if to_do not in order:
        if not wrong:
            problems.append(Problem("owed-key-missing", owed=_owed(to_do), key=to_do))
    elif to_do == "return":
        problems += _check_return(context, order["return"])
    elif to_do == "bid":
        problems += _check_bid(context, order["bid"], ("bid",), Counter())
    else:
        problems += _check_bids(context, order["bids"])
    return problems


def _check_return(context: Mapping[str, Any], value: Any) -> list[Problem]:
    drawn = list(context.get("drawn") or [])
    if not isinstance(value, str):
        return [Problem("return-not-a-name", ("return",))]
    value = english_colour(value)
    if value not in ORDER_COLOURS:
        return [Problem("not-a-colour", ("return",), value=value, colours=list(ORDER_COLOURS))]
    if value not in drawn:
        return [Problem("not-drawn", ("return",), value=value, drawn=_listed(drawn))]
    return []


def _check_bid(
    context: Mapping[str, Any], bid: Any, path: Path, used: Counter[int]
) -> list[Problem]:
    """One placement; ``used`` counts the cards already laid by earlier placements of the order."""
    if not isinstance(bid, Mapping):
        return [Problem("placement-not-a-mapping", path)]
    problems = [
        Problem("unknown-placement-key", (*path, str(key)), key=key)
        for key in bid
        if key not in ("cushion", "card")
    ]
    for key in ("cushion", "card"):
        if key not in bid:
            problems.append(Problem("placement-key-missing", path, key=key))
        elif not _is_int(bid[key]):
            problems.append(Problem("not-a-whole-number", (*path, key), key=key))
    if "card" in bid and _is_int(bid["card"]):
        problems += _check_card(context, bid["card"], (*path, "card"), used)
    if "cushion" in bid and _is_int(bid["cushion"]):
        problems += _check_cushion(context, bid["cushion"], (*path, "cushion"))
    return problems


def _check_card(
    context: Mapping[str, Any], card: int, path: Path, used: Counter[int]
) -> list[Problem]:
    hand = sorted(v for v in context.get("hand") or [] if _is_int(v))
    held = hand.count(card)
    used[card] += 1
    if held == 0:
        return [Problem("not-in-hand", path, card=card, hand=_listed(hand))]
    if used[card] > held:
        return [
            Problem(
                "card-played-too-often",
                path,
                card=card,
                times=_times(used[card]),
                held=_how_many(held),
                hand=_listed(hand),
            )
        ]
    return []


def _check_cushion(context: Mapping[str, Any], cushion: int, path: Path) -> list[Problem]:
    given = context.get("cushions")
    count: int = given if isinstance(given, int) and not isinstance(given, bool) else 3
    if not 1 <= cushion <= count:
        return [Problem("no-such-cushion", path, cushions=count, cushion=cushion)]
    used = list(context.get("used_cushions") or [])
    if cushion in used:
        return [Problem("cushion-already-used", path, cushion=cushion)]
    return []


def _check_bids(context: Mapping[str, Any], bids: Any) -> list[Problem]:
    if not isinstance(bids, list):
        return [Problem("bids-not-a-list", ("bids",))]
    problems: list[Problem] = []
    if len(bids) != 2:
        problems.append(Problem("wrong-count", ("bids",), given=len(bids)))
    used: Counter[int] = Counter()
    seen: set[int] = set()
    for index, bid in enumerate(bids):
        problems += _check_bid(context, bid, ("bids", index), used)
        if isinstance(bid, Mapping) and _is_int(bid.get("cushion")):
            cushion = bid["cushion"]
            if cushion in seen:
                problems.append(
                    Problem("same-cushion", ("bids", index, "cushion"), cushion=cushion)
                )
            seen.add(cushion)
    return problems
