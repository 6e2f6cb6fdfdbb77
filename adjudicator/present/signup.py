"""The words of an open game's sign-up (docs/signup.md): the announcement ``open`` prints, and
the mail ``send`` queues for it (the confirmation request, a seat taken, a join refused, a game
that did not start)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adjudicator.present.mail import body, subject
from adjudicator.present.words import say
from adjudicator.rules import schedule
from adjudicator.rules.contract import Game, Msg, msg


@dataclass
class Words:
    """A sign-up mail as worded: its subject and text."""

    subject: str
    text: str


def announcement(meta: dict[str, Any], game: Game, address: str, page: str | None = None) -> str:
    """The announcement of the open game ``meta``, in the game's language: the game, its
    seats and options, how to join by mail at ``address`` (or with the join page posted with
    it, the file ``page``), the seed's commitment."""
    lang = str(meta.get("lang") or "en")
    signup = meta["signup"]
    zone = schedule.game_zone(meta)
    until = signup.get("until")
    return body(
        "announcement_signup.txt.j2",
        lang,
        game_id=meta["id"],
        title=say(msg("game-title", title=game.title), game, lang),
        fewest=signup["seats"]["min"],
        most=signup["seats"]["max"],
        approve=signup["seating"] == "approve",
        seated=", ".join(p["name"] for p in meta["players"]),
        until=None if until is None else schedule.shown(datetime.fromisoformat(until), zone),
        deadline=meta.get("deadline"),
        options=[f"{k}: {_value(v)}" for k, v in sorted(meta["options"].items())],
        address=address,
        commitment=meta["commitment"],
        page=page,
    )


def signup_mail(kind: str, meta: dict[str, Any], game: Game, lang: str, **facts: Any) -> Words:
    """One mail of the sign-up, of ``kind`` (``confirm``, ``seated``, ``refused``,
    ``closed``), in ``lang``."""
    signup = meta["signup"]
    until = signup.get("until")
    zone = schedule.game_zone(meta)
    said = {
        "kind": kind,
        "game_id": meta["id"],
        "title": say(msg("game-title", title=game.title), game, lang),
        "fewest": signup["seats"]["min"],
        "most": signup["seats"]["max"],
        "until": None if until is None else schedule.shown(datetime.fromisoformat(until), zone),
        "name": None,
        "code": None,
        "fingerprint": None,
        "words": None,
        "why": None,
        "taken": None,
        "seated": None,
        **facts,
    }
    text = body("signup.txt.j2", lang, **said)
    about = Msg(SUBJECTS[kind], {"game": meta["id"], "code": said["code"]})
    return Words(subject(about, game, lang), text)


SUBJECTS = {
    "confirm": "mail-signup-confirm-subject",
    "seated": "mail-signup-seated-subject",
    "refused": "mail-signup-refused-subject",
    "closed": "mail-signup-closed-subject",
}
"""The subject of each kind of sign-up mail."""


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
