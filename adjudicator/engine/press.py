"""Press (table talk): who may read which press, and who is mailed it (docs/press.md).

Press is stored and journaled by :mod:`adjudicator.engine.notice_intake`; this module reads it back
as the game master sees it (:func:`everything`), and says what each reader may see of it:

- a player sees the press addressed to them: ``to: all`` reaches every other player; under
  ``press: grey`` without its sender (``from`` is None, "from someone"), and press to everyone
  reaches the sender too (:func:`to_everyone`);
- the game master sees all press, with its sender and recipients;
- spectators (``public``) see none (docs/rulings.md: press is between the players).

A report shows the press received during the turn before the one it opens
(:func:`received_during`): the report that opens turn T lists what came while turn T - 1 was
open, so once a report is sent, what it lists never changes. Nothing here goes into a stored
view: a public archive of a finished game holds the views, and must not hold private press.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.store import journal
from adjudicator.store.gamedir import GameDir

FOLDER = "notices/press"
"""Where press is stored (:func:`adjudicator.engine.notices.path`); a game without it has none (and
a report shown again from the cache loads no parser to learn that)."""
GREY = "grey"
ALL = "all"


def option(meta: dict[str, Any]) -> str:
    """The game's ``press`` option (``none`` for games made before it)."""
    return str(meta.get("options", {}).get("press", "none"))


def everything(root: Path, log: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """All press the journal names, in the order it came, as the game master sees it: each
    ``number`` (1, 2, ... in the order of the journal), ``file``, ``turn`` (the turn open
    when it came), ``at``, ``from`` (the sender), ``to`` (``all`` or names) and ``text``."""
    from adjudicator.engine import notices  # pydantic: only for a game that has press

    store = GameDir(root)
    lines = store.log() if log is None else log
    files = store.facts().files if log is None else journal.facts(lines).files
    meta = store.meta()
    grey = option(meta) == GREY
    players = [p["name"] for p in meta["players"]]
    out: set[str] = set()  # resigned or conceded so far: they send nothing
    found: list[dict[str, Any]] = []
    for line in lines:
        for entry in line.get("notices") or []:
            if entry["kind"] == "vote" and grey:
                vote = notices.stored(store, "vote", entry["file"], files)
                if vote["vote"] == "concede":
                    out.add(vote["player"])
            if entry["kind"] != "press":
                continue
            data = notices.stored(store, "press", entry["file"], files)
            to = data["press"]["to"]
            sending = [p for p in players if p not in out]
            if grey and to_everyone(to, data["player"], sending):
                to = ALL
            found.append(
                {
                    "number": len(found) + 1,
                    "file": entry["file"],
                    "turn": entry["turn"],
                    "at": entry["at"],
                    "from": data["player"],
                    "to": to,
                    "text": data["press"]["text"],
                }
            )
        if line["type"] == "resigned":
            out.add(line["player"])
        elif line["type"] == "replaced":
            out.discard(line["player"])
    return found


def to_everyone(to: str | list[str], sender: str, sending: list[str]) -> bool:
    """Whether press ``to`` from ``sender`` is, under grey, press to everyone: ``all``, or a
    list that names every other player who could have sent it (``sending``: those who had not
    resigned or conceded when it came). Such a list names its sender by elimination (the one
    left out), so it is taken as ``all``: it goes to everyone, the sender included, and reads
    "to everyone" (docs/rulings.md E23)."""
    return to == ALL or all(name in to for name in sending if name != sender)


def recipients(press: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    """Who is mailed ``press``: the players it names, or, for ``all``, every other player who
    has not resigned (under grey: every player who has not resigned, the sender too, so that
    who is mailed never depends on who sent it); in the order of the game's players, never
    anyone outside the game."""
    playing = [p["name"] for p in meta["players"] if not p.get("resigned")]
    return [name for name in playing if reaches(press, name, meta)]


def reaches(press: dict[str, Any], reader: str, meta: dict[str, Any]) -> bool:
    """Whether ``press`` is addressed to the player ``reader`` (under grey, press to all
    reaches its sender too)."""
    to = press["to"]
    if to == ALL:
        return option(meta) == GREY or reader != press["from"]
    return reader in to


def seen(press: dict[str, Any], reader: str, meta: dict[str, Any]) -> dict[str, Any]:
    """``press`` as ``reader`` sees it: ``from`` (None under grey for a player), ``to``
    (``all`` or names) and ``text``; nothing else (not its number: it counts the press of
    every player)."""
    sender = press["from"]
    if reader != "gm" and option(meta) == GREY:
        sender = None
    return {"from": sender, "to": press["to"], "text": press["text"]}


def shown_to(
    everything: list[dict[str, Any]], reader: str, meta: dict[str, Any], turn: int
) -> list[dict[str, Any]]:
    """What ``reader``'s report of ``turn`` lists: the press received during ``turn`` - 1,
    as :func:`seen` shows it (all of it for ``gm``, none for ``public``)."""
    if reader == "public":
        return []
    during = [p for p in everything if p["turn"] == turn - 1]
    if reader != "gm":
        during = [p for p in during if reaches(p, reader, meta)]
    return [seen(p, reader, meta) for p in during]


def received_during(
    root: Path, reader: str, meta: dict[str, Any], turn: int
) -> list[dict[str, Any]]:
    """:func:`shown_to` for the game at ``root``."""
    if reader == "public" or not (root / FOLDER).is_dir():
        return []
    return shown_to(everything(root), reader, meta, turn)
