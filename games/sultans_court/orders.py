"""Order files of At the Sultan's Court (docs/rulings.md C6): the check and the canon (the
schemas, pydantic, are in ``schemas``).

The order body holds ``travel`` (a destination for each of the player's movable vizirs: a city by
name in any case or by initial, a seat number 1–12, or ``stay``), ``accuse`` (``player.kind``,
``none`` or null; omitted means none) and the standing instructions ``kaffa``, ``demand``,
``pardon`` and ``trades`` (all optional). ``travel`` must list every movable vizir (at court, in a
city or in reserve) and no other; a player with no movable vizir may write ``travel: {}`` or leave
it out. Blocked moves are legal orders; whether standing instructions apply is decided at
resolution (C6), so only their form is checked here.

The context (``context(view)``) holds ``player``, ``players``, ``round``, ``to_do``,
``first_round_all_travel``, ``vizirs``: ``{kind: {"place": place, "seat": seat or null}}``
for the player's own three vizirs, ``pardons``, the Pardon cards in their hand, and ``held``,
the power types in their hand. A pardon that cannot apply as things stand (no Pardon card for
it, a vizir not in Dungeon 2 or 3), a trade giving a type the player does not hold and a demand
for a type they hold are legal (each may come true before its moment: a trade earlier in the
round, C14, gives or takes the card): ``notes`` words them for the player (docs/rulings.md
C6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.rules.contract import Msg, Order, Path, Problem, msg
from adjudicator.rules.fits import envelope_fits

from .board import (
    CARD_WORDS,
    CARDS,
    CITIES,
    DUNGEONS,
    ISLAND,
    KAFFA,
    KINDS,
    PARDON,
    POSITIONS,
    POWER,
    RESERVE,
)

ENVELOPE = ("id", "player", "turn")
BODY_KEYS = ("travel", "accuse", "kaffa", "demand", "pardon", "trades")
INITIALS = {city[0]: city for city in CITIES}
_BY_LOWER = {city.lower(): city for city in CITIES}
_CANONICAL = frozenset((*CITIES, "stay"))
"""The travel values :func:`destination` gives back as they are written."""
CARD_NAMES = {
    **{card.lower(): card for card in CARDS},
    "canons": "Cannons",
    # The names docs/glossary-court.md gives each card in German, Dutch and French: an order
    # may name a card in any of the game's languages; it is stored in English.
    **{"pferde": "Horses", "kanonen": "Cannons", "truppen": "Troops", "vorräte": "Supplies"},
    **{"vorraete": "Supplies", "schiffe": "Ships", "begnadigung": "Pardon"},
    **{"paarden": "Horses", "kanonnen": "Cannons", "goud": "Gold", "troepen": "Troops"},
    **{"voorraden": "Supplies", "schepen": "Ships", "gratie": "Pardon"},
    **{"chevaux": "Horses", "or": "Gold", "troupes": "Troops", "vivres": "Supplies"},
    **{"navires": "Ships", "grâce": "Pardon", "grace": "Pardon"},
}
"""Every name a card may be written with in an order file (lower case) and the card."""


# -- words -------------------------------------------------------------------------------------
def city_name(value: Any) -> str | None:
    """A city by name (any case) or initial letter; None if it is none."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) == 1:
        return INITIALS.get(text.upper())
    return _BY_LOWER.get(text.lower())


def card_name(value: Any) -> str | None:
    return CARD_NAMES.get(value.strip().lower()) if isinstance(value, str) else None


def _is_mapping(value: Any) -> bool:
    """``value`` is a Mapping, a dict told first (the ABC's own check takes many times longer,
    and the order page asks it of every order it judges)."""
    return type(value) is dict or isinstance(value, Mapping)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def destination(value: Any) -> str | int | None:
    """A travel value in canonical form: a city, a seat number or 'stay'; None if unreadable."""
    if type(value) is str and value in _CANONICAL:  # as the canon writes it (the page's own)
        return value
    if isinstance(value, str):
        return "stay" if value.strip().lower() == "stay" else city_name(value)
    return int(value) if _is_int(value) else None


def accused(value: Any) -> str | None:
    """'player.kind' as written (player names and vizir kinds are exact), or None for none."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
        return None
    return str(value).strip()


def own_kind(value: Any, player: str | None) -> str | None:
    """A vizir of one's own: 'small' or 'carol.small' (for carol); None otherwise."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if "." in text:
        who, _, kind = text.rpartition(".")
        if who != player:
            return None
        text = kind
    return text if text in KINDS else None


