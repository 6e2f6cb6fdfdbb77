"""What became of one order file: the data ``submit``, ``check`` and mail word at the edge."""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.rules.contract import Game, Reason
from adjudicator.rules.lang import DEFAULT


@dataclass
class Verdict:
    """What became of one order file."""

    label: str
    accepted: bool
    player: str | None = None
    turn: int | None = None
    replaces: bool = False
    reasons: list[Reason] = field(default_factory=list)
    sha256: str | None = None  # of the bytes as signed, once accepted
    notes: list[Reason] = field(default_factory=list)  # of an accepted order; they never refuse
    game: Game | None = None  # whose words the reasons and notes are in
    lang: str = DEFAULT  # the language they are told in: the game's, or a form's for check
    kind: str | None = None  # a notice's kind (press, absence, vote); None for an order
