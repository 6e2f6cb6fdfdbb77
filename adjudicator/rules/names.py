"""Names the game directory and the mail use for readers other than a player.

A player may not take one of these names, in any case (compared with ``casefold()``), and no two
players' names may be equal ignoring case: on a case-insensitive file system ``Bob.txt`` and
``bob.txt`` are one file. docs/setup-file.md lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

RESERVED_READERS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "gm": "the game master (report --gm, views/gm.json, the game master's mail)",
        "public": "the spectators (report --public, views/public.json)",
        "all": "every player (press to: all)",
    }
)
"""Each reserved name (lower case: compare ``name.casefold()``) and the reader it stands for."""