# -- fitting the schemas, without loading them -------------------------------------------------
_FILE_KEYS = frozenset((*ENVELOPE, *BODY_KEYS))
_ENTRY_KEYS = {
    "demand": {"from", "card"},
    "pardon": {"vizir", "city"},
    "trades": {"with", "give", "get"},
}
_PLACES = frozenset((*CITIES, *DUNGEONS, ISLAND, RESERVE))
_KIND_SET = frozenset(KINDS)
_TRAVEL_TYPES = frozenset((str, int))


def order_fits(order: Any) -> bool:
    """True only when ``order`` (a whole file) fits ``schemas.CourtOrder`` as it is, decided in
    plain Python: every key typed as the schema types it. False for anything else, fitting or
    not; the engine then asks the schema (a test holds the schema to finding nothing wherever
    this is True)."""
    # plain loops, not all() over generators: the order page asks this of thousands of
    # orders for each page
    if not envelope_fits(order, _FILE_KEYS):
        return False
    travel, accuse = order.get("travel"), order.get("accuse")
    if travel is not None and not _travel_fits(travel):
        return False
    if accuse is not None and type(accuse) is not str:
        return False
    kaffa = order.get("kaffa", [])
    if type(kaffa) is not list:
        return False
    for card in kaffa:
        if type(card) is not str:
            return False
    return (
        _entries_fit(order.get("demand", []), _ENTRY_KEYS["demand"])
        and _entries_fit(order.get("pardon", []), _ENTRY_KEYS["pardon"])
        and _entries_fit(order.get("trades", []), _ENTRY_KEYS["trades"])
    )


def _travel_fits(travel: Any) -> bool:
    """A mapping of vizir kinds to text or whole numbers."""
    return (
        type(travel) is dict
        and travel.keys() <= _KIND_SET
        and _TRAVEL_TYPES.issuperset(map(type, travel.values()))
    )


def _entries_fit(entries: Any, keys: set[str]) -> bool:
    """A list of entries, each a mapping of exactly ``keys`` to text."""
    if type(entries) is not list:
        return False
    for entry in entries:
        if type(entry) is not dict or entry.keys() != keys:
            return False
        for value in entry.values():
            if type(value) is not str:
                return False
    return True


def context_fits(context: Any) -> bool:
    """True only when a form's ``context`` fits ``schemas.Context`` as it is, decided in plain
    Python (as :func:`order_fits` decides for an order file)."""
    if type(context) is not dict:
        return False
    keys = context.keys()
    required = {"player", "players", "round", "to_do", "first_round_all_travel", "vizirs"}
    if not required <= keys <= {*required, "pardons", "held"}:
        return False
    players, round_ = context["players"], context["round"]
    pardons, held = context.get("pardons"), context.get("held")
    return (
        type(context["player"]) is str
        and type(players) is list
        and len(players) == 4
        and all(type(name) is str for name in players)
        and type(round_) is int
        and round_ >= 1
        and context["to_do"] in (None, "orders")
        and type(context["to_do"]) in (type(None), str)
        and type(context["first_round_all_travel"]) is bool
        and _vizirs_fit(context["vizirs"])
        and (pardons is None or (type(pardons) is int and 0 <= pardons <= 6))
        and (
            held is None
            or (
                type(held) is list and len(held) <= len(POWER) and all(type(h) is str for h in held)
            )
        )
    )


def _vizirs_fit(vizirs: Any) -> bool:
    if type(vizirs) is not dict or not vizirs.keys() <= set(KINDS):
        return False
    for info in vizirs.values():
        if type(info) is not dict or info.keys() != {"place", "seat"}:
            return False
        place, seat = info["place"], info["seat"]
        if not (
            (type(place) is int and 0 <= place < POSITIONS)
            or (type(place) is str and place in _PLACES)
        ):
            return False
        if seat is not None and not (type(seat) is int and 1 <= seat <= POSITIONS):
            return False
    return True


# -- the check ---------------------------------------------------------------------------------
def validate(context: Mapping[str, Any], order: Any) -> list[Problem]:
    """Every problem of one order body (envelope keys are ignored)."""
    if not _is_mapping(order):
        return [Problem("order-not-mapping")]
    problems: list[Problem] = []
    if not order.keys() <= _FILE_KEYS:  # told at once for an order of known keys alone
        problems = [
            Problem("unknown-key", (str(key),), key=key) for key in order if key not in _FILE_KEYS
        ]
    if context.get("to_do") != "orders":
        problems.append(Problem("not-owed"))
        return problems
    problems += _check_travel(context, order.get("travel"))
    accuse, kaffa = order.get("accuse"), order.get("kaffa")
    if accuse is not None:
        problems += _check_accuse(context, accuse)
    # a list left out or empty has nothing wrong with it: told at once (the order page judges
    # thousands of orders, most with every list but one empty)
    if not _nothing(kaffa):
        problems += _check_kaffa(kaffa)
    for key, check in _LIST_CHECKS:
        value = order.get(key)
        if not _nothing(value):
            problems += check(context, value)
    return problems


