"""Domain errors. Library code raises these; only the CLI turns them into exit codes."""

from __future__ import annotations


class AdjudicatorError(Exception):
    """Base of every error a user can cause (never a bug)."""

    exit_code = 1

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []

    def __str__(self) -> str:
        return "\n".join([self.message, *(f"  {line}" for line in self.details)])


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
