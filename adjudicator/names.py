"""Names the game directory and the mail use for readers other than a player.

A player may not take one of these names, in any case (compared with ``casefold()``), and no two
players' names may be equal ignoring case: on a case-insensitive file system ``Bob.txt`` and
``bob.txt`` are one file. docs/setup-file.md lists them.
"""

from __future__ import annotations

from typing import Final

RESERVED_READERS: Final = frozenset({"gm", "public", "all"})
"""``gm``: the game master's report (``reports/gm.txt``) and mail; ``public``: the spectators'
report (``reports/public.txt``); ``all``: press addressed to every player (``to: all``)."""
