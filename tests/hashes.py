"""The hashes a reader sees, as the one template macro prints them (templates/common/_hash.j2,
docs/presentation.md "Hashes"): the two-worlds tests find every one with these patterns and put
a placeholder in its place, so that two worlds whose seed commitments and chain heads differ
(as they must: they commit to hidden data) compare byte for byte in everything else.

- text: ``#`` and 32 (a chain head) or 64 (a seed commitment) lowercase hex digits, no hex
  digit after them;
- HTML: ``<code class="hash">``, 64 lowercase hex digits, ``</code>``;
- JSON: the values of the keys in ``JSON_KEYS``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from adjudicator.rules import digests
from adjudicator.rules.contract import Game, State

TEXT = re.compile(r"#([0-9a-f]{64}|[0-9a-f]{32})(?![0-9a-f])")
HTML = re.compile(r'<code class="hash">([0-9a-f]{64})</code>')
JSON_KEYS = ("chain_head", "commitment")
PLACEHOLDER = "HASH"


def found(output: str) -> list[str]:
    """Every hash in ``output`` (text, a form, a page or a mail), in order, as printed (a text
    chain head: its first 32 digits)."""
    hits = [(m.start(), m.group(1)) for m in HTML.finditer(output)]
    hits += [(m.start(), m.group(1)) for m in TEXT.finditer(output)]
    return [value for _, value in sorted(hits)]


def blanked(output: Any) -> Any:
    """``output`` with every hash the macro prints replaced by a placeholder: a string's
    (HTML's shape first, then text's), a page's ``html``, a JSON object's ``JSON_KEYS``, each
    item of a list or dict; anything else as it is."""
    if isinstance(output, str):
        output = HTML.sub(f'<code class="hash">{PLACEHOLDER}</code>', output)
        return TEXT.sub(f"#{PLACEHOLDER}", output)
    if isinstance(output, dict):
        return {
            key: PLACEHOLDER if key in JSON_KEYS and value is not None else blanked(value)
            for key, value in output.items()
        }
    if isinstance(output, list | tuple):
        return [blanked(item) for item in output]
    if hasattr(output, "html") and hasattr(output, "pictures"):
        return (blanked(output.html), output.pictures)
    return output


def committed(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` (a game.json) with a salt and the seed commitment as ``new`` makes them, the salt
    drawn from its seed: two worlds with different seeds differ in both, as real ones do."""
    salt = hashlib.sha256(f"salt {info['seed']}".encode()).hexdigest()
    return {**info, "salt": salt, "commitment": digests.commitment(info["seed"], salt)}


def head_of(info: dict[str, Any]) -> str:
    """A chain head for the world of ``info``: one per seed, as two worlds' journals (which
    hold digests of hidden files) differ."""
    return hashlib.sha256(f"journal {info['seed']}".encode()).hexdigest()


def readings(game: Game, state: State, info: dict[str, Any], reader: str) -> dict[str, Any]:
    """Everything ``reader`` may read of ``state``, in every format and language, with the
    chain head of this world (:func:`head_of`) and its seed commitment (``info``): reports,
    the public report, the form, the HTML pages (as shown, as mailed), the order page, the view
    as ``view --json`` gives it, and the running record."""
    from adjudicator.present.html import render_page
    from adjudicator.present.order_page import render_order_page
    from adjudicator.present.reports import form_text, render
    from adjudicator.rules.lang import LANGUAGES
    from adjudicator.rules.views import reader_view

    head = head_of(info)
    public = reader_view(game, info, state, "public")
    mine = reader_view(game, info, state, reader)
    judged: dict[Any, Any] = {}  # the same page in every language: its orders judged once
    return {
        **{
            f"{kind} {lang}": text
            for lang in LANGUAGES
            for kind, text in (
                ("report", render(game, info, state, reader, lang=lang, head=head)),
                ("public", render(game, info, state, "public", lang=lang, head=head)),
                ("form", form_text(game, info, state, reader, lang, head)),
                ("html", render_page(game, info, mine, lang, head=head)),
                ("html public", render_page(game, info, public, lang, head=head)),
                ("html mail", render_page(game, info, mine, lang, embed="cid", head=head)),
                (
                    "order page",
                    render_order_page(game, info, mine, lang, "gm@x.org", head, judged=judged),
                ),
            )
        },
        "view": {**game.view(state, reader), "chain_head": head},
        "record": json.dumps(game.record(state, False), sort_keys=True),
    }


def same_but_hashes(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two worlds' readings are the same once every hash the macro printed (and every
    hash under a JSON key) is a placeholder; each world showed its own hashes."""
    assert first != second, "the worlds' hashes differ: the readings must too"
    for one in (first, second):
        texts = [v.html if hasattr(v, "html") else v for v in one.values() if v is not None]
        assert any(found(t) for t in texts if isinstance(t, str))
    return bool(blanked(first) == blanked(second))
