"""Reports and forms rendered once: a cache in the user's cache folder, keyed on all they are
made from, so that ``report``, ``view`` and ``form`` need not load Jinja to say again what they
said before.

A report is rendered from a stored view (which never changes once written), the game as the
journal tells it (``meta``), the press the reader received (:mod:`adjudicator.engine.press`: never
in a view, so in the key as it is shown), the reader's language, and the program that renders
it: its templates, texts, catalogs and code. The key is a SHA-256 over all of these, the program as
each file's path, size and modification time (the adjudicator's package, its templates, and the
game's package and templates), and the libraries that render it (Jinja, MarkupSafe, Babel) as
installed, so a changed template or an upgraded program or library renders afresh. The
chain head changes at every step, so it is not in the key: the text is rendered with a
placeholder head drawn afresh for each entry (so that no text a player wrote can hold it), kept
beside the text and put in the real head's place as the text is read back.

The cache is never in a game directory and holds only what its own user has already been shown
by ``report`` or ``form``, in files only they may read (a game master's report holds every hand).
Each entry carries a checksum: a damaged entry is rendered afresh. A folder that cannot be
written (a read-only home) only means nothing is kept.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.present.hashes import TEXT_HEAD_DIGITS
from adjudicator.store import usercache
from adjudicator.store.registry import BUILT_IN

KEPT_IN_EACH = 8
"""The entries each folder of the cache keeps (an entry is kept in the folder named by the
first two digits of its key, one of 256): some 2,000 in all. A new one makes those used
longest ago in its folder go, so that a report shown for the first time reads that folder,
not the cache's 2,000 entries."""
_MAGIC = b"adjudicator-rendered/2\n"


def shown(
    kind: str,
    parts: dict[str, Any],
    head: str | None,
    render: Callable[[str | None], str],
    program: list[Path],
    cache: bool = True,
) -> str:
    """What ``render(head)`` gives, from the cache when it was rendered before. ``kind`` names
    what is rendered (``report-text``, ``form``); ``parts`` is everything it is made from but
    the program (JSON values: the stored view, ``meta``, the language); ``program`` the folders
    whose files render it; ``cache=False`` renders afresh and keeps nothing."""
    if head is None or not cache:
        return render(head)
    key = _key(kind, parts, program)
    entry = _folder() / key[:2] / f"{key}.txt"
    kept = _read(entry)
    if kept is None:
        import secrets

        placeholder = secrets.token_hex(32)
        kept = placeholder, render(placeholder)
        _write(entry, *kept)
    placeholder, text = kept
    return text.replace(placeholder, head).replace(
        placeholder[:TEXT_HEAD_DIGITS], head[:TEXT_HEAD_DIGITS]
    )


def _key(kind: str, parts: dict[str, Any], program: list[Path]) -> str:
    digest = hashlib.sha256(_MAGIC)
    digest.update(json.dumps([kind, __version__, parts], sort_keys=True).encode())
    for folder in program:
        digest.update(usercache.fingerprint(str(folder)).encode())
    digest.update(libraries().encode())
    return digest.hexdigest()


RENDERING = ("jinja2", "markupsafe", "babel")
"""The libraries whose code renders a report besides the program's own."""


def libraries() -> str:
    """Each of :data:`RENDERING` as it is installed, found as Python finds it to import it but
    not imported: the path, size and modification time of the file it is loaded from (its
    package's ``__init__.py``, or the archive that holds it; an upgrade writes it anew), so that
    a report rendered by another version of one renders afresh."""
    from importlib.util import find_spec  # loaded at start-up already

    found = []
    for name in RENDERING:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):  # a stand-in module in sys.modules without a spec
            spec = None
        origin = spec.origin if spec is not None else None
        archive = getattr(spec.loader if spec else None, "archive", None)
        for path in (p for p in (origin, archive) if p):
            try:
                seen = os.stat(str(path))
            except (OSError, ValueError):
                continue
            found.append(f"{name}\0{path}\0{seen.st_size}\0{seen.st_mtime_ns}")
            break
        else:
            found.append(f"{name}\0{origin}")
    return "\n".join(found)


def _folder() -> Path:
    return usercache.folder("rendered")


def _read(entry: Path) -> tuple[str, str] | None:
    """The placeholder and the text of an entry (:func:`usercache.read`)."""
    kept = usercache.read(entry)
    if kept is None:
        return None
    placeholder, _, body = kept.partition(b"\n")
    try:
        return placeholder.decode("ascii"), body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _write(entry: Path, placeholder: str, text: str) -> None:
    # A game master's report holds every hand: for this user's eyes only (usercache.write).
    kept = placeholder.encode("ascii") + b"\n" + text.encode("utf-8")
    usercache.write(entry, kept, keep=KEPT_IN_EACH)


