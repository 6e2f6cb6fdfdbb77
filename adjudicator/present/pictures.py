"""Pictures of a stored view: PNG images drawn with Pillow, with deterministic bytes.

A game's pictures are drawn by the module its game object names in ``pictures`` (optional in
the contract: :mod:`adjudicator.rules.contract`), imported only when a page is rendered, so the
game's rules never load Pillow. Its ``draw(doc, lang)`` returns each picture's bytes by name,
``doc`` being the stored view (:mod:`adjudicator.rules.views`); a game that names no module has
no pictures. The built-in games' modules are ``adjudicator.present.pictures_<game>``; another
package's game names one of its own. A picture shows only what the view holds
(the view is where hidden information was removed), and the same view gives the same bytes:
no time or other metadata is written, so the two-worlds tests can compare pictures byte for
byte. HTML reports refer to them by name (``picture("board")`` in a template): as ``data:``
URIs for ``report --format html``, as ``cid:`` parts of the report mail.
"""

from __future__ import annotations

import functools
import importlib
import io
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

    from adjudicator.rules.contract import Game

Drawer = Callable[[Mapping[str, Any], str], dict[str, bytes]]
Picture = Callable[[Mapping[str, Any]], bytes]
CID_DOMAIN = "adjudicator"
"""A picture ``palace`` is the part ``<palace@adjudicator>`` of a report mail."""
KEPT = 128
"""How many pictures of each kind :func:`drawn_from` keeps (a site, many readers' mail)."""


def drawer(game: Game) -> Drawer | None:
    """The ``draw`` of the module the game names in ``pictures``, or None when it names none."""
    name = getattr(game, "pictures", None)
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"{game.name}: pictures names a module by its name, not {name!r}")
    draw: Drawer = importlib.import_module(name).draw
    return draw


def png(image: Image.Image) -> bytes:
    """``image`` as PNG bytes that depend on its pixels alone (no time, no text chunks)."""
    buffer = io.BytesIO()
    # Level 6 (zlib's default) makes files some 7% larger than 9 in an eighth of the time.
    image.save(buffer, "PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


def drawn_from(*keys: str) -> Callable[[Picture], Picture]:
    """A picture drawn from the entries ``keys`` of a view alone, and drawn once for the same
    entries: the picture of one view is the same on every page that shows it, and a reader's
    page shows another's picture only when what it is drawn from is the same text. The drawing
    function is given those entries (as the JSON text they are kept by reads them back) and
    nothing else of the view; the last :data:`KEPT` pictures of each kind are kept."""

    def wrap(picture: Picture) -> Picture:
        @functools.lru_cache(maxsize=KEPT)
        def from_text(text: str) -> bytes:
            return picture(json.loads(text))

        @functools.wraps(picture)
        def drawn(view: Mapping[str, Any]) -> bytes:
            part = {key: view[key] for key in keys if key in view}
            return from_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")))

        drawn.keys = keys  # type: ignore[attr-defined]  # what it is drawn from
        drawn.from_text = from_text  # type: ignore[attr-defined]  # what it keeps
        return drawn

    return wrap
