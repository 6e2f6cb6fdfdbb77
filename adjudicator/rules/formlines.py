"""The lines an order form carries for ``check --form`` (written by the presentation layer,
read back by :mod:`adjudicator.engine.forms`): kept apart so that writing a form loads no schema."""

from __future__ import annotations

import json
from typing import Any

FORM_MARK = "# adjudicator-form: "
FORM_WIDTH = 72
"""No line of a form is longer (docs/reports.md: mail clients hard-wrap longer lines)."""


def carried_lines(carried: dict[str, Any]) -> list[str]:
    """What a form carries for ``check --form``: compact JSON over as many ``FORM_MARK`` lines
    as it takes, none longer than FORM_WIDTH and none starting or ending with a space (which
    mail and editors may drop)."""
    text = json.dumps(carried, sort_keys=True, separators=(",", ":"))
    width = FORM_WIDTH - len(FORM_MARK)
    lines = []
    while text:
        cut = min(width, len(text))
        while 1 < cut < len(text) and (text[cut - 1] == " " or text[cut] == " "):
            cut -= 1
        lines.append(FORM_MARK + text[:cut])
        text = text[cut:]
    return lines
