"""The languages a game speaks: the game's own (``lang`` in the setup, for the game master, the
public report and the site) and each player's (default: the game's)."""

from __future__ import annotations

from typing import Any, Literal

Lang = Literal["en", "de", "nl", "fr"]
LANGUAGES: tuple[Lang, ...] = ("en", "de", "nl", "fr")
DEFAULT: Lang = "en"


def game_lang(meta: dict[str, Any]) -> str:
    """The game's language (games made before languages speak English)."""
    return str(meta.get("lang", DEFAULT))


def lang_of(meta: dict[str, Any], reader: str) -> str:
    """The language of ``reader``: a player's own, else the game's (``public``, ``gm``)."""
    for player in meta["players"]:
        if player["name"] == reader:
            return str(player.get("lang") or game_lang(meta))
    return game_lang(meta)