def _nothing(value: Any) -> bool:
    """A list left out (None) or empty: what :func:`_list_of` reads as no entries."""
    return value is None or (type(value) is list and not value)


def _where(info: Mapping[str, Any]) -> Msg:
    """Where one's own vizir is, as the words of a problem: 'sits at court on seat 7', ..."""
    place = info.get("place")
    if _is_int(place):
        return msg("vizir-at-court", seat=info.get("seat"))
    if place in CITIES:
        return msg("vizir-in-city", city=place)
    if place in DUNGEONS:
        return msg("vizir-in-dungeon", dungeon=int(str(place)[-1]))
    if place == ISLAND:
        return msg("vizir-on-island")
    return msg("vizir-in-reserve")


def _check_travel(context: Mapping[str, Any], travel: Any) -> list[Problem]:
    mine: Mapping[str, Mapping[str, Any]] = context.get("vizirs") or {}
    movable = [k for k in KINDS if k in mine and _can_move(mine[k].get("place"))]
    if travel is None:
        if movable:
            return [Problem("travel-missing", vizirs=movable)]
        return []
    if not _is_mapping(travel):
        return [Problem("travel-not-mapping", ("travel",))]
    problems: list[Problem] = []
    all_travel = bool(context.get("first_round_all_travel")) and context.get("round") == 1
    seats: dict[int, str] = {}
    for key, value in travel.items():
        kind = str(key)
        path: Path = ("travel", kind)
        if kind not in movable:
            problems.append(_not_movable(kind, mine, path))
            continue
        target = destination(value)
        if target is None:
            problems.append(Problem("bad-destination", path, value=value))
            continue
        problems += _check_move(mine[kind], kind, target, all_travel, seats, path)
    for kind in movable:
        if kind not in travel:
            problems.append(
                Problem("missing-vizir", ("travel",), kind=kind, where=_where(mine[kind]))
            )
    return problems


def _not_movable(kind: str, mine: Mapping[str, Mapping[str, Any]], path: Path) -> Problem:
    """The problem of a destination for ``kind``, which is not among the movable vizirs."""
    if kind not in KINDS:
        return Problem("no-such-vizir", path, vizir=kind)
    return Problem("cannot-move", path, kind=kind, where=_where(mine.get(kind, {})))


def _can_move(place: Any) -> bool:
    return place in CITIES or place == RESERVE or _is_int(place)


def _check_move(
    info: Mapping[str, Any],
    kind: str,
    target: str | int,
    all_travel: bool,
    seats: dict[int, str],
    path: Path,
) -> list[Problem]:
    if all_travel and not (isinstance(target, str) and target != "stay"):
        if target == "stay":
            return [Problem("must-travel", path, kind=kind)]
        return [Problem("must-travel-not-to-seat", path, kind=kind, seat=target)]
    if isinstance(target, str):  # a city or 'stay' (else a seat: destination's number)
        return []
    seat = int(target)
    if not 1 <= seat <= 12:
        return [Problem("no-such-seat", path, seat=seat)]
    at_court = _is_int(info.get("place"))
    if at_court and seat != info.get("seat"):
        return [Problem("seat-to-seat", path, kind=kind, seat=info.get("seat"))]
    if seat in seats and not at_court:
        return [Problem("same-seat", path, first=seats[seat], kind=kind, seat=seat)]
    if not at_court:
        seats[seat] = kind
    return []


def _check_accuse(context: Mapping[str, Any], value: Any) -> list[Problem]:
    if value is None:
        return []
    if not isinstance(value, str):
        return [Problem("accuse-not-text", ("accuse",))]
    target = accused(value)
    if target is None:
        return []
    players = list(context.get("players") or [])
    who, _, kind = target.rpartition(".")
    if who not in players or kind not in KINDS:
        return [Problem("no-such-accused", ("accuse",), value=value, players=players)]
    return []


def _card_problem(value: Any, path: Path, power_only: bool) -> list[Problem]:
    return _named_card_problem(value, card_name(value), path, power_only)


