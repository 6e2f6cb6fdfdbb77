"""At the Sultan's Court's pictures, drawn from a reader's view alone.

``court``: the ring of the twelve court positions around the Sultan, each seat with its vote
marker's number, the favoured seat (position 0) ringed in gold, each vizir at court as a token in
its player's colour (small: a small disc, fat: a wide oval, big: a large disc), the position
numbers outside the ring and an arrow for the clockwise move at the end of each round.

``places``: the seven cities in the rulebook's order with the cards each stack holds (as many as
the view counts; Kaffa's cards drawn face down) and the vizirs there, then the three dungeons and
the Island of Banishing with theirs.

The pictures hold no words but proper names (the cities) and numbers, so they are the same in
every language; players are told apart by colour, and the page around the pictures names them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from adjudicator.present.pictures import drawn_from, png

CITIES = ["Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan"]
DUNGEONS = ["dungeon1", "dungeon2", "dungeon3"]
KINDS = ["fat", "small", "big"]

BACKGROUND = (255, 253, 248)
INK = (43, 33, 24)
FAINT = (150, 135, 115)
GOLD = (201, 150, 40)
SEAT = (240, 228, 204)
CARD = (250, 246, 236)
CARD_BACK = (120, 60, 50)
STONE = (110, 105, 100)
WATER = (170, 205, 225)
SAND = (236, 214, 160)
COLOURS = {
    "red": (200, 40, 40),
    "yellow": (235, 190, 20),
    "green": (40, 150, 60),
    "blue": (40, 90, 200),
}
OTHER = (128, 128, 128)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _colour(view: Mapping[str, Any], vizir: str) -> tuple[int, int, int]:
    player = vizir.rpartition(".")[0]
    return COLOURS.get(view["colours"].get(player, ""), OTHER)


def _token(draw: ImageDraw.ImageDraw, x: float, y: float, kind: str, fill: tuple[int, ...]) -> None:
    """A vizir centred on (x, y): small a small disc, fat a wide oval, big a large disc."""
    rx, ry = {"small": (6, 6), "fat": (12, 8), "big": (11, 11)}.get(kind, (8, 8))
    draw.ellipse((x - rx, y - ry, x + rx, y + ry), fill=fill, outline=INK, width=1)


def _kind(vizir: str) -> str:
    return vizir.rpartition(".")[2]


def _text(
    draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: tuple[int, ...]
) -> None:
    draw.text((x, y), text, font=_font(size), fill=fill, anchor="mm")


def _finish(image: Image.Image) -> bytes:
    """Few colours make small files: the picture in a palette of its own colours (deterministic).
    The fast octree, without dithering, keeps the same flat colours as median cut with
    Floyd-Steinberg did, in a tenth of the time (that was most of the time of this game's site)."""
    fast = Image.Quantize.FASTOCTREE
    return png(image.quantize(colors=48, method=fast, dither=Image.Dither.NONE))


@drawn_from("court", "colours")
def court(view: Mapping[str, Any]) -> bytes:
    size = 400
    image = Image.new("RGB", (size, size), BACKGROUND)
    draw = ImageDraw.Draw(image)
    cx = cy = size / 2
    ring, seat_r = 152, 22
    # The clockwise move at the end of each round: an arc inside the ring and its head.
    arc = 78
    draw.arc((cx - arc, cy - arc, cx + arc, cy + arc), -60, 200, fill=FAINT, width=3)
    end = math.radians(200)
    hx, hy = cx + arc * math.cos(end), cy + arc * math.sin(end)
    tx, ty = -math.sin(end), math.cos(end)  # the clockwise tangent on screen
    nx, ny = math.cos(end), math.sin(end)
    draw.polygon(
        [
            (hx + tx * 12, hy + ty * 12),
            (hx - nx * 8, hy - ny * 8),
            (hx + nx * 8, hy + ny * 8),
        ],
        fill=FAINT,
    )
    # The Sultan on his throne in the middle, facing his court.
    draw.ellipse((cx - 34, cy - 34, cx + 34, cy + 34), fill=SAND, outline=GOLD, width=3)
    draw.polygon(
        [
            (cx - 18, cy + 8),
            (cx - 18, cy - 12),
            (cx - 9, cy - 2),
            (cx, cy - 18),
            (cx + 9, cy - 2),
            (cx + 18, cy - 12),
            (cx + 18, cy + 8),
        ],
        fill=GOLD,
        outline=INK,
    )
    for row in view["court"]:
        position = row["position"]
        angle = math.radians(position * 30 - 15 - 90)
        x, y = cx + ring * math.cos(angle), cy + ring * math.sin(angle)
        if position == 0:
            draw.ellipse(
                (x - seat_r - 5, y - seat_r - 5, x + seat_r + 5, y + seat_r + 5),
                fill=GOLD,
            )
        draw.ellipse(
            (x - seat_r, y - seat_r, x + seat_r, y + seat_r), fill=SEAT, outline=INK, width=2
        )
        # The vote marker's number on the seat, the vizir sitting on it just inside the ring.
        _text(draw, x, y, str(row["seat"]), 16, INK)
        if row["vizir"]:
            inward = seat_r + 12
            vx, vy = x - inward * math.cos(angle), y - inward * math.sin(angle)
            _token(draw, vx, vy, _kind(row["vizir"]), _colour(view, row["vizir"]))
        px, py = cx + (ring + 40) * math.cos(angle), cy + (ring + 40) * math.sin(angle)
        _text(draw, px, py, str(position), 12, FAINT)
    return _finish(image)


def _stack(draw: ImageDraw.ImageDraw, x: float, y: float, count: int, face_down: bool) -> None:
    """``count`` cards as a small pile with its number; an empty place when there are none."""
    w, h = 34, 46
    if count == 0:
        draw.rectangle((x - w / 2, y, x + w / 2, y + h), outline=FAINT, width=1)
    for i in range(min(count, 4)):
        offset = (min(count, 4) - 1 - i) * 3
        box = (x - w / 2 + offset, y - offset, x + w / 2 + offset, y + h - offset)
        draw.rectangle(box, fill=CARD_BACK if face_down else CARD, outline=INK, width=1)
    _text(draw, x, y + h / 2, str(count), 16, BACKGROUND if face_down and count else INK)


def _tokens(
    draw: ImageDraw.ImageDraw,
    view: Mapping[str, Any],
    vizirs: list[str],
    x: float,
    y: float,
    per_row: int = 3,
) -> None:
    """Vizirs in rows of ``per_row`` centred on ``x``, from ``y`` down."""
    for i, vizir in enumerate(vizirs):
        row, col = divmod(i, per_row)
        in_row = min(per_row, len(vizirs) - row * per_row)
        tx = x + (col - (in_row - 1) / 2) * 28
        _token(draw, tx, y + row * 24, _kind(vizir), _colour(view, vizir))


def _order(vizirs: list[str], players: list[str]) -> list[str]:
    """By seating order of their players, then by kind: the same place, the same picture."""

    def key(vizir: str) -> tuple[int, int, str]:
        player, _, kind = vizir.rpartition(".")
        return (
            players.index(player) if player in players else len(players),
            KINDS.index(kind) if kind in KINDS else len(KINDS),
            vizir,
        )

    return sorted(vizirs, key=key)


@drawn_from("players", "vizirs", "cities", "dungeons", "island", "colours")
def places(view: Mapping[str, Any]) -> bytes:
    width, height = 680, 340
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    players = list(view["players"])
    where: dict[str, list[str]] = {}
    for vizir, place in view["vizirs"].items():
        where.setdefault(str(place), []).append(vizir)
    column = width / len(CITIES)
    for i, city in enumerate(CITIES):
        x = column * i + column / 2
        draw.rectangle((column * i + 3, 4, column * (i + 1) - 3, 205), outline=SEAT, width=2)
        _text(draw, x, 18, city, 14, INK)
        info = view["cities"].get(city, {"size": 0})
        _stack(draw, x, 46, int(info["size"]), city == "Kaffa")
        _tokens(draw, view, _order(where.get(city, []), players), x, 118)
    # The three dungeons, then the Island of Banishing.
    top = 214
    for i, dungeon in enumerate(DUNGEONS):
        left = 10 + i * 140
        draw.rectangle((left, top, left + 128, top + 116), fill=STONE, outline=INK, width=2)
        for bar in range(1, 6):
            bx = left + bar * 128 / 6
            draw.line((bx, top + 30, bx, top + 112), fill=(80, 76, 72), width=2)
        draw.ellipse((left + 50, top + 4, left + 78, top + 26), fill=BACKGROUND, outline=INK)
        _text(draw, left + 64, top + 15, str(i + 1), 14, INK)
        vizir = view["dungeons"].get(dungeon)
        if vizir:
            _tokens(draw, view, [vizir], left + 64, top + 70)
    left = 440
    draw.rectangle((left, top, width - 10, top + 116), fill=WATER, outline=INK, width=2)
    draw.ellipse((left + 16, top + 14, width - 26, top + 104), fill=SAND, outline=GOLD, width=2)
    island = _order(list(view["island"]), players)
    _tokens(draw, view, island, (left + width - 10) / 2, top + 46, per_row=5)
    return _finish(image)


def draw(doc: Mapping[str, Any], lang: str) -> dict[str, bytes]:
    """The court and the places of ``doc``'s view, the same in every language."""
    view = doc["view"]
    return {"court": court(view), "places": places(view)}
