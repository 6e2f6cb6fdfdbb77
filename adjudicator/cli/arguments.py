"""The types of the commands' path arguments: each is handed to the command as a ``Path``.

(Apart from :mod:`adjudicator.cli.support`, which ``--help`` and ``--version`` import: making
a ``click.Path`` loads ``pathlib`` and, through click's words, ``locale``.)"""

from __future__ import annotations

from pathlib import Path

import click

GAMEDIR = click.Path(path_type=Path, file_okay=False)
FILE = click.Path(path_type=Path, dir_okay=False)