def _named_card_problem(
    value: Any, card: str | None, path: Path, power_only: bool
) -> list[Problem]:
    """What :func:`_card_problem` says of ``value``, whose card (``card_name``) is ``card``."""
    kinds = POWER if power_only else CARDS
    if card is None or card not in kinds:
        if power_only:
            return [Problem("bad-power-card", path, value=value, cards=list(kinds))]
        return [Problem("bad-card", path, value=value, cards=list(kinds))]
    return []


def _list_of(value: Any, key: str) -> list[Any] | Problem:
    if value is None:
        return []
    if not isinstance(value, list):
        return Problem("not-a-list", (key,), key=key)
    return value


def _entry(item: Any, keys: tuple[str, ...], path: Path) -> list[Problem]:
    if not _is_mapping(item):
        return [Problem("entry-not-mapping", path, keys=list(keys))]
    if item.keys() == set(keys):  # the common case, told at once: no key unknown or missing
        return []
    problems = [Problem("unknown-key", (*path, str(k)), key=k) for k in item if k not in keys]
    problems += [Problem("entry-missing-key", path, key=k) for k in keys if k not in item]
    return problems


def _check_kaffa(value: Any) -> list[Problem]:
    items = _list_of(value, "kaffa")
    if isinstance(items, Problem):
        return [items]
    problems: list[Problem] = []
    for i, item in enumerate(items):
        problems += _card_problem(item, ("kaffa", i), power_only=False)
    return problems


def _check_player(
    context: Mapping[str, Any], name: Any, path: Path, yourself: str
) -> list[Problem]:
    """The problem, if any, of naming ``name`` as the other player (``yourself``: the code of
    naming oneself)."""
    players = context.get("players") or []
    if name == context.get("player"):
        return [Problem(yourself, path)]
    if name not in players:
        return [Problem("no-such-player", path, name=name, players=list(players))]
    return []


def _check_demand(context: Mapping[str, Any], value: Any) -> list[Problem]:
    items = _list_of(value, "demand")
    if isinstance(items, Problem):
        return [items]
    problems: list[Problem] = []
    for i, item in enumerate(items):
        path: Path = ("demand", i)
        form = _entry(item, ("from", "card"), path)
        if form:
            problems += form
            continue
        where: Path = (*path, "from")
        problems += _check_player(context, item["from"], where, "yourself")
        problems += _card_problem(item["card"], (*path, "card"), power_only=True)
    return problems


def _check_pardon(context: Mapping[str, Any], value: Any) -> list[Problem]:
    items = _list_of(value, "pardon")
    if isinstance(items, Problem):
        return [items]
    problems: list[Problem] = []
    seen: set[str] = set()
    me = context.get("player")
    for i, item in enumerate(items):
        path: Path = ("pardon", i)
        form = _entry(item, ("vizir", "city"), path)
        if form:
            problems += form
            continue
        kind = own_kind(item["vizir"], me if isinstance(me, str) else None)
        if kind is None:
            problems.append(Problem("not-your-vizir", (*path, "vizir"), vizir=item["vizir"]))
        elif kind in seen:
            problems.append(Problem("same-vizir", (*path, "vizir"), kind=kind))
        else:
            seen.add(kind)
        if city_name(item["city"]) is None:
            problems.append(Problem("no-such-city", (*path, "city"), city=item["city"]))
    return problems


def notes(context: Mapping[str, Any], order: Any) -> list[Problem]:
    """What an order that is valid should hear: each pardon, demand and trade that cannot apply
    as things stand (docs/rulings.md C6: it stays in the order, and is skipped if it does not
    apply when its moment comes). Not problems: they never refuse the order."""
    if not _is_mapping(order):
        return []
    return [*_pardons_noted(context, order.get("pardon")), *_cards_noted(context, order)]


def _cards_noted(context: Mapping[str, Any], order: Mapping[str, Any]) -> list[Problem]:
    """A demand for a power type the player holds now applies only if a trade before it gives
    every one away (C8: a demand is for a type the player lacks); a trade giving a type they do
    not hold, only if a trade before it gives them one (C14: trades come before travel, so
    nothing collected this round can be traded)."""
    held = context.get("held")
    if not isinstance(held, list):  # a form made before the context carried the cards
        return []
    found: list[Problem] = []
    for key, field, code, noted in (
        ("demand", "card", "demand-card-held", True),
        ("trades", "give", "trade-card-not-held", False),
    ):
        items = order.get(key)
        if not isinstance(items, list) or not items:
            continue
        for i, item in enumerate(items):
            card = card_name(item.get(field)) if _is_mapping(item) else None
            if card in POWER and (card in held) == noted:
                found.append(Problem(code, (key, i, field), card=CARD_WORDS[card]))
    return found


