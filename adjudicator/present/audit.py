"""What ``verify`` found, in words: its summary when everything agrees, else the disagreements,
the earliest turn first (the first line names the turn and the file)."""

from __future__ import annotations

from adjudicator.audit.findings import Finding, Summary
from adjudicator.present.words import say
from adjudicator.rules.contract import Game, msg
from adjudicator.rules.errors import UsageProblem
from adjudicator.store.registry import load_game

SHOWN_FINDINGS = 20


def finding_line(finding: Finding, lang: str = "en", game: Game | None = None) -> str:
    """One disagreement; ``game``: whose words a reason of the game's own is in (an order the
    engine refuses for the game's rules)."""
    if finding.turn is None:
        return say(msg("verify-at-game", path=finding.path, why=finding.problem), game, lang)
    at = msg("verify-at-turn", turn=finding.turn, path=finding.path, why=finding.problem)
    return say(at, game, lang)


def _game_of(summary: Summary) -> Game | None:
    """The archive's game, when it is installed here."""
    try:
        return load_game(str(summary.game))
    except UsageProblem:
        return None


def finding_lines(summary: Summary, lang: str = "en") -> list[str]:
    """Every disagreement, the first by turn first; at most :data:`SHOWN_FINDINGS` of them."""
    first = summary.first()
    assert first is not None
    rest = [f for f in summary.findings if f is not first]
    rest.sort(key=lambda f: -1 if f.turn is None else f.turn)
    shown = [first, *rest][:SHOWN_FINDINGS]
    game = _game_of(summary)
    lines = [finding_line(f, lang, game) for f in shown]
    more = len(summary.findings) - len(shown)
    if more:
        lines.append(say(msg("verify-more-findings", count=more), lang=lang))
    return lines


def summary_lines(summary: Summary, head: str | None = None, lang: str = "en") -> list[str]:
    """What was checked, when everything agrees."""
    agrees = "verify-agrees-public" if summary.public else "verify-agrees"
    said = [
        msg(agrees, id=summary.id, game=summary.game),
        msg("verify-journal", lines=summary.lines, head=summary.head),
    ]
    if head is not None:
        said.append(msg("verify-through-head", head=head.lower()))
    said += [
        msg("verify-files", count=summary.files),
        msg("verify-signatures", count=summary.signatures)
        if summary.signatures
        else msg("verify-signatures-none"),
        *([msg("verify-notices", count=summary.notices)] if summary.notices else []),
        msg(f"verify-commitment-{summary.commitment}"),
        msg("verify-replayed", count=summary.turns)
        if summary.replayed
        else msg("verify-replay-waits"),
        *[
            msg("verify-key-replaced", turn=c.turn, player=c.player, old=c.old, new=c.new)
            for c in summary.keys
        ],
        *([] if summary.keys else [msg("verify-keys-kept")]),
        *(
            [msg("verify-your-key", player=summary.seat.player, key=summary.seat.key)]
            if summary.seat is not None
            else []
        ),
    ]
    lines = [say(m, lang=lang) for m in said]
    return [lines[0], *(f"  {line}" for line in lines[1:])]
