"""What falls due by the clock, for ``tick`` and ``send``.

A turn is adjudicated when every owed order is in, or, under ``nmr: default``, once its deadline
has passed; under ``nmr: wait`` the game master is told instead (once per deadline). Before the
deadline, players who still owe orders are reminded at the setup's ``reminders``. A paused game,
a turn whose reports still wait to be sent (the clock waits for the mail) and a rolled-back turn
(the game master adjudicates it again) wait. Players are told by mail of
the game master's actions (see :data:`adjudicator.store.journal.GM_ACTIONS`), and of a deadline an
absence moved (``absence: extend``) or the wait for the mail moved.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.engine.adjudication import Why
from adjudicator.mail.outgoing import new_message_id, notice_mail
from adjudicator.mail.queue import Outbox
from adjudicator.mail.welcome import answer
from adjudicator.present import mail as present_mail
from adjudicator.present.mail import turn_label
from adjudicator.present.welcome import answer_text
from adjudicator.present.words import say
from adjudicator.rules import schedule
from adjudicator.rules.contract import Msg
from adjudicator.rules.lang import game_lang, lang_of
from adjudicator.store import clock, journal, steps
from adjudicator.store.gamedir import GameDir
from adjudicator.store.registry import load_game

if TYPE_CHECKING:
    from adjudicator.engine.open_game import OpenGame


@dataclass(frozen=True)
class Due:
    """At most one of these is set."""

    adjudicate: Why | None = None
    wait: bool = False
    """Past the deadline under ``nmr: wait``, and the game master not yet told."""
    remind: str | None = None
    """The reminder (``2h``) to queue now."""


def what_is_due(
    status: dict[str, Any], times: journal.Clock, meta: dict[str, Any], now: datetime
) -> Due:
    """What the clock asks of the game now (pure)."""
    if status["over"] or times.standing() or times.rolled_back:
        return Due()
    if status.get("agreed"):  # a draw agreed, or one player left: due at once
        return Due(adjudicate="agreed")
    if status["owed"] and not status["waiting_for"]:
        return Due(adjudicate="complete")
    deadline = times.deadline
    if deadline is None or not status["waiting_for"]:
        return Due()
    if now >= deadline:
        if meta["options"]["nmr"] == "default":
            return Due(adjudicate="deadline")
        return Due(wait=deadline not in times.waited)
    passed = [r for r in meta.get("reminders") or [] if schedule.reminder_at(deadline, r) <= now]
    if passed:
        closest = min(passed, key=schedule.duration)
        seconds = int(schedule.duration(closest).total_seconds())
        if not times.reminded_for(deadline, seconds):
            return Due(remind=closest)
    return Due()


def _email(meta: dict[str, Any], player: str) -> str:
    return str(next(p["email"] for p in meta["players"] if p["name"] == player))


def _notice(
    root: Path,
    sender: str,
    to: str,
    words: present_mail.Mail,
    label: str,
    reply_to: str | None = None,
    name: str | None = None,
) -> None:
    """Queue a notice to ``to``; ``label`` goes into its Message-ID, and (unless ``name`` is
    given) into its file name."""
    message = notice_mail(
        sender=sender,
        to=to,
        subject=words.subject,
        body=words.body,
        message_id=new_message_id(sender, label),
        reply_to=reply_to,
    )
    Outbox(root).put(message, label if name is None else name)


def _reader_at(entry: dict[str, Any], address: str, *games: dict[str, Any]) -> str:
    """Who a notice to ``address`` goes to, for its file name: the player registered there in
    the first of ``games`` that has one, or (the old address of a replaced seat) that player
    with ``-was``."""
    for meta in games:
        for player in meta["players"]:
            if player["email"] == address:
                return str(player["name"])
    return f"{entry.get('player', 'player')}-was"


def due_line(
    meta: dict[str, Any], deadline: datetime, now: datetime, lang: str, player: str | None = None
) -> str:
    """``2026-11-25 19:00 UTC (… CET, Europe/Berlin), 1d 2h 0m left``, in ``lang``, in the time
    zone of ``player`` (None: the game's)."""
    where = schedule.game_zone(meta) if player is None else schedule.player_zone(meta, player)
    return f"{schedule.shown(deadline, where)}, {say(schedule.left(deadline, now), lang=lang)}"


def due_now(root: Path) -> tuple[Due, dict[str, Any], journal.Clock, dict[str, Any]]:
    """What is due in the game at ``root`` now, with the status, clock and game it came from."""
    from adjudicator.engine import open_game

    handle = open_game.OpenGame(root)
    return (*due_of(handle), handle.meta)


def due_of(handle: OpenGame) -> tuple[Due, dict[str, Any], journal.Clock]:
    """What is due in the game ``handle`` reads, now, with the status and clock it came from."""
    from adjudicator.engine import queries

    status = queries.status_of(handle)  # the same reading of the journal as the clock's
    times = handle.clock()
    return what_is_due(status, times, handle.meta, clock.now()), status, times


def remind(root: Path, sender: str) -> tuple[str, list[str]] | None:
    """Queue the reminder that is due (checked again under the lock) to every player who still
    owes an order; the reminder and the players, or None when none is due."""
    with steps.step(root, "remind") as running:
        due, status, times, meta = due_now(root)
        if due.remind is None or times.deadline is None:
            return None
        now, turn = clock.now(), status["turn"]
        game = load_game(meta["game"])
        for player in status["waiting_for"]:
            lang = lang_of(meta, player)
            words = present_mail.reminder(
                game_id=meta["id"],
                turn=turn,
                due=due_line(meta, times.deadline, now, lang, player),
                lang=lang,
                game=game,
            )
            # a reminder asks for an order: it ends with how to answer, as a report does
            how = answer_text(answer(meta, player, sender, turn, times.deadline), game, lang)
            words = present_mail.Mail(words.subject, f"{words.body}\n{how}")
            label = f"{meta['id']}.reminder.{player}"
            _notice(root, sender, _email(meta, player), words, label, reply_to=sender)
        running.commit(
            "reminded",
            at=clock.stamp(now),
            turn=turn,
            deadline=clock.stamp(times.deadline),
            before=due.remind,
            players=status["waiting_for"],
        )
    return due.remind, list(status["waiting_for"])


def tell_waiting(root: Path, sender: str, gm: str | None) -> list[str] | None:
    """Past the deadline under nmr: wait (checked again under the lock): journal it and tell
    the game master; the players waited for, or None when that was done before."""
    with steps.step(root, "waiting") as running:
        due, status, times, meta = due_now(root)
        if not due.wait or times.deadline is None:
            return None
        turn, waiting = status["turn"], status["waiting_for"]
        if gm:
            _notice(
                root,
                sender,
                gm,
                present_mail.waiting(
                    game_id=meta["id"],
                    turn=turn,
                    due=due_line(meta, times.deadline, clock.now(), game_lang(meta)),
                    waiting=waiting,
                    lang=game_lang(meta),
                    game=load_game(meta["game"]),
                ),
                f"{meta['id']}.waiting",
            )
        running.commit(
            "waiting",
            turn=turn,
            deadline=clock.stamp(times.deadline),
            players=waiting,
        )
    return list(waiting)


def _announced(entry: dict[str, Any]) -> bool:
    """Whether the players are told of this journal line: a game master's action, a reveal
    opened, a deadline moved by an absence or by the mail's wait."""
    if entry["type"] in journal.GM_ACTIONS:
        return True
    return bool(entry.get("reveal") or entry.get("deadline_moved") or entry.get("mailed"))


def _seats_then(
    store: GameDir, log: list[dict[str, Any]], start: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line from ``start`` on that the players are told of, with the game as that line
    left it: who played and who had resigned then, and where each read, not as later lines
    changed them (a seat resigned, then given to another, before the mail went out)."""
    pending = [index for index in range(start, len(log)) if _announced(log[index])]
    if not pending:
        return
    fold = journal.SeatsFold(copy.deepcopy(store.created()), {})
    fed = 0
    for index in pending:
        for entry in log[fed : index + 1]:
            fold.feed(entry, store.read_json)
        fed = index + 1
        yield index, fold.meta


def _lang_at(address: str, *games: dict[str, Any]) -> str:
    """The language of whoever reads ``address``: that of the first of ``games`` (the game
    now, then as a line left it) with a player there, else the game's."""
    for meta in games:
        for player in meta["players"]:
            if player["email"] == address:
                return lang_of(meta, player["name"])
    return game_lang(games[0])


def _announcement(
    entry: dict[str, Any],
    meta: dict[str, Any],
    now: dict[str, Any],
    read: Callable[[str], Any],
    committed: Callable[[int], set[str]],
) -> tuple[Msg | None, list[str]]:
    """What players are told of one game master's action (a code), and who is told: the seats
    that played in ``meta`` (the game as the line left it), at their addresses in ``now`` (a
    seat given to another since is told at the new one); ``committed(turn)``: who had
    committed to an order for ``turn`` at that line."""
    kind = entry["type"]
    address = {p["name"]: p["email"] for p in meta["players"]}
    address.update((p["name"], p["email"]) for p in now["players"])
    playing = [address[p["name"]] for p in meta["players"] if not p.get("resigned")]
    where = schedule.game_zone(meta)
    turn: int = entry.get("turn", 0)
    reveal = entry.get("reveal")
    if reveal:  # sealing: commit-reveal: those who committed send their orders now (not
        # those who owed none this turn, nor those who made none: they have nothing to reveal)
        sealed = committed(reveal["turn"])
        told = [
            address[p["name"]]
            for p in meta["players"]
            if not p.get("resigned") and p["name"] in sealed
        ]
        label = turn_label(reveal["turn"])
        if reveal.get("deadline"):
            when = schedule.shown(datetime.fromisoformat(reveal["deadline"]), where)
            return Msg("mail-announce-reveal-deadline", {"turn": label, "deadline": when}), told
        return Msg("mail-announce-reveal", {"turn": label}), told
    mailed = entry.get("mailed")
    if mailed:  # the clock waited for the mail: the reports said the deadline before it moved
        when = schedule.shown(datetime.fromisoformat(mailed["deadline"]), where)
        label = turn_label(mailed["turn"])
        return Msg("mail-announce-mailed", {"turn": label, "deadline": when}), playing
    moved = entry.get("deadline_moved")
    if moved:  # absence: extend
        when = schedule.shown(datetime.fromisoformat(moved["deadline"]), where)
        return Msg(
            "mail-announce-absence", {"turn": turn_label(moved["turn"]), "deadline": when}
        ), playing
    if kind in ("extended", "resumed") and entry.get("deadline"):
        when = schedule.shown(datetime.fromisoformat(entry["deadline"]), where)
        code = "mail-announce-resumed-deadline" if kind == "resumed" else "mail-announce-extended"
        return Msg(code, {"turn": turn_label(turn), "deadline": when}), playing
    if kind == "resumed":
        return Msg("mail-announce-resumed", {}), playing
    if kind == "paused" and entry.get("refused"):  # a player's report could not be delivered
        return Msg("mail-announce-paused-refused", {}), playing
    if kind == "paused":
        return Msg("mail-announce-paused", {}), playing
    if kind == "resigned":  # told to the one who left too, where they read then
        player = entry["player"]
        told = [*playing, _email(meta, player)]
        return Msg("mail-announce-resigned", {"player": player, "turn": turn_label(turn)}), told
    if kind == "replaced":
        player = entry["player"]
        new_key = entry["key"] != entry["was_key"]
        email, was_email = journal.addresses(entry, read)
        code = "mail-announce-replaced-key" if new_key else "mail-announce-replaced"
        if not new_key and email == was_email and "lang" in entry:
            code = "mail-announce-replaced-lang"
        told = list(dict.fromkeys([email, was_email]))
        return Msg(code, {"player": player}), told
    if kind == "rolled-back":
        return Msg("mail-announce-rolled-back", {"turn": turn_label(turn)}), playing
    return None, []


def _notice_name(entry: dict[str, Any], index: int, reader: str) -> str:
    """The queued file's label: ``reveal-<turn>-<player>`` for the notice that opens a turn's
    reveal, which holds the clock as the turn's reports do (its players are told only by it to
    reveal), else ``announce-<line>-<reader>``."""
    if entry.get("reveal"):
        return f"reveal-{entry['reveal']['turn']}-{reader}"
    return f"announce-{index}-{reader}"


def announce(root: Path, sender: str) -> int:
    """Queue a notice of every game master's action not announced before; how many."""
    count = 0
    with steps.step(root, "announce") as running:
        store = running.store
        meta = store.meta()
        log = store.log()
        start = running.facts.announced
        stopped = {p["email"] for p in meta["players"] if p.get("resigned")}
        for index, then in _seats_then(store, log, start):
            entry = log[index]

            def committed(turn: int, upto: int = index) -> set[str]:
                return set(journal.facts(log[: upto + 1]).committed.get(turn, {}))

            action, told = _announcement(entry, then, meta, store.read_json, committed)
            if action is None:
                continue
            leaving = _email(then, entry["player"]) if entry["type"] == "resigned" else None
            for address in dict.fromkeys(told):  # one notice an address
                if address in stopped and address != leaving:
                    continue  # resigned since: mail to them stops
                _notice(
                    root,
                    sender,
                    address,
                    present_mail.announcement(
                        game_id=meta["id"],
                        action=action,
                        lang=_lang_at(address, meta, then),  # as they read now
                        game=load_game(meta["game"]),
                    ),
                    f"{meta['id']}.announce.{index}",
                    name=_notice_name(entry, index, _reader_at(entry, address, then, meta)),
                )
                count += 1
        if count:
            running.commit("queued", announced=len(log) + 1)
    return count
