"""What ``tick`` does by the clock in one game: adjudicate a turn that is complete or past its
deadline, tell the game master that a game waits (``nmr: wait``), or remind the players who
still owe orders. Each is a step of its own (:mod:`adjudicator.store.steps`); this returns what was
done, as data, for the command to print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.engine import adjudication
from adjudicator.engine.open_game import OpenGame
from adjudicator.mail.config import DEFAULT_SENDER, MailSettings
from adjudicator.mail.due import due_now, due_of, remind, tell_waiting
from adjudicator.rules.errors import NotNow
from adjudicator.store.gamedir import GameDir


@dataclass
class ClockDone:
    """At most one thing happens per game and run; ``turn`` is the turn it concerned."""

    turn: int
    adjudicated: bool = False
    over: bool = False
    """The adjudication ended the game."""
    ended: dict[str, Any] | None = None
    """How the players' votes ended it (:func:`adjudicator.rules.votes.ending`), if they did."""
    revealing: bool = False
    """What was adjudicated was a commit phase: the reveal opened (``sealing: commit-reveal``)."""
    defaulted: list[str] = field(default_factory=list)
    not_now: str | None = None
    """Why the adjudication that was due did not happen (another run was quicker)."""
    waiting_for: list[str] = field(default_factory=list)
    reminded: list[str] = field(default_factory=list)
    before: str | None = None
    """The reminder sent (``2h`` before the deadline)."""
    signup: str | None = None
    """An open game's sign-up ended: it ``started``, or was ``closed`` (too few players)."""


def _due_as_it_stands(handle: OpenGame) -> adjudication.Why | None:
    """Why the clock adjudicates the game now, judged again under the game's lock, or None."""
    return due_of(handle)[0].adjudicate


MAIL_WAITS = "a message left for a later run may hold an order in time: the deadline waits"
NOT_MAILED = "the turn's reports were never queued: the deadline waits for them to leave"


def _not_mailed_yet(root: Path, turn: int) -> bool:
    """Whether the reports of ``turn`` were never queued (a first tick days after ``new``, the
    game master's own ``adjudicate``, runs an outage stopped before their send): its players
    were never told of the turn. The run's send queues them (a game ``tick`` runs is played by
    mail); queued, they hold the clock until they leave, and the wait counts from the turn's
    opening."""
    return turn not in GameDir(root).facts().queued


def run_clock(root: Path, settings: MailSettings, mail_waits: bool = False) -> ClockDone:
    """Whatever the clock asks of the game at ``root`` now. ``mail_waits``: the run left a
    message unread (its game locked, or not to be read), which may be this game's and hold an
    order sent in time: nothing is adjudicated by the deadline."""
    sender = settings.sender or DEFAULT_SENDER
    due, status, _, _ = due_now(root)
    done = ClockDone(status["turn"])
    if status.get("phase") == "signup":  # an open game: its sign-up may have ended
        from adjudicator.engine import signup

        done.signup = signup.at_deadline(root)
        return done
    if due.adjudicate == "deadline" and mail_waits:
        done.not_now = MAIL_WAITS
        return done
    by_the_clock = due.adjudicate == "deadline" or due.wait or due.remind is not None
    if by_the_clock and _not_mailed_yet(root, done.turn):
        # no deadline passes, and nobody is reminded or waited for, before the turn is mailed
        if due.adjudicate == "deadline":
            done.not_now = NOT_MAILED
        return done
    if due.adjudicate is not None:
        try:
            result = adjudication.adjudicate(
                root,
                due.adjudicate == "deadline",
                due.adjudicate,
                only_turn=done.turn,
                still_due=_due_as_it_stands,
            )
        except NotNow as error:
            done.not_now = str(error)
            return done
        done.adjudicated, done.defaulted = True, result["defaulted"]
        done.revealing = result["revealing"]
        done.over, done.ended = result["over"], result.get("ended")
    elif due.wait:
        done.waiting_for = tell_waiting(root, sender, settings.gm) or []
    elif due.remind is not None:
        reminded = remind(root, sender)
        if reminded is not None:
            done.before, done.reminded = reminded
    return done
