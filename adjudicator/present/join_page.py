"""The join page: one self-contained HTML file that ``open`` writes beside the announcement,
for the game master to post with it, with which a player joins an open game from the browser
(docs/join-page.md).

It reads the player's OpenSSH Ed25519 private key file, or makes a new key, writes the join file
``adjudicator join`` writes (the ``.pub`` line derived from the private key, a share of 128
random bits drawn in the page) and signs it with that key, as the notice page signs a notice.
It checks what a join must be (a name the game could seat, an address, a key); the rest (a name
or key taken, the seats left) is judged when the join comes in. The page holds what the
announcement says and nothing else: never the seed, only its commitment.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from adjudicator.present.order_page import CSP, page_script
from adjudicator.present.reports import report_environment
from adjudicator.present.words import say
from adjudicator.rules import schedule
from adjudicator.rules.contract import Game, msg
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.names import RESERVED_READERS
from adjudicator.signing.sshsig import NAMESPACE

LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands", "fr": "Français"}
"""Each language by its own name, as a player who reads it looks for it."""


def page_name(game_id: str) -> str:
    """The join page's file name, as ``open`` writes it and the announcement names it."""
    return f"{game_id}-join.html"


def render_join_page(meta: dict[str, Any], game: Game, address: str, lang: str) -> str:
    """The join page of the open game ``meta`` in ``lang``: joins go to ``address``."""
    game_id = str(meta["id"])
    signup = meta["signup"]
    until = signup.get("until")
    zone = schedule.game_zone(meta)
    data = {
        "id": game_id,
        "namespace": NAMESPACE,
        "address": address,
        "answers": None,
        "subject": f"[{game_id}] join",
        "file": f"{game_id}-join.yaml",
        "keyfile": f"{game_id}-key",
        "reserved": sorted(RESERVED_READERS),
    }
    return (
        report_environment(game, lang)
        .get_template("join_page.html.j2")
        .render(
            csp=CSP,
            game_id=game_id,
            title=say(msg("game-title", title=game.title), game, lang),
            fewest=signup["seats"]["min"],
            most=signup["seats"]["max"],
            approve=signup["seating"] == "approve",
            seated=", ".join(str(p["name"]) for p in meta["players"]),
            until=None if until is None else schedule.shown(datetime.fromisoformat(until), zone),
            deadline=meta.get("deadline"),
            address=address,
            commitment=meta["commitment"],
            languages=[(code, LANGUAGE_NAMES[code]) for code in LANGUAGES],
            game_lang=str(meta.get("lang") or "en"),
            keyfile=data["keyfile"],
            data=json.dumps(data, sort_keys=True, ensure_ascii=False).replace("<", "\\u003c"),
            script=page_script("_join_page.js"),
        )
    )
