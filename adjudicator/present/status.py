"""What the game master's commands say in lines: ``status``, ``adjudicate`` (and its preview),
how the players' votes ended a game, and what ``send`` and ``tick`` did in each game.

Light to import: ``status`` of a game without a deadline loads no YAML parser.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from adjudicator.rules import schedule
from adjudicator.store import clock


def status_lines(data: dict[str, Any]) -> list[str]:
    """``status`` as text, from the data ``status --json`` prints."""
    if data.get("phase") in ("signup", "closed"):
        return [f"{data['id']} ({data['game']}): {seats_text(data)}", *_waiting_lines(data)]
    if data["over"]:  # the last adjudication, of the turn before, opened no turn
        after = f" after turn {data['turn'] - 1}" if data["turn"] > 1 else ""
        lines = [f"{data['id']} ({data['game']}): the game is over{after}"]
        if data["ended"] is not None:
            lines.append(ended_text(data["ended"]))
        return lines + _waiting_lines(data)
    if "shares_owed" in data:  # shares: ask, before the deal
        owing = ", ".join(data["shares_owed"])
        lines = [f"{data['id']} ({data['game']}): not dealt yet, waiting for shares from {owing}"]
        return lines + _waiting_lines(data)
    phase = {"commit": ": commitments", "reveal": ": the reveal"}.get(data["phase"], "")
    lines = [f"{data['id']} ({data['game']}), turn {data['turn']}{phase}"]
    for player, to_do in data["owed"].items():
        state = "received" if player in data["received"] else "waiting"
        if player in data["resigned"]:
            state = "resigned: default orders"
        elif player in data["conceded"]:
            state = "conceded: default orders"
        elif player in data["without"]:
            state = "no commitment: default orders"
        elif player not in data["received"] and player not in data["waiting_for"]:
            state = "away: default orders unless they send orders"  # absence: default
        owes = {"commit": f"a commitment to {to_do}", "reveal": f"{to_do} as committed"}
        lines.append(f"  {player}: owes {owes.get(data['phase'], to_do)} ({state})")
    for stretch in data["away"]:
        lines.append(f"away: {stretch['player']} from {stretch['from']} to {stretch['to']}")
    lines.append(f"deadline: {deadline_text(data)}")
    if data["rolled_back"]:
        lines.append("rolled back: adjudicate again (the orders are fixed)")
    if data["agreed"]:
        lines.append("the players' votes end the game at the next adjudication (due now)")
    return lines + _waiting_lines(data)


def _waiting_lines(data: dict[str, Any]) -> list[str]:
    """The mail queued and the problems, where ``data`` says them (``status`` does)."""
    lines = []
    if data.get("queued"):
        lines.append(f"mail: {queued_text(data['queued'])} (`adjudicator send` sends them)")
    if data.get("refused"):
        lines.append(f"mail: {refused_text(data['refused'])}")
    if data.get("problems"):
        from adjudicator.present.words import said  # YAML: only when there is one to word

        lines += [f"problem: {said(p)}" for p in data["problems"]]
    return lines


def game_line(data: dict[str, Any]) -> str:
    """One game of a folder on one line, beginning with its id: the turn and who owes, the
    deadline, the mail queued, and any problem."""
    from adjudicator.present.words import said

    problems = [said(p) for p in data.get("problems") or []]
    if "turn" not in data:  # a game that cannot be read
        return f"{data['id']}: problem: {'; '.join(problems)}"
    if data.get("phase") in ("signup", "closed"):
        parts = [f"{data['id']}: {seats_text(data)}"]
    elif data["over"]:
        parts = [f"{data['id']}: over after turn {data['turn'] - 1}"]
    elif "shares_owed" in data:
        parts = [f"{data['id']}: not dealt yet, waiting for shares from "]
        parts[0] += ", ".join(data["shares_owed"])
    else:
        phase = {"commit": " (commitments)", "reveal": " (the reveal)"}.get(data["phase"], "")
        waiting = ", ".join(data["waiting_for"]) or "nobody"
        parts = [f"{data['id']}: turn {data['turn']}{phase}, waiting for {waiting}"]
        deadline = "none" if data["deadline"] is None else _short(data)
        parts.append(f"deadline {deadline}{_standing(data)}")
    if data.get("queued"):
        parts.append(f"mail: {queued_text(data['queued'])}")
    if data.get("refused"):
        parts.append(f"mail: {refused_text(data['refused'])}")
    parts += [f"problem: {p}" for p in problems]
    return "; ".join(parts)


def _standing(data: dict[str, Any]) -> str:
    """Why the clock stands still, in brackets, or nothing."""
    if data["paused"]:
        return " (paused)"
    return " (reports waiting to be sent)" if data.get("waiting_for_mail") else ""


def _short(data: dict[str, Any]) -> str:
    return schedule.utc_text(datetime.fromisoformat(data["deadline"]))


def refused_text(count: int) -> str:
    """The mail the server refused for good, waiting for the game master."""
    what = "1 message" if count == 1 else f"{count} messages"
    return (
        f"{what} refused for good in mail/failed/ (`adjudicator send GAMEDIR --retry` once fixed)"
    )


def queued_text(queued: dict[str, Any]) -> str:
    """How much mail waits and for how long the oldest has."""
    since = clock.now() - datetime.fromisoformat(queued["oldest"])
    hours, minutes = divmod(max(int(since.total_seconds()) // 60, 0), 60)
    age = f"{hours}h" if hours else f"{minutes}m"
    return f"{queued['count']} queued, the oldest for {age}"


def deadline_text(data: dict[str, Any]) -> str:
    """The deadline in UTC and the game's zone, with the time left, or why there is none."""
    if data["deadline"] is None:
        return "none" + (" (paused)" if data["paused"] else "")
    deadline = datetime.fromisoformat(data["deadline"])
    text = schedule.shown_in(deadline, data["timezone"])
    if data["paused"]:
        return f"{text} (paused: the clock stands still)"
    if data.get("waiting_for_mail"):
        return (
            f"{text} if the reports left now (the reports of turn {data['turn']} wait to be "
            "sent: the clock stands still until the last has left)"
        )
    from adjudicator.present.words import say  # YAML: only when there is a deadline to word

    return f"{text}; {say(schedule.left(deadline, clock.now()))}"


