"""What ``verify`` finds: each disagreement (:class:`Finding`) and the summary of a check
(:class:`Summary`), data that the presentation layer words."""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.rules.contract import Msg
from adjudicator.store.gamedir import GENESIS


@dataclass
class Finding:
    """One thing in the archive that does not agree: the turn it belongs to (None: the game as
    a whole), the file (``log.jsonl`` for the journal, ``seed`` or ``salt``), and why."""

    turn: int | None
    path: str
    problem: Msg


@dataclass(frozen=True)
class KeyChange:
    """A seat's key replaced (``replace --key``), by the fingerprints ``ssh-keygen -l`` prints:
    at turn ``turn``, ``player``'s key ``old`` gave way to ``new``."""

    turn: int
    player: str
    old: str
    new: str


@dataclass(frozen=True)
class Seat:
    """A player's own check: their name and the fingerprint of the key they hold."""

    player: str
    key: str


@dataclass
class Summary:
    """What ``verify`` checked, and what disagreed (nothing: all agrees)."""

    id: str
    game: str
    public: bool
    over: bool
    lines: int = 0
    head: str = GENESIS
    files: int = 0
    signatures: int = 0
    notices: int = 0
    """Of the notices (press, absences, votes) checked, each signed by its player's key."""
    turns: int = 0
    """Adjudications played again (0 when the seed is not revealed yet)."""
    commitment: str = "none"
    """``opened`` (the seed and salt open it), ``sealed`` (not revealed yet) or ``none`` (a game
    made before seeds were committed)."""
    replayed: bool = False
    keys: list[KeyChange] = field(default_factory=list)
    """Every key a seat took after the start, in the order of the journal."""
    seat: Seat | None = None
    """The seat ``--player NAME --key FILE`` asked about: every order and notice of it must have
    been accepted under that key."""
    findings: list[Finding] = field(default_factory=list)

    def first(self) -> Finding | None:
        """The finding of the earliest turn (the game as a whole first)."""
        if not self.findings:
            return None
        return min(self.findings, key=lambda f: -1 if f.turn is None else f.turn)
