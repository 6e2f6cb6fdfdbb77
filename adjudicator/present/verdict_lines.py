"""An order's verdict in lines, as ``submit`` and ``check`` print them (docs/order-files.md).

The fixed words (``accepted``, ``replaces the earlier order``, ``refused:``, ``line N:``,
``note:``) stay as written in every language; the reasons and notes are in the reader's.
"""

from __future__ import annotations

from adjudicator.present.words import say
from adjudicator.rules.contract import Game, Reason
from adjudicator.rules.errors import AdjudicatorError
from adjudicator.rules.verdict import Verdict


def placed(reason: Reason, game: Game | None = None, lang: str = "en") -> str:
    """``line 3, column 7: reason``, ``line 3: reason`` or ``reason``."""
    text = say(reason.msg, game, lang)
    if not reason.line:
        return text
    if reason.column is None:
        return f"line {reason.line}: {text}"
    return f"line {reason.line}, column {reason.column}: {text}"


def reason_lines(verdict: Verdict, lang: str | None = None) -> list[str]:
    """Each reason placed, in ``lang`` (default: the verdict's)."""
    return [placed(r, verdict.game, lang or verdict.lang) for r in verdict.reasons]


def note_lines(verdict: Verdict, lang: str | None = None) -> list[str]:
    """``  note: ...`` for each note of an accepted order."""
    if not verdict.accepted:
        return []
    return [f"  note: {placed(n, verdict.game, lang or verdict.lang)}" for n in verdict.notes]


def verdict_lines(verdict: Verdict, lang: str | None = None) -> list[str]:
    if verdict.accepted and verdict.kind is not None:
        return [f"{verdict.label}: accepted ({verdict.player}, {verdict.kind})"]
    if verdict.accepted:
        extra = ", replaces the earlier order" if verdict.replaces else ""
        head = f"{verdict.label}: accepted ({verdict.player}, turn {verdict.turn}){extra}"
        return [head, *note_lines(verdict, lang)]
    first, *rest = reason_lines(verdict, lang) or ["refused"]
    return [f"{verdict.label}: refused: {first}", *(f"  {r}" for r in rest)]


def system_refusal(error: OSError) -> str | None:
    """What the system refused, as every command says it, when it is this user's rights (or a
    read-only mount) or a full disk (or quota): the file when the error names one, why, and
    what to do; None for any other error."""
    import errno

    where = f"{error.filename}: " if error.filename else ""
    said = f"{where}{error.strerror or error}"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (
            f"{said}: this user may not use this file as the command needs; run it as the user "
            "the game's files belong to, or give this one the right. A step it began is "
            "finished or undone by the next command that may"
        )
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return (
            f"{said}: the disk (or this user's share of it) is full; make room and run the "
            "command again. A step it began is finished or undone by the next command"
        )
    return None


def unreadable_why(error: Exception) -> str:
    """Why a game cannot be read, as a run over many games says it: a domain error's words (a
    game file changed by hand, named), else the error's kind and text."""
    if isinstance(error, AdjudicatorError):
        return error_text(error)
    return f"{type(error).__name__}: {error}"


def error_text(error: AdjudicatorError, lang: str = "en") -> str:
    """A domain error as the command line prints it: the message, then each detail indented."""
    head = error.message if isinstance(error.message, str) else say(error.message, error.game, lang)
    details = [d if isinstance(d, str) else placed(d, error.game, lang) for d in error.details]
    return "\n".join([head, *(f"  {line}" for line in details)])
