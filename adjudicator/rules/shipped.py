"""Where the templates shipped with the adjudicator are."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


@cache
def templates() -> Traversable:
    """The folder of ``adjudicator.templates``: the built-in games' templates and the shared
    ones. The adjudicator installs as files, so they are read from the folder directly, and a
    command that words a message does not load ``importlib.resources``; an install that is no
    folder (a zip) is read through it."""
    folder = Path(next(iter(import_module("adjudicator.templates").__path__)))
    if folder.is_dir():
        return folder
    from importlib.resources import files

    return files("adjudicator.templates")
