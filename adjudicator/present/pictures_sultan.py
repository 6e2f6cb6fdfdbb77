"""Sultan's pictures: the palace's cushions, the jewel collections, and the final scores.

Drawn from a stored view's ``view`` alone (what the reader may see), with no words: only
numbers, colours and the players' names, so a picture is the same in every language and the
HTML around it says what it shows (``templates/sultan/*.html.j2``).

- ``palace`` (while the game runs): the jewels drawn this round (the one returned crossed out),
  then each cushion with its number, the jewel offered on it and the cards placed on it, each
  with its player's name: a face-down card as a card back, a known card with its value;
- ``collection``: the reader's own jewels (a player who cannot see the others'), or a table of
  every player's jewels, a row each (when the view holds them all);
- ``scores`` (once the game is over): each player's total as a bar, in the order of the final
  table, made of the points of each colour and the bonus, with a star beside a winner's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from adjudicator.present.pictures import drawn_from, png

COLOURS = ["white", "red", "yellow", "green", "blue"]
VALUES = {"white": 1, "red": 2, "yellow": 3, "green": 4, "blue": 5}
GEMS = {
    "white": (214, 218, 232),
    "red": (200, 40, 48),
    "yellow": (236, 192, 40),
    "green": (40, 150, 80),
    "blue": (40, 90, 200),
}
INK = (43, 33, 24)
PAPER = (255, 253, 248)
FAINT = (150, 138, 120)
CUSHION = (122, 36, 74)
CUSHION_EDGE = (84, 20, 50)
TASSEL = (214, 170, 60)
CARD = (250, 246, 236)
CARD_BACK = (52, 72, 120)
BONUS = (170, 140, 90)
MAX_WIDTH = 680


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _text_width(draw: ImageDraw.ImageDraw, text: str, size: int) -> int:
    left, _, right, _ = draw.textbbox((0, 0), text, font=_font(size))
    return int(right - left)


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> str:
    """``text`` cut short to fit in ``width`` pixels (a long name)."""
    while len(text) > 1 and _text_width(draw, text, size) > width:
        text = text[:-1]
    return text


def _centred(
    draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: Any
) -> None:
    draw.text((x, y), text, fill=fill, font=_font(size), anchor="mm")


def _gem(draw: ImageDraw.ImageDraw, x: float, y: float, r: float, colour: str) -> None:
    """A cut jewel (an octagon with a facet) centred on ``x``, ``y``."""
    fill = GEMS.get(colour, (128, 128, 128))
    k = r * 0.42
    points = [
        (x - k, y - r),
        (x + k, y - r),
        (x + r, y - k),
        (x + r, y + k),
        (x + k, y + r),
        (x - k, y + r),
        (x - r, y + k),
        (x - r, y - k),
    ]
    draw.polygon(points, fill=fill, outline=INK)
    shine = tuple(min(255, c + 70) for c in fill)
    draw.polygon(
        [(x - k, y - r), (x + k, y - r), (x + k * 0.6, y - k), (x - k * 0.6, y - k)], fill=shine
    )


def _card(
    draw: ImageDraw.ImageDraw, x: int, y: int, card: int | None, w: int = 30, h: int = 42
) -> None:
    """A card at ``x``, ``y`` (top left): its value, or its back when it lies face down."""
    if card is None:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=4, fill=CARD_BACK, outline=INK)
        draw.rounded_rectangle((x + 4, y + 4, x + w - 4, y + h - 4), radius=2, outline=TASSEL)
        _gem(draw, x + w / 2, y + h / 2, 5, "yellow")
    else:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=4, fill=CARD, outline=INK)
        _centred(draw, x + w / 2, y + h / 2, str(card), 15, INK)


def _star(draw: ImageDraw.ImageDraw, x: float, y: float, r: float) -> None:
    """A five-pointed star centred on ``x``, ``y``: the winner's mark."""
    points = []
    for i in range(10):
        angle = math.pi / 2 + i * math.pi / 5
        length = r if i % 2 == 0 else r * 0.45
        points.append((x + length * math.cos(angle), y - length * math.sin(angle)))
    draw.polygon(points, fill=TASSEL, outline=INK)


def _finish(image: Image.Image) -> bytes:
    """The PNG bytes, with few colours (small files); the fast octree finds the same few flat
    colours as median cut, in a quarter of the time."""
    fast = Image.Quantize.FASTOCTREE
    return png(image.quantize(colors=64, method=fast, dither=Image.Dither.NONE))


