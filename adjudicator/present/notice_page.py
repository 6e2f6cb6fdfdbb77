"""The notice page: one self-contained HTML file attached to each welcome mail, with which a
player writes and signs a notice (press, an absence, a vote) in the browser, as the order page
signs an order (docs/order-page.md).

It offers only the notices the game takes (no press under ``press: none``, press to everyone
alone under ``press: public``, no absence under ``absence: none``) and the values each allows;
what only the adjudicator can judge (an absence in the past, the days left) is judged when the
notice comes in, and its receipt says why it was refused. The page holds nothing secret: the
game's id, the player's name, the other players' names and the options, as the welcome does.
"""

from __future__ import annotations

import json
from typing import Any

from adjudicator.engine.notices import MAX_PRESS_CHARS
from adjudicator.present.order_page import CSP, page_script
from adjudicator.present.reports import report_environment
from adjudicator.rules.contract import Game
from adjudicator.signing.sshsig import NAMESPACE


def render_notice_page(
    game: Game,
    game_id: str,
    player: str,
    players: list[str],
    options: dict[str, Any],
    lang: str,
    address: str,
    answers: str | None = None,
    registered: str | None = None,
    share: bool = False,
) -> str:
    """``player``'s notice page in ``lang``: ``players`` are the seats still playing, ``options``
    the game's effective options (``press``, ``absence``), ``address`` where notices go; its
    ``mailto:`` link answers the mail whose Message-ID is ``answers`` (None: no mail); the page
    signs only with the key ``registered`` (:func:`registered_key`; None: any). With ``share``
    the page makes the player's share of the deal alone (``shares: ask``, before the deal)."""
    kinds = ["vote"]
    if options.get("absence", "none") != "none":
        kinds.insert(0, "absence")
    press = options.get("press", "none")
    if press != "none":
        kinds.insert(0, "press")
    if share:
        kinds = ["share"]
    others = [] if press == "public" else [p for p in players if p != player]
    data = {
        "id": game_id,
        "player": player,
        "namespace": NAMESPACE,
        "address": address,
        "answers": answers,
        "registered": registered,
        "subject": f"[{game_id}] notice",
        "file": f"{game_id}-{{kind}}-{player}.yaml",
        "keyfile": f"{game_id}-{player}",
        "press_max": MAX_PRESS_CHARS,
    }
    return (
        report_environment(game, lang)
        .get_template("notice_page.html.j2")
        .render(
            csp=CSP,
            game=game,
            game_id=game_id,
            player=player,
            kinds=kinds,
            others=others,
            press_max=MAX_PRESS_CHARS,
            keyfile=data["keyfile"],
            data=json.dumps(data, sort_keys=True, ensure_ascii=False).replace("<", "\\u003c"),
            script=page_script("_notice_page.js"),
        )
    )
