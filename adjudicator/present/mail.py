"""The words of the mail the adjudicator writes itself: receipts, notices, reminders, digests.

(The report mails are reports: :mod:`adjudicator.present.reports`.) The mail modules hand over
plain facts; this module turns them into a subject and a body. A body is a Jinja template of
``templates/common/mail/`` (``receipt.txt.j2``, ``set-aside.txt.j2``, ...), a subject the text
of a code of ``templates/common/texts/mail.yaml`` (``mail-...-subject``).

Text from an incoming message (a file name, a sender, a subject) is a stranger's choice: the
mail modules escape it (:mod:`adjudicator.mail.quoting`) before it becomes a fact here, and the
templates put it in as it comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

import jinja2

from adjudicator.contract import Game, Msg, Reason
from adjudicator.mail.quoting import one_line
from adjudicator.present.verdicts import placed
from adjudicator.present.words import say


@dataclass(frozen=True)
class Mail:
    """The words of one mail."""

    subject: str
    body: str


@cache
def _environment() -> jinja2.Environment:
    """The environment of ``templates/common/mail`` (set as the reports' one is)."""
    folder = files("adjudicator.templates") / "common" / "mail"
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def body(template: str, lang: str = "en", **facts: Any) -> str:
    """The body made by ``templates/common/mail/<template>`` from ``facts``."""
    return _environment().get_template(template).render(lang=lang, **facts)


def subject(message: Msg, game: Game | None = None, lang: str = "en") -> str:
    """A mail's subject: the words of a ``mail-...-subject`` code."""
    return say(message, game, lang)


def reason_lines(reasons: Sequence[Reason], game: Game | None, lang: str = "en") -> list[str]:
    """Each reason or note in words, as one line of printable characters."""
    return [one_line(placed(reason, game, lang)) for reason in reasons]


def receipt(
    *,
    game_id: str,
    name: str,
    turn: int | None,
    accepted: bool,
    replaces: bool = False,
    sha256: str | None = None,
    notes: Sequence[Reason] = (),
    reasons: Sequence[Reason] = (),
    order: str = "",
    in_effect_turn: int | None = None,
    in_effect: str | None = None,
    game: Game | None = None,
    lang: str = "en",
) -> Mail:
    """A receipt: the order's fate, to its signer only. ``name`` is the attachment's name,
    escaped; ``order`` the order in effect (accepted); ``in_effect`` the SHA-256 of the order in
    effect for ``in_effect_turn`` (refused), None when there is none."""
    fate = "accepted" if accepted else "refused"
    code = f"mail-receipt-{fate}{'' if turn is not None else '-no-turn'}-subject"
    text = body(
        "receipt.txt.j2",
        lang,
        game_id=game_id,
        name=name,
        turn=turn,
        accepted=accepted,
        replaces=replaces,
        sha256=sha256,
        notes=reason_lines(notes, game, lang),
        reasons=reason_lines(reasons, game, lang),
        order=order,
        in_effect_turn=in_effect_turn,
        in_effect=in_effect,
    )
    return Mail(subject(Msg(code, {"game": game_id, "turn": turn}), lang=lang), text)
