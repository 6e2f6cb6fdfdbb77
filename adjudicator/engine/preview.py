"""``adjudicate --preview``: what the current turn would produce, with nothing made official.

The preview runs the real adjudication (:func:`adjudicator.engine.adjudication.adjudicate`, the
same step, resolver, seeded randomness and view functions) on a private copy of the game
directory, reads what it wrote, and throws the copy away:

- the copy is taken under the game's lock (so it is one consistent moment of the game), links
  followed (so that no write of the copy's reaches through a link into the game) and named pipes
  and sockets left out (no step reads them), into a
  new temporary folder that only the user may open (it holds the seed); the lock is released as
  soon as the copy is made. A step cut short in the game is finished or discarded in the copy
  only, as the real adjudication would do it first. The copy goes when the preview ends, also
  on an error or Ctrl-C; only a preview killed outright (SIGKILL) leaves it behind, in the
  user's temporary folder, readable by the user alone;
- nothing is written to the game directory: no file, no journal line, no step marker, no mail
  (an adjudication queues no mail in any case: ``send`` reads what is due from the journal, and
  the preview never runs ``send`` or reads the mail settings);
- the randomness of an adjudication is drawn from the game's seed and the turn alone
  (docs/randomness.md), so the preview consumes nothing: the later real ``adjudicate`` resolves
  the turn exactly as the preview showed it;
- the refusals are ``adjudicate``'s own (orders missing, a game that is over, ``nmr: wait``),
  raised by the same code.

What differs from the real adjudication is the journal line's time (and a deadline counted from
it), so the chain head shown in the preview's reports is the copy's, not the game's: the real
line, written later, gets its own time and so its own head. Under a fixed ``ADJUDICATOR_NOW`` the
two agree byte for byte, which the tests use.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.engine import adjudication, open_game
from adjudicator.rules import views
from adjudicator.rules.contract import Game, Msg
from adjudicator.rules.errors import AdjudicatorError, NotNow
from adjudicator.store import summary
from adjudicator.store.gamedir import GameDir


@dataclass
class Preview:
    """What an adjudication of the current turn would produce."""

    result: dict[str, Any]
    """What :func:`adjudicator.engine.adjudication.adjudicate` returns: ``turn``, ``defaulted``,
    ``over``, ``revealing``."""
    game: Game
    meta: dict[str, Any]
    head: str
    """The chain head of the private copy after the adjudication (not the game's)."""
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each reader's view of the turn that would open (none when only the reveal would open),
    in the order :func:`adjudicator.rules.views.readers` gives."""


def preview(root: Path, default_missing: bool = False) -> Preview:
    """Adjudicate the current turn of the game at ``root`` on a private copy; raise as
    ``adjudicate`` would. ``root`` is left exactly as it was."""
    import tempfile

    store = GameDir(root)
    store.require()
    try:
        scratch_folder = tempfile.TemporaryDirectory(prefix="adjudicator-preview-")
    except OSError as error:
        raise _no_copy(root, error) from None
    with scratch_folder as scratch:
        copy = Path(scratch) / "game"
        try:
            return _on_copy(store, copy, default_missing)
        finally:
            summary.forget(copy)  # a path never seen again: its summary would stay for good


def _on_copy(store: GameDir, copy: Path, default_missing: bool) -> Preview:
    """:func:`preview` on the private copy at ``copy``."""
    root = store.root
    with store.locked():
        try:  # links followed: the copy's writes must never reach through one into the game
            shutil.copytree(root, copy, ignore=_not_copied, copy_function=_copy_file)
        except (OSError, shutil.Error) as error:
            raise _no_copy(root, error) from None
    try:
        result = adjudication.adjudicate(copy, default_missing)
    except AdjudicatorError as error:
        raise _as_of(error, copy, root) from None
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise _no_copy(root, error) from None
    handle = open_game.OpenGame(copy)
    found = {}
    if not result["revealing"]:
        folder = handle.dir.turn_dir(handle.turn())
        found = {
            reader: handle.dir.read_json(views.path(folder, reader))
            for reader in views.readers(handle.meta)
        }
    return Preview(result, handle.game, handle.meta, handle.dir.head(), found)


def _not_copied(folder: str, names: list[str]) -> list[str]:
    """What the copy leaves out: the game's lock (the copy takes a lock of its own), and what is
    no file or folder (a named pipe, a socket, a link leading nowhere), which no step reads."""
    left_out = []
    for name in names:
        try:
            mode = os.stat(os.path.join(folder, name)).st_mode
        except OSError:
            mode = 0
        if name == ".lock" or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            left_out.append(name)
    return left_out


def _copy_file(source: str, target: str) -> object:
    return shutil.copy2(source, target)


def _no_copy(root: Path, error: OSError | shutil.Error) -> NotNow:
    """The private copy could not be made or written: what stood in the way, the game named."""
    if isinstance(error, shutil.Error):
        first = error.args[0][0] if error.args and error.args[0] else ("", "", str(error))
        why = str(first[2])
    else:
        why = error.strerror or str(error)
        if error.filename:
            why = f"{why}: {error.filename}"
    return NotNow(
        f"{root}: cannot preview: no private copy of the game could be made in the temporary "
        f"folder ({why}); nothing was changed (give another folder with TMPDIR)"
    )


def _as_of(error: AdjudicatorError, copy: Path, root: Path) -> AdjudicatorError:
    """``error`` as the game directory would have raised it: any mention of the private copy's
    folder names the game directory instead, in a message worded as text or as data (a ``Msg``
    whose parameters name it)."""
    told = _named_as(error.message, str(copy), str(root))
    if told != error.message:
        error.message = told
        error.args = (told,)
    return error


def _named_as(told: Any, copy: str, root: str) -> Any:
    """``told`` (text, a ``Msg``, a list of them) with ``copy`` named ``root`` wherever it is."""
    if isinstance(told, str):
        return told.replace(copy, root)
    if isinstance(told, Msg):
        return Msg(told.code, {k: _named_as(v, copy, root) for k, v in told.params.items()})
    if isinstance(told, list | tuple):
        return type(told)(_named_as(v, copy, root) for v in told)
    return told