def _pardons_noted(context: Mapping[str, Any], items: Any) -> list[Problem]:
    """Each pardon that cannot apply as things stand."""
    if not isinstance(items, list) or not items:
        return []
    me = context.get("player")
    found: list[Problem] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not _is_mapping(item) or "vizir" not in item:
            continue
        kind = own_kind(item["vizir"], me if isinstance(me, str) else None)
        if kind is None or kind in seen:
            continue
        seen.add(kind)
        found += _pardon_notes(context, kind, len(seen), ("pardon", i))
    return found


def _pardon_notes(context: Mapping[str, Any], kind: str, count: int, path: Path) -> list[Problem]:
    """Notes for the ``count``-th pardon, of ``kind``, when it cannot apply as things stand."""
    notes: list[Problem] = []
    given = context.get("pardons")
    held: int | None = given if _is_int(given) else None
    if held is not None and count > held:
        if held == 0:
            notes.append(Problem("no-pardon-card", path, kind=kind))
        else:
            notes.append(Problem("too-few-pardon-cards", path, kind=kind, count=held))
    info = (context.get("vizirs") or {}).get(kind) or {}
    place = info.get("place")
    if place == DUNGEONS[0]:
        notes.append(Problem("in-dungeon-1", (*path, "vizir"), kind=kind))
    elif place is not None and place not in DUNGEONS[1:]:
        notes.append(Problem("not-in-dungeon", (*path, "vizir"), kind=kind, where=_where(info)))
    return notes


def _check_trades(context: Mapping[str, Any], value: Any) -> list[Problem]:
    items = _list_of(value, "trades")
    if isinstance(items, Problem):
        return [items]
    problems: list[Problem] = []
    for i, item in enumerate(items):
        path: Path = ("trades", i)
        form = _entry(item, ("with", "give", "get"), path)
        if form:
            problems += form
            continue
        where: Path = (*path, "with")
        problems += _check_player(context, item["with"], where, "trade-with-yourself")
        give, get = card_name(item["give"]), card_name(item["get"])
        for key, card in (("give", give), ("get", get)):
            if card == PARDON:
                problems.append(Problem("pardon-trade", (*path, key)))
            else:
                problems += _named_card_problem(item[key], card, (*path, key), power_only=True)
        if give is not None and give == get:
            problems.append(Problem("same-card", path, card=give))
    return problems


_LIST_CHECKS = (("demand", _check_demand), ("pardon", _check_pardon), ("trades", _check_trades))
"""The lists of entries an order may hold, each with its check, in the order they are told."""


# -- the canon ---------------------------------------------------------------------------------
def normalise(order: Mapping[str, Any]) -> Order:
    """The order body in canonical form (see the module docstring); lists keep their order."""
    travel = order.get("travel") or {}
    return {
        "travel": {k: destination(travel[k]) for k in KINDS if k in travel},
        "accuse": accused(order.get("accuse")),
        "kaffa": [card_name(c) for c in order.get("kaffa") or []],
        "demand": [
            {"from": d["from"], "card": card_name(d["card"])} for d in order.get("demand") or []
        ],
        "pardon": [
            {"vizir": _kind_only(p["vizir"]), "city": city_name(p["city"])}
            for p in order.get("pardon") or []
        ],
        "trades": [
            {"with": t["with"], "give": card_name(t["give"]), "get": card_name(t["get"])}
            for t in order.get("trades") or []
        ],
    }


def _kind_only(value: Any) -> str:
    return str(value).strip().rpartition(".")[2]


def forfeit_order(context: Mapping[str, Any]) -> Order:
    """P25: the order of a seat that committed to an order and did not reveal it: the default
    order (C16: every movable vizir stays, no accusation, no standing instructions), except where
    staying is not legal (round 1 under ``first_round_all_travel``): then every vizir goes to
    Kaffa, where none is alone, so none collects."""
    places = {kind: info.get("place") for kind, info in (context.get("vizirs") or {}).items()}
    order = default_order(places)
    if context.get("round") == 1 and context.get("first_round_all_travel"):
        order["travel"] = {kind: KAFFA for kind in order["travel"]}
    return order


def default_order(vizirs: Mapping[str, Any]) -> Order:
    """C16: every movable vizir stays; no accusation; no standing instructions."""
    return {
        "travel": {k: "stay" for k in KINDS if k in vizirs and _can_move(vizirs[k])},
        "accuse": None,
        "kaffa": [],
        "demand": [],
        "pardon": [],
        "trades": [],
    }
