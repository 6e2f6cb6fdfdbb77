"""Reports as HTML pages with pictures, from the same stored views as the text reports.

A game's HTML templates are ``player.html.j2``, ``public.html.j2`` and ``gm.html.j2`` beside
its text ones; they say what the text says, from the same view, and show pictures of it
(:mod:`adjudicator.present.pictures`). A game without HTML templates gets its text report in a
page. Pages are made for mail clients: styles inline, tables, no scripts, nothing fetched from
anywhere. A picture is referred to as a ``data:`` URI (``report --format html``) or as a
``cid:`` part of the mail (``embed="cid"``), or as a file beside the page (``embed="file"``:
``pictures/<digest>.png``, :func:`picture_file`, for the static site), the same PNG bytes
every way. A page ends with what lets its reader check the game (the chain head passed as
``head``, the seed commitment...; ``_chain.html.j2`` in ``_page.html.j2``), hashes in full.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from markupsafe import Markup

from adjudicator.present.deferred import Deferred
from adjudicator.present.hashes import chain
from adjudicator.present.pictures import CID_DOMAIN, drawer
from adjudicator.present.reports import (
    form_of_view,
    game_info,
    press_facts,
    render_view,
    report_environment,
)
from adjudicator.rules.contract import Game
from adjudicator.rules.lang import DEFAULT

Embed = Literal["data", "cid", "file"]

_TEMPLATES = {"gm": "gm.html.j2", "public": "public.html.j2"}


def picture_file(data: bytes) -> str:
    """The relative path of a picture written beside a page: named after its bytes, so the
    same picture is one file however many pages show it."""
    return f"pictures/{hashlib.sha256(data).hexdigest()[:24]}.png"


@dataclass(frozen=True)
class Page:
    """An HTML report and the pictures it shows, by name (PNG bytes)."""

    html: str
    pictures: dict[str, bytes] = field(default_factory=dict)


def render_page(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    lang: str = DEFAULT,
    embed: Embed = "data",
    head: str | None = None,
    press: list[dict[str, Any]] | None = None,
    away: list[Any] | None = None,
    answer: str | None = None,
) -> Page:
    """The HTML report of a stored view (:func:`adjudicator.rules.views.reader_view`) in ``lang``,
    with the chain head ``head`` (None: none), the ``press`` the reader received during the
    turn before (``_press.html.j2``, before the chain) and who is away until when (``away``).
    ``answer``: how to answer, a block of HTML (:func:`adjudicator.present.welcome.answer_html`)
    shown after the report, to which the form's heading then points."""
    env = report_environment(game, lang)
    name = _TEMPLATES.get(doc["reader"], "player.html.j2")
    template = env.select_template([name, "fallback.html.j2"])
    draw = drawer(game)
    drawn = draw(doc, lang) if draw is not None else {}
    used: dict[str, bytes] = {}

    def picture(key: str) -> str:
        used[key] = drawn[key]
        if embed == "cid":
            return f"cid:{key}@{CID_DOMAIN}"
        if embed == "file":
            return picture_file(drawn[key])
        return "data:image/png;base64," + base64.b64encode(drawn[key]).decode("ascii")

    html = template.render(
        game=game_info(game, meta, doc["over"]),
        turn=doc["turn"],
        owed=doc["owed"],
        view=doc["view"],
        reader=doc["reader"],
        form=form_of_view(game, meta, doc, lang, head),
        orders=doc.get("orders"),
        ended=doc.get("ended"),
        conceded=doc.get("conceded"),
        forfeited=doc.get("forfeited"),
        text=Deferred(
            partial(
                render_view,
                game,
                meta,
                doc,
                lang,
                head,
                checking=False,
                answering=answer is not None,
            )
        ),
        answering=answer is not None,
        answer_block=Markup(answer) if answer is not None else None,
        chain=chain(doc, head),
        press=press_facts(press, doc["turn"]) if press else None,
        away=away or [],
        picture=picture,
        pictures=sorted(drawn),
        sizes={
            k: (int.from_bytes(v[16:20], "big"), int.from_bytes(v[20:24], "big"))
            for k, v in drawn.items()
        },
    )
    return Page(html, used)


def report_page(
    root: Path,
    reader: str,
    turn: int | None = None,
    lang: str | None = None,
    head: str | None = None,
) -> Page:
    """``reader``'s HTML report as turn ``turn`` (default: the current one) opened, with the
    chain head ``head`` (None: none)."""
    from adjudicator.engine import absences
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.press import received_during
    from adjudicator.engine.queries import stored_view
    from adjudicator.rules.lang import lang_of

    handle = OpenGame(root)
    doc = stored_view(handle, reader, turn)
    press = received_during(root, reader, handle.meta, doc["turn"])
    away = absences.lines(handle) if turn in (None, handle.turn()) else []
    return render_page(
        handle.game,
        handle.meta,
        doc,
        lang or lang_of(handle.meta, reader),
        head=head,
        press=press,
        away=away,
    )
