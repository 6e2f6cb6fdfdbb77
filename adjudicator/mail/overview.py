"""Every game at a glance: ``status`` of one game or of a folder of games, as ``tick`` takes
them, with the mail each has waiting and anything wrong (data; :mod:`adjudicator.present.status`
words it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.engine import queries
from adjudicator.mail.waiting import refused, waiting
from adjudicator.rules.contract import Msg, msg
from adjudicator.rules.errors import AdjudicatorError, UsageProblem
from adjudicator.store.gamedir import GameDir


def game_status(root: Path) -> dict[str, Any]:
    """``status --json`` of one game: the engine's status, the mail queued (``queued``: count
    and the oldest's time, or None), the mail refused for good (``refused``: a count) and
    ``problems`` (messages as data)."""
    data = queries.status(root)
    problems = [m.to_json() for m in _problems(root)]
    return {**data, "queued": waiting(root), "refused": refused(root), "problems": problems}


def folder_status(folder: Path) -> list[dict[str, Any]]:
    """Each game in ``folder`` (one level down, by name): its status, or, for one that cannot
    be read, its folder's name as ``id`` and the reason among its ``problems``."""
    roots = _games_in(folder)
    if not roots:
        raise UsageProblem(f"{folder}: no game in this folder (nor is it a game)")
    found = []
    for root in roots:
        try:
            found.append(game_status(root))
        except (AdjudicatorError, OSError, ValueError, KeyError, TypeError) as error:
            from adjudicator.present.verdict_lines import unreadable_why

            why = msg("status-unreadable", why=unreadable_why(error)[:200])
            found.append({"id": root.name, "path": str(root), "problems": [why.to_json()]})
    return found


def is_folder_of_games(path: Path) -> bool:
    """``path`` is no game but a folder (``status`` then lists the games in it)."""
    return path.is_dir() and not (path / "game.json").exists()


def games_in_folder(folder: Path) -> list[Path]:
    """The games in ``folder`` (one level down, by name); UsageProblem when there is none."""
    roots = _games_in(folder)
    if not roots:
        raise UsageProblem(f"{folder}: no game in this folder (nor is it a game)")
    return roots


def _games_in(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        raise UsageProblem(f"{folder}: cannot be read ({error.strerror or error})") from None
    return [root for root in entries if (root / "game.json").is_file()]


def _problems(root: Path) -> list[Msg]:
    """What the game master should see to: a step cut short (not one under way now)."""
    store = GameDir(root)
    marker = store.marker()
    if marker is None or store.busy():
        return []
    return [msg("doctor-step-cut-short", kind=str(marker.get("kind", "unknown")))]
