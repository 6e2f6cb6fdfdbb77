"""Domain errors. Library code raises these; only the CLI turns them into exit codes."""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.rules.contract import Game, Msg, Reason


class AdjudicatorError(Exception):
    """Base of every error a user can cause (never a bug).

    ``message`` is the first line: text, or a ``Msg`` the presentation layer words; ``details``
    are lines below it: placed problems (``Reason``, worded by the presentation layer in
    ``game``'s words when one is given) or text.
    """

    exit_code = 1

    def __init__(
        self,
        message: str | Msg,
        details: Sequence[str | Reason] | None = None,
        game: Game | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = list(details or [])
        self.game = game

    def __str__(self) -> str:
        """The message and its text details (a ``Msg`` or ``Reason`` by its code: the command
        line words it through :func:`adjudicator.present.verdict_lines.error_text`)."""
        head = self.message if isinstance(self.message, str) else self.message.code
        lines = [d if isinstance(d, str) else d.msg.code for d in self.details]
        return "\n".join([head, *(f"  {line}" for line in lines)])


class UsageProblem(AdjudicatorError):
    """The command was called wrongly (exit 2)."""

    exit_code = 2


class InputRefused(AdjudicatorError):
    """An order, signature or setup file was refused; nothing in the game changed (exit 3)."""

    exit_code = 3


class NotNow(AdjudicatorError):
    """Not possible now: orders missing, a game that is over, a game locked (exit 4)."""

    exit_code = 4


class Locked(NotNow):
    """Another command holds the game's lock (exit 4; the mail commands exit 75 instead)."""


class TempFail(AdjudicatorError):
    """A mail server cannot be reached or a game stays locked: nothing changed, run again
    (exit 75, EX_TEMPFAIL, so a mail server's pipe retries)."""

    exit_code = 75
