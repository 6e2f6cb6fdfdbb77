"""A player's own check of an order file against the order form they were sent: no game
directory, no signature. It imports only what judging one order needs, so that a valid order is
checked without loading the schemas."""

from __future__ import annotations

from pathlib import Path

from adjudicator.engine.forms import read_form_file
from adjudicator.engine.orders import (
    Refusal,
    Submission,
    check_envelope,
    game_problems,
    order_and_signature,
    parse,
)
from adjudicator.rules.contract import Reason
from adjudicator.rules.lang import DEFAULT
from adjudicator.rules.verdict import Verdict


def check(order_path: Path, form_path: Path) -> Verdict:
    """A player's own check of an order file against the form they were sent (no signature)."""
    label = str(order_path)
    game, form = read_form_file(form_path)  # InputRefused when the form is damaged
    lang = form.get("lang", DEFAULT)
    try:
        received, _ = order_and_signature(Submission(order_path, None))
    except Refusal as refusal:
        return Verdict(
            label,
            False,
            reasons=[Reason(refusal.reason)],
            game=game,
            lang=lang,
        )
    parsed = parse(received, game)
    if parsed.data is None:
        return Verdict(label, False, reasons=parsed.reasons, game=game, lang=lang)
    if check_envelope(parsed, form["id"], form["player"], form["turn"]):
        game_problems(parsed, game, form["context"])
    return Verdict(
        label,
        parsed.ok,
        form["player"],
        form["turn"],
        reasons=parsed.reasons,
        notes=parsed.notes,
        game=game,
        lang=lang,
    )
