"""Hashes in words: the chain head, the seed commitment, and what opens it once the game is over.

A hash a reader sees is printed through one template macro, ``hash`` of
``templates/common/_hash.j2``, and nowhere else, so that it has one findable shape
(docs/presentation.md): in text ``#`` and the hex digits (a chain head's first 32, a
commitment's 64), in HTML ``<code class="hash">`` and all 64 digits ``</code>``. A message that
holds a hash gets it as a :class:`Hash` parameter; the templates' ``say`` filter, given the
macro (``line | say(hash)``), puts the macro's output in its place.

Every report, page, form and receipt shows the chain head as it stands when it is rendered (the
caller passes it: None shows none). A report of turn 1 and a report of a finished game show the
seed commitment of the view; a report of a finished game shows the seed and salt that open it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adjudicator.rules.contract import Msg, msg

HEX = re.compile(r"[0-9a-f]{64}")
TEXT_HEAD_DIGITS = 32
"""A text shows a chain head's first 32 hex digits (128 bits); HTML shows all 64."""


@dataclass(frozen=True)
class Hash:
    """A hash to print through the macro: 64 hex digits, of which a text shows ``digits``."""

    hex: str
    digits: int = 64

    def __post_init__(self) -> None:
        if not HEX.fullmatch(self.hex):
            raise ValueError(f"not a hash of 64 hex digits: {self.hex!r}")


def head_line(head: str) -> Msg:
    return msg("chain-head", head=Hash(head, TEXT_HEAD_DIGITS))


def chain(doc: dict[str, Any], head: str | None, *, every_turn: bool = False) -> list[Msg]:
    """What a report of the stored view ``doc`` says to let its reader check the game: the
    chain head ``head`` (None: none); the seed commitment in turn 1, once the game is over, or
    ``every_turn`` (the site's index); the seed and salt once the game is over."""
    lines = [] if head is None else [head_line(head)]
    commitment = doc.get("commitment")
    if commitment and (doc["turn"] == 1 or doc["over"] or every_turn):
        lines.append(msg("seed-commitment", commitment=Hash(commitment)))
    if commitment and doc.get("salt"):
        lines.append(msg("seed-revealed", seed=str(doc["seed"]), salt=doc["salt"]))
        lines.append(msg("seed-check"))
    return lines


def say_filter(
    said: Callable[[Any], str],
) -> Callable[..., Any]:
    """The templates' ``say`` filter over ``said`` (a message in words): ``message | say`` as
    ``said`` gives it; ``message | say(hash)`` with each :class:`Hash` parameter printed by the
    macro ``hash``, in HTML as markup (the words around it escaped)."""
    import jinja2
    from markupsafe import Markup, escape

    @jinja2.pass_eval_context
    def say(context: Any, message: Any, macro: Any = None) -> Any:
        if macro is None or not isinstance(message, Msg):
            return said(message)
        hashes: dict[str, Hash] = {}
        params: dict[str, Any] = {}
        for name, value in message.params.items():
            if isinstance(value, Hash):
                token = f"\x00{len(hashes)}\x00"
                hashes[token] = value
                value = token
            params[name] = value
        text = said(Msg(message.code, params))
        html = bool(context.autoescape)
        if html:
            text = str(escape(text))
        for token, value in hashes.items():
            text = text.replace(token, str(macro(value.hex, html=html, digits=value.digits)))
        return Markup(text) if html else text

    return say