# -- what the commands show --------------------------------------------------------------------
def report(
    root: Path,
    reader: str,
    turn: int | None,
    head: str | None,
    *,
    lang: str | None = None,
    cache: bool = True,
) -> str:
    """``reader``'s text report as turn ``turn`` (None: the current one) opened, in ``lang``
    (None: the reader's), with the chain head ``head`` (None: none), from the cache when it
    was rendered before (``cache=False``: rendered afresh, nothing kept)."""
    from adjudicator.engine import absences
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.press import received_during
    from adjudicator.engine.queries import stored_view_bytes
    from adjudicator.rules.lang import lang_of

    handle = OpenGame(root)
    stored = stored_view_bytes(handle, reader, turn)
    lang = lang or lang_of(handle.meta, reader)
    doc = json.loads(stored)
    press = received_during(root, reader, handle.meta, doc["turn"])
    away = absences.lines(handle) if turn in (None, handle.turn()) else []

    def render(head: str | None) -> str:
        from adjudicator.present.reports import render_view

        return render_view(handle.game, handle.meta, doc, lang, head, press=press, away=away)

    parts = {
        **_parts(stored, handle.meta, lang),
        "press": press,
        "away": [m.to_json() for m in away],
    }
    return shown(
        "report-text", parts, head, render, program(handle.meta["game"], lambda: handle.game), cache
    )


def form(root: Path, player: str, head: str | None, *, cache: bool = True) -> str:
    """``player``'s order form for the current turn in their language, with the chain head
    ``head``, from the cache when it was rendered before (``cache=False``: rendered afresh);
    NotNow when the game is over or they owe nothing."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import stored_view_bytes
    from adjudicator.rules.errors import NotNow
    from adjudicator.rules.lang import lang_of

    handle = OpenGame(root)
    stored = stored_view_bytes(handle, player)
    doc = json.loads(stored)
    if doc.get("over"):
        raise NotNow(f"game {handle.meta['id']} is over; it takes no more orders")
    if "to_do" not in doc:
        raise NotNow(f"{player} owes no order in turn {doc['turn']}")
    lang = lang_of(handle.meta, player)

    def render(head: str | None) -> str:
        from adjudicator.present.reports import form_of_view

        text = form_of_view(handle.game, handle.meta, doc, lang, head)
        assert text is not None  # the view says the player owes an order
        return text

    parts = _parts(stored, handle.meta, lang)
    return shown(
        "form", parts, head, render, program(handle.meta["game"], lambda: handle.game), cache
    )


def order_page(root: Path, player: str, address: str, head: str | None) -> str:
    """``player``'s order page for the current turn in their language with the chain head
    ``head`` (rendered afresh), the signed order going to ``address``; NotNow as for ``form``,
    and for a game that has no order page (docs/order-page.md)."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import stored_view_bytes
    from adjudicator.present.order_page import render_order_page
    from adjudicator.rules.errors import NotNow
    from adjudicator.rules.lang import lang_of

    handle = OpenGame(root)
    doc = json.loads(stored_view_bytes(handle, player))
    if doc.get("over"):
        raise NotNow(f"game {handle.meta['id']} is over; it takes no more orders")
    page = render_order_page(
        handle.game, handle.meta, doc, lang_of(handle.meta, player), address, head
    )
    if page is None and "to_do" not in doc:
        raise NotNow(f"{player} owes no order in turn {doc['turn']}")
    if page is None:  # a sealed game's or one the page does not know: the form serves
        raise NotNow(f"game {handle.meta['id']} has no order page; use its form")
    return page


def _parts(stored: bytes, meta: dict[str, Any], lang: str) -> dict[str, Any]:
    """What a report is made from: the stored view (by its bytes), the game, the language."""
    return {"view": hashlib.sha256(stored).hexdigest(), "meta": meta, "lang": lang}


def program(name: str, game: Callable[[], object]) -> list[Path]:
    """The folders whose files render the reports of the game ``name``: the adjudicator's
    package and templates (where the built-in games' templates are), and the game's own
    package and templates (a folder inside another counted once). ``game`` gives the game,
    asked for only when it is not built in: a built-in game's package is found without
    importing it, so that a report shown again does not load the game."""
    import sys
    from importlib import import_module
    from importlib.util import find_spec

    import adjudicator

    templates_package = import_module("adjudicator.templates")
    folders = [Path(adjudicator.__file__).parent, *map(Path, templates_package.__path__)]
    # The game's own code (its title): the built-in games' too, which an editable install keeps
    # in games/, outside the adjudicator's package.
    if name in BUILT_IN:
        spec = find_spec(BUILT_IN[name].split(":")[0])
        if spec is not None and spec.origin is not None:
            folders.append(Path(spec.origin).parent)
    else:
        found = game()
        module = sys.modules.get(type(found).__module__)
        if module is not None and module.__file__:
            folders.append(Path(module.__file__).parent)
        templates = getattr(found, "templates", None)
        if templates is not None:
            folders.append(Path(str(templates())))
    kept: list[Path] = []
    for folder in sorted({Path(os.path.realpath(f)) for f in folders}):
        if not any(folder.is_relative_to(k) for k in kept):
            kept.append(folder)
    return kept
