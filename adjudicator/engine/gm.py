"""The game master's commands: extend, pause, resume, replace, resign, rollback.

Each is one step (:mod:`adjudicator.store.steps`): it checks everything first (a refusal changes
nothing), then writes one journal line (see :mod:`adjudicator.store.journal`). Each refuses a game
that is over (exit 4). Nothing is deleted: a rolled-back turn's results are kept as a superseded
copy.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path
from typing import Any

from adjudicator.engine.open_game import OpenGame
from adjudicator.engine.setup import EMAIL, PRIVACY_BYTES
from adjudicator.rules import schedule
from adjudicator.rules.contract import msg
from adjudicator.rules.errors import InputRefused, NotNow, UsageProblem
from adjudicator.rules.lang import lang_of
from adjudicator.signing import keys
from adjudicator.store import clock, steps


def _running(handle: OpenGame) -> None:
    if handle.over():
        raise NotNow(f"game {handle.meta['id']} is over")


def _key_blob(line: str) -> bytes | None:
    """The key a seat's key line holds; None for a line that holds none (changed by hand)."""
    try:
        return keys.parse_public_line(line)
    except keys.KeyProblem:
        return None


def _dealt(handle: OpenGame) -> None:
    """The clock and the seats' play start with the deal (``shares: ask``)."""
    _running(handle)
    if handle.waiting():
        handle.state()  # NotNow: it names who owes a share


def extend(root: Path, by: str | None = None, to: str | None = None) -> datetime:
    """Move the current turn's deadline: ``by`` a duration (from the deadline, or from now when
    the turn has none) or ``to`` a time; the new deadline."""
    if (by is None) == (to is None):
        raise UsageProblem("give exactly one of --by and --to")
    with steps.step(root, "extend") as running:
        handle = OpenGame(root)
        _dealt(handle)
        now = clock.now()
        times = handle.clock()
        try:
            if by is not None:
                new = schedule.later(times.deadline or now, schedule.duration(by))
            else:
                assert to is not None
                new = schedule.moment(to, lambda: schedule.game_zone(handle.meta))
        except schedule.PastTheCalendar as error:  # well formed, but unusable: exit 3
            raise InputRefused(
                f"{'--by' if by is not None else '--to'} {by or to}: {error}"
            ) from None
        except schedule.ScheduleError as error:
            raise UsageProblem(str(error)) from None
        if new <= now:
            raise UsageProblem(
                f"the new deadline {schedule.shown_in(new, schedule.game_zone_name(handle.meta))} "
                "is not in the future"
            )
        was = None if times.deadline is None else clock.stamp(times.deadline)
        running.commit("extended", turn=handle.turn(), deadline=clock.stamp(new), was=was)
    return new


def pause(root: Path, refused: list[str] | None = None) -> None:
    """Stop the clock: no deadline passes, no reminder goes, ``tick`` adjudicates nothing.
    ``refused``: the reports of the turn the mail server refused for good, which paused it
    (the journal line says so; without them it is the game master's ``pause``)."""
    with steps.step(root, "pause") as running:
        handle = OpenGame(root)
        _dealt(handle)
        if handle.clock().paused_since is not None:
            raise NotNow(f"game {handle.meta['id']} is paused already")
        running.commit("paused", turn=handle.turn(), **({"refused": refused} if refused else {}))


def resume(root: Path) -> datetime | None:
    """Start the clock again; the deadline moves by the time the turn stood paused."""
    with steps.step(root, "resume") as running:
        handle = OpenGame(root)
        _dealt(handle)
        times = handle.clock()
        if times.paused_since is None:
            raise NotNow(f"game {handle.meta['id']} is not paused")
        now = clock.now()
        new = None
        if times.deadline is not None:
            stood_from = max(times.paused_since, times.opened or times.paused_since)
            try:
                # a span the wait for the mail counted already moves it once
                new = schedule.later(times.deadline, times.uncounted(stood_from, now))
            except schedule.ScheduleError:
                new = times.deadline  # at the end of the calendar already: it stays
        stamp = None if new is None else clock.stamp(new)
        running.commit("resumed", turn=handle.turn(), deadline=stamp)
    return new


