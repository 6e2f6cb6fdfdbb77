"""Sultan's ``validate`` takes a short way for the common valid order (checks._plainly_valid):
it must give exactly the problems of the full check for every context and order, valid
or not, near-valid or junk."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from adjudicator.games.sultan import checks
from adjudicator.games.sultan.checks import _plainly_valid, _problems, validate

ODD = st.sampled_from([True, False, None, 0, 7.0, "7", "", "white", "Red", " red", "weiß", -1, 4])
SMALL = st.one_of(st.integers(-1, 16), ODD)
SEQUENCES = st.one_of(
    st.lists(SMALL, max_size=6),
    st.tuples(SMALL, SMALL),
    st.sampled_from(["", "white red", "17", None, {1: 1}, 3]),
)
COLOURS = st.sampled_from([*checks.ORDER_COLOURS, "weiß", "Blue", " red ", "purple", "", "x"])
CONTEXTS = st.fixed_dictionaries(
    {},
    optional={
        "to_do": st.sampled_from(["return", "bid", "bids", None, "place", 1]),
        "hand": st.one_of(st.lists(st.integers(1, 15), max_size=6), SEQUENCES),
        "cushions": st.one_of(st.integers(0, 4), ODD),
        "drawn": st.one_of(st.lists(COLOURS, max_size=4), SEQUENCES),
        "used_cushions": st.one_of(st.lists(st.integers(0, 4), max_size=3), SEQUENCES),
    },
)
BIDS = st.one_of(
    st.fixed_dictionaries({"cushion": SMALL, "card": SMALL}),
    st.fixed_dictionaries({}, optional={"cushion": SMALL, "card": SMALL, "extra": SMALL}),
    SMALL,
)
ORDERS = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "return": st.one_of(COLOURS, SMALL),
            "bid": BIDS,
            "bids": st.one_of(st.lists(BIDS, max_size=3), BIDS),
            "id": st.text(max_size=2),
            "player": st.text(max_size=2),
            "turn": SMALL,
            "other": SMALL,
        },
    ),
    SMALL,
    st.lists(SMALL, max_size=2),
)


# near_valid's parts, made once: a strategy made inside the draw is made (and checked) again
# for every example, which took most of the time the test took
TO_DO = st.sampled_from(["return", "bid"])
HAND = st.lists(st.one_of(st.integers(1, 15), ODD), min_size=1, max_size=6)
DRAWN = st.lists(COLOURS, min_size=1, max_size=4)
CUSHIONS = st.one_of(st.integers(1, 3), ODD)
USED = st.lists(st.integers(1, 3), max_size=2)
PLACE = st.integers(0, 5)
"""A place in the hand or the jewels drawn (at most six), taken modulo their length."""
NEAR_CUSHION = st.one_of(st.integers(1, 3), SMALL)
EXTRA = st.sampled_from([None, "id", "turn", "bid", "return", "bids", "other"])


@st.composite
def near_valid(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    """A well-formed context and an order that is mostly valid for it, now and then one part
    off (a bool or float for a number, a card not held, a used cushion, an extra key)."""
    to_do = draw(TO_DO)
    hand = draw(HAND)
    drawn = draw(DRAWN)
    context = {
        "to_do": to_do,
        "hand": hand,
        "cushions": draw(CUSHIONS),
        "drawn": drawn,
        "used_cushions": draw(USED),
    }
    if to_do == "return":
        # one of the jewels drawn, or any colour
        colour = drawn[draw(PLACE) % len(drawn)] if draw(st.booleans()) else draw(COLOURS)
        order: dict[str, Any] = {"return": colour}
    else:
        # a card of the hand, or any small value
        card = hand[draw(PLACE) % len(hand)] if draw(st.booleans()) else draw(SMALL)
        cushion = draw(NEAR_CUSHION)
        order = {"bid": {"cushion": cushion, "card": card}}
        if draw(st.booleans()):
            order["bid"] = {"card": card, "cushion": cushion}
    extra = draw(EXTRA)
    if extra is not None:
        order[extra] = draw(SMALL)
    return context, order


@pytest.mark.slow  # 3,000 examples (`make quick` leaves it out)
@settings(max_examples=3000, deadline=None)
@given(case=near_valid())
def test_the_short_way_near_valid_orders(case: tuple[dict[str, Any], Any]) -> None:
    context, order = case
    full = _problems(context, order)
    assert validate(context, order) == full
    short = _plainly_valid(context, order)
    event(f"short way: {short}")
    if short:
        assert full == []


@pytest.mark.slow  # 3,000 examples (`make quick` leaves it out)
@settings(max_examples=3000, deadline=None)
@given(context=CONTEXTS, order=ORDERS)
def test_the_short_way_gives_the_full_checks_problems(context: dict[str, Any], order: Any) -> None:
    try:
        full = _problems(context, order)
    except TypeError:  # a context its model refuses (``drawn: 3``) fails the same either way
        with pytest.raises(TypeError):
            validate(context, order)
        return
    assert validate(context, order) == full
    short = _plainly_valid(context, order)
    event(f"short way: {short}")
    if short:
        assert full == []


def test_the_short_way_takes_the_common_orders() -> None:
    context = {"to_do": "bid", "hand": [3, 9], "cushions": 3, "drawn": [], "used_cushions": [2]}
    assert _plainly_valid(context, {"bid": {"cushion": 1, "card": 9}, "turn": 4})
    assert not _plainly_valid(context, {"bid": {"cushion": 2, "card": 9}})
    assert not _plainly_valid(context, {"bid": {"cushion": 1, "card": True}})
    context = {"to_do": "return", "hand": [], "cushions": 3, "drawn": ["red", "blue"]}
    assert _plainly_valid(context, {"return": "blue"})
    assert not _plainly_valid(context, {"return": "Blue"})  # valid, checked in full
    assert validate(context, {"return": "Blue"}) == []
