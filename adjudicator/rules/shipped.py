"""Where the templates shipped with the adjudicator are: a path, found without reading a file."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path


@cache
def templates() -> Path:
    """The folder of ``adjudicator.templates``: the built-in games' templates and the shared
    ones. The adjudicator installs as files, so they are read from the folder directly
    (``importlib.resources`` costs a command that words one message a tenth of its start)."""
    return Path(next(iter(import_module("adjudicator.templates").__path__)))