def adjudicated_lines(gamedir: Path, result: dict[str, Any], would: bool = False) -> list[str]:
    """What ``adjudicate`` says it did (``would``: what it would do, for ``--preview``)."""
    done = "would be adjudicated" if would else "adjudicated"
    line = f"{gamedir}: turn {result['turn']} {done}"
    if result["revealing"]:  # sealing: commit-reveal: the commitments' phase is over
        opens = "would open" if would else "is open"
        line = f"{gamedir}: the reveal of turn {result['turn']} {opens}"
    if result["defaulted"]:
        line += f" (default orders for {', '.join(result['defaulted'])})"
    lines = [line]
    ended = result.get("ended")
    if ended is not None:
        lines.append(ended_text(ended, would))
    elif result["over"]:
        lines.append("the game would be over" if would else "the game is over")
    return lines


def ended_text(ended: dict[str, Any], would: bool = False) -> str:
    """How the players' votes end the game, in a line."""
    is_over = "the game would be over" if would else "the game is over"
    if ended["by"] == "draw":
        return f"{is_over}: a draw, agreed by {', '.join(ended['players'])}"
    if ended["winner"] is None:
        return f"{is_over}: every player conceded, nobody wins"
    return f"{is_over}: every other player conceded, {ended['winner']} wins"


class Sent(Protocol):
    """What one game's delivery did (``adjudicator.mail.queue.SendReport``): file names."""

    sent: list[str]
    written: list[str]
    in_doubt: list[str]
    refused_for_good: list[tuple[str, str]]


class ClockOutcome(Protocol):
    """What the clock did in one game (``adjudicator.mail.clock_step.ClockDone``)."""

    turn: int
    adjudicated: bool
    over: bool
    ended: dict[str, Any] | None
    revealing: bool
    defaulted: list[str]
    not_now: str | None
    waiting_for: list[str]
    reminded: list[str]
    before: str | None
    signup: str | None


def sent_lines(game_id: str, report: Sent) -> list[str]:
    """Each message of one game that ``send`` handed over, wrote, left in doubt or saw refused."""
    lines = [f"{game_id}: sent {name}" for name in report.sent]
    lines += [f"{game_id}: written to outbox/{name}" for name in report.written]
    lines += [
        f"{game_id}: in doubt: {name} (a send was cut short; it stays in mail/sending/ "
        "and is not sent again: check whether it arrived)"
        for name in report.in_doubt
    ]
    lines += [
        f"{game_id}: refused for good, kept in mail/failed/: {name}: {answer}"
        for name, answer in report.refused_for_good
    ]
    return lines


def settled_line(game_id: str, name: str, arrived: bool) -> str:
    """What ``send --in-doubt`` did with one message in doubt."""
    if arrived:
        return f"{game_id}: {name} was in doubt and arrived: moved to mail/sent/"
    return f"{game_id}: {name} was in doubt and did not arrive: queued again"


def requeued_line(game_id: str, name: str) -> str:
    """A message refused for good that ``send --retry`` queued again, by its new name."""
    return f"{game_id}: queued again from mail/failed/: {name}"


def clock_lines(game_id: str, done: ClockOutcome) -> list[str]:
    """What the clock did in one game: adjudicated, told the game master it waits, reminded."""
    if done.not_now is not None:
        return [f"{game_id}: {done.not_now}"]
    if done.signup == "started":
        return [f"{game_id}: the sign-up ended; the game started"]
    if done.signup == "closed":
        return [f"{game_id}: the sign-up ended with too few players; the game did not start"]
    if done.adjudicated:
        why = f" (default orders for {', '.join(done.defaulted)})" if done.defaulted else ""
        if done.revealing:
            lines = [f"{game_id}: the reveal of turn {done.turn} is open{why}"]
        else:
            lines = [f"{game_id}: adjudicated turn {done.turn}{why}"]
        if done.over:
            said = "the game is over" if done.ended is None else ended_text(done.ended)
            lines.append(f"{game_id}: {said}")
        return lines
    if done.waiting_for:
        return [
            f"{game_id}: turn {done.turn} is past its deadline and waits for "
            f"{', '.join(done.waiting_for)} (nmr: wait); the game master is told"
        ]
    if done.reminded:
        return [
            f"{game_id}: reminded {', '.join(done.reminded)} ({done.before} before the deadline)"
        ]
    return []


def seats_text(data: dict[str, Any]) -> str:
    """An open game's seats on one line (``status`` of a game in sign-up, or that did not
    start)."""
    seats = data["seats"]
    taken = ", ".join(seats["taken"]) or "none"
    if data["phase"] == "closed":
        return f"did not start: too few players by the end of its sign-up (seated: {taken})"
    span = str(seats["max"]) if seats["min"] == seats["max"] else f"{seats['min']}–{seats['max']}"
    words = [f"open for sign-up, {len(seats['taken'])} of {span} seats taken ({taken})"]
    if seats["confirmed"]:
        words.append(f"to seat (adjudicator seat): {', '.join(seats['confirmed'])}")
    if seats["unconfirmed"]:
        words.append(f"address not confirmed yet: {', '.join(seats['unconfirmed'])}")
    if seats["until"]:
        words.append(f"sign-up ends {seats['until']}")
    return "; ".join(words)