def replace(
    root: Path,
    player: str,
    email: str | None = None,
    key_line: str | None = None,
    lang: str | None = None,
) -> dict[str, Any]:
    """Give ``player``'s seat a new address, key or language (a new player, or a lost key).

    Orders already accepted stay in effect; a resigned seat is taken up again.
    """
    if email is None and key_line is None and lang is None:
        raise UsageProblem("give --email, --key, --key-file or --lang (or several)")
    handle = OpenGame(root)
    handle.require_player(player)
    if email is not None and not EMAIL.match(email):
        raise InputRefused(msg("bad-email", email=email))
    if key_line is not None:
        key_line = key_line.strip()
        try:
            blob = keys.parse_public_line(key_line)
        except keys.KeyProblem as error:
            raise InputRefused(msg("new-key-refused", why=error.reason)) from None
    with steps.step(root, "replace") as running:
        handle = OpenGame(root)
        _running(handle)
        meta = handle.meta
        seat = next(p for p in meta["players"] if p["name"] == player)
        if key_line is not None:
            for other in meta["players"]:
                if other["name"] != player and _key_blob(other["key"]) == blob:
                    raise InputRefused(
                        f"the new key is {other['name']}'s: each player needs their own"
                    )
        if key_line is None and _key_blob(seat["key"]) is None:  # the journal changed by hand
            raise InputRefused(msg("replace-key-unreadable", player=player))
        change = {  # the keys without their comments: a public archive holds the line
            "player": player,
            "key": keys.bare(key_line or seat["key"]),
            "was_key": keys.bare(seat["key"]),
            "resigned_before": bool(seat.get("resigned")),
        }
        if lang is not None:
            change["lang"], change["was_lang"] = lang, lang_of(meta, player)
        told = {  # with random bits: the end of the game reveals the key of its digest
            "email": email or seat["email"],
            "was_email": seat["email"],
            "privacy": secrets.token_hex(PRIVACY_BYTES),
        }
        folder = handle.dir.root / "seats"
        number = len(list(folder.glob("*.json"))) + 1 if folder.is_dir() else 1
        rel = f"seats/replaced-{number:04d}.json"
        handle.dir.write_json(rel, told)  # the journal, which a public archive holds, names none
        # a new player is sent the welcome mail, and so is a new key: the notice page it
        # carries signs only with the key the game master has
        if told["email"] != told["was_email"] or change["key"] != change["was_key"]:
            change["welcome"] = True
        running.commit("replaced", turn=handle.turn(), addresses=rel, **change)
    return {**change, **told}


def resign(root: Path, player: str) -> None:
    """Record ``player``'s resignation: from now on the seat plays the default orders."""
    handle = OpenGame(root)
    handle.require_player(player)
    with steps.step(root, "resign") as running:
        handle = OpenGame(root)
        _dealt(handle)
        meta = handle.meta
        seat = next(p for p in meta["players"] if p["name"] == player)
        if seat.get("resigned"):
            raise NotNow(f"{player} resigned already (turn {seat['resigned']})")
        conceded = handle.votes().conceded  # a player who conceded is not playing either
        if all(p.get("resigned") or p["name"] in conceded or p is seat for p in meta["players"]):
            raise NotNow(f"{player} is the last player still playing; a game needs one")
        running.commit("resigned", turn=handle.turn(), player=player)


def rollback(root: Path) -> tuple[int, list[str]]:
    """Undo the last adjudication; the turn it resolved is current again, its orders fixed.

    The next turn's folder becomes ``turns/NNNN.superseded-K`` and the resolution
    ``resolution.superseded-K.json`` (K counts the rollbacks of that turn), and the next turn's
    report mails not sent yet move to ``mail/withdrawn/``: nothing is deleted. The moves are
    planned in the step's marker, so a rollback cut short is finished by the next command.
    Returns the turn that is current again and the names of the mails withdrawn.
    """
    with steps.step(root, "rollback") as running:
        handle = OpenGame(root)
        store = handle.dir
        later = handle.turn()
        turn = later - 1
        if turn < 1:
            raise NotNow(f"game {handle.meta['id']} has no adjudication to roll back")
        copy = 1
        while (store.root / f"{store.turn_dir(later)}.superseded-{copy}").exists():
            copy += 1
        moves = [
            (
                f"{store.turn_dir(turn)}/resolution.json",
                f"{store.turn_dir(turn)}/resolution.superseded-{copy}.json",
            ),
            (store.turn_dir(later), f"{store.turn_dir(later)}.superseded-{copy}"),
        ]
        queue = store.root / "mail" / "queue"
        withdrawn = sorted(p.name for p in queue.glob(f"*-report-{later}-*.eml") if queue.is_dir())
        moves += [(f"mail/queue/{name}", f"mail/withdrawn/{name}") for name in withdrawn]
        running.plan(moves, "rolled-back", turn=turn, superseded=copy, withdrawn=withdrawn)
    return turn, withdrawn