@drawn_from("offered", "cushions", "placements", "drawn", "returned")
def palace(view: Mapping[str, Any]) -> bytes:
    offered: list[str] | None = view.get("offered")
    count = len(offered) if offered is not None else int(view.get("cushions") or 0)
    placements: list[dict[str, Any]] = view.get("placements") or []
    on: dict[int, list[dict[str, Any]]] = {n: [] for n in range(1, count + 1)}
    for p in placements:
        on.setdefault(int(p["cushion"]), []).append(p)
    column = min(150, (MAX_WIDTH - 16) // max(1, count))
    width = min(MAX_WIDTH, 16 + column * max(1, count))
    drawn: list[str] = view.get("drawn") or []
    top = 40 if drawn else 8
    rows = max([len(cards) for cards in on.values()] + [0])
    height = top + 96 + (rows * 50 + 8 if rows else 0)
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    if drawn:
        returned = view.get("returned")
        crossed = drawn.index(returned) if returned in drawn else -1
        for i, jewel in enumerate(drawn):
            x, y = 24 + i * 30, 20
            _gem(draw, x, y, 11, jewel)
            if i == crossed:
                draw.line((x - 13, y - 13, x + 13, y + 13), fill=INK, width=3)
                draw.line((x - 13, y + 13, x + 13, y - 13), fill=INK, width=3)
        draw.line((8, top - 4, width - 8, top - 4), fill=FAINT, width=1)
    for n in range(1, count + 1):
        left = 8 + (n - 1) * column
        middle = left + column / 2
        box = (left + 6, top + 6, left + column - 6, top + 86)
        draw.rounded_rectangle(box, radius=14, fill=CUSHION, outline=CUSHION_EDGE, width=2)
        for cx, cy in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
            draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=TASSEL)
        draw.ellipse(
            (middle - 12, top + 10, middle + 12, top + 30), fill=PAPER, outline=CUSHION_EDGE
        )
        _centred(draw, middle, top + 20, str(n), 14, INK)
        if offered is not None:
            _gem(draw, middle, top + 56, 20, offered[n - 1])
        else:
            draw.ellipse((middle - 18, top + 38, middle + 18, top + 74), outline=TASSEL, width=2)
        for i, p in enumerate(on.get(n, [])):
            y = top + 96 + i * 50
            _card(draw, left + 8, y, p.get("card"))
            name = _fit(draw, str(p["player"]), 13, column - 52)
            draw.text((left + 44, y + 21), name, fill=INK, font=_font(13), anchor="lm")
    return _finish(image)


def _counts_row(draw: ImageDraw.ImageDraw, x: int, y: int, jewels: Mapping[str, int]) -> None:
    """Five gems from ``x``, each with how many are held beside it (faint when none)."""
    for i, colour in enumerate(COLOURS):
        held = int(jewels.get(colour, 0))
        gx = x + i * 60
        _gem(draw, gx + 12, y, 10, colour)
        draw.text((gx + 28, y), str(held), fill=INK if held else FAINT, font=_font(15), anchor="lm")


@drawn_from("collections", "collection", "players")
def collection(view: Mapping[str, Any]) -> bytes:
    everyone: Mapping[str, Mapping[str, int]] | None = view.get("collections")
    if everyone is None:
        image = Image.new("RGB", (16 + 5 * 60, 40), PAPER)
        _counts_row(ImageDraw.Draw(image), 8, 20, view.get("collection") or {})
        return _finish(image)
    players: list[str] = list(view["players"])
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    names = min(160, max(_text_width(probe, p, 14) for p in players) + 16)
    image = Image.new("RGB", (names + 16 + 5 * 60, 12 + 32 * len(players)), PAPER)
    draw = ImageDraw.Draw(image)
    for row, player in enumerate(players):
        y = 22 + row * 32
        if row % 2 == 0:
            draw.rectangle((0, y - 16, image.width, y + 15), fill=(246, 241, 231))
        name = _fit(draw, player, 14, names - 12)
        draw.text((8, y), name, fill=INK, font=_font(14), anchor="lm")
        _counts_row(draw, names + 8, y, everyone.get(player, {}))
    return _finish(image)


@drawn_from("result", "standings", "players")
def scores(view: Mapping[str, Any]) -> bytes:
    result = view["result"]["scores"]
    winners = set(view["result"].get("winners") or [])
    order = [row["player"] for row in view.get("standings") or []] or list(view["players"])
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    names = min(160, max(_text_width(probe, p, 14) for p in order) + 16)
    best = max([int(result[p]["total"]) for p in order] + [1])
    width = min(MAX_WIDTH, names + 420)
    span = width - names - 72
    image = Image.new("RGB", (width, 12 + 34 * len(order)), PAPER)
    draw = ImageDraw.Draw(image)
    for row, player in enumerate(order):
        score = result[player]
        y = 10 + row * 34
        draw.text(
            (8, y + 12), _fit(draw, player, 14, names - 12), fill=INK, font=_font(14), anchor="lm"
        )
        parts = [(GEMS[c], int(score["jewels"].get(c, 0)) * VALUES[c]) for c in COLOURS]
        parts.append((BONUS, int(score["bonus"])))
        if sum(points for _, points in parts) != int(score["total"]):
            parts = [(CUSHION, int(score["total"]))]
        x = float(names)
        for fill, points in parts:
            if points <= 0:
                continue
            end = x + span * points / best
            draw.rectangle((round(x), y, round(end), y + 24), fill=fill, outline=INK)
            x = end
        total = str(score["total"])
        draw.text((round(x) + 8, y + 12), total, fill=INK, font=_font(15), anchor="lm")
        if player in winners:
            _star(draw, round(x) + 20 + _text_width(draw, total, 15), y + 12, 9)
    return _finish(image)


def draw(doc: Mapping[str, Any], lang: str) -> dict[str, bytes]:
    """Each picture of ``doc``'s view by name; ``lang`` is not used (the pictures hold no words)."""
    view = doc["view"]
    pictures: dict[str, bytes] = {}
    if not view.get("over"):
        pictures["palace"] = palace(view)
    if view.get("collections") is not None or view.get("collection") is not None:
        pictures["collection"] = collection(view)
    if view.get("over") and view.get("result"):
        pictures["scores"] = scores(view)
    return pictures
