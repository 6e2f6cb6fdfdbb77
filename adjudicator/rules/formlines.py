"""The lines an order form carries for ``check --form`` (written by the presentation layer,
read back by :mod:`adjudicator.engine.forms`): kept apart so that writing a form loads no schema."""

from __future__ import annotations

import json
import re
from typing import Any

FORM_MARK = "# adjudicator-form: "
FORM_WIDTH = 72
"""No line of a form is longer (docs/reports.md: mail clients hard-wrap longer lines)."""


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"[:,]?|[{\[]|[}\]]+,?|[^{}\[\]",]+,?')
"""A piece of compact JSON that a line may end after: a string with the ``:`` or ``,`` after
it, an opening bracket, closing brackets with their ``,``, or a number or literal with its
``,``."""
_SOFT = re.compile(r"[-_./@]")
"""Where a string longer than a line may be cut, if it must: after one of these."""


def carried_lines(carried: dict[str, Any]) -> list[str]:
    """What a form carries for ``check --form``: compact JSON over as many ``FORM_MARK`` lines
    as it takes, none longer than FORM_WIDTH and none starting or ending with a space (which
    mail and editors may drop). A line ends only between the pieces of the JSON (after a ``,``,
    a key's ``:`` or a bracket), never inside a word a player could read; only a string longer
    than a whole line is cut, after a ``-``, ``_``, ``.``, ``/`` or ``@`` where it has one."""
    text = json.dumps(carried, sort_keys=True, separators=(",", ":"))
    width = FORM_WIDTH - len(FORM_MARK)
    lines: list[str] = []
    line = ""
    for piece in _pieces(text, width):
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    if line:
        lines.append(line)
    return [FORM_MARK + line for line in lines]


def _pieces(text: str, width: int) -> list[str]:
    """The pieces of ``text`` (compact JSON) a line may end after, none longer than ``width``
    and none starting or ending with a space."""
    pieces: list[str] = []
    for match in _TOKEN.finditer(text):
        piece = match.group()
        while len(piece) > width:
            cut = _cut(piece, width)
            pieces.append(piece[:cut])
            piece = piece[cut:]
        pieces.append(piece)
    assert "".join(pieces) == text, "every character of the JSON is in a piece"
    return pieces


def _cut(piece: str, width: int) -> int:
    """Where to cut a piece longer than ``width``: after the last soft place that fits, else
    at ``width``; never next to a space."""
    soft = [m.end() for m in _SOFT.finditer(piece, 0, width) if m.end() > 1]
    cut = soft[-1] if soft else width
    while cut > 1 and (piece[cut - 1] == " " or piece[cut] == " "):
        cut -= 1
    return cut
