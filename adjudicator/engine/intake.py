"""Judging order files: the pipeline parse -> verify signature -> check envelope -> validate ->
store, for ``submit``, mail and ``check`` (a player's own check against their form).

Kept apart from :mod:`adjudicator.engine` so that commands that only read a game never import
the YAML parser, the schemas or the signature code. Under ``sealing: commit-reveal`` a file is
a commitment, a reveal or an order by its keys, and the turn's phase says which it must be.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.engine import absences
from adjudicator.engine.dealing import deal_if_ready
from adjudicator.engine.gate import NO_SIGNATURE, out_of_game, signature_reason
from adjudicator.engine.notices import looks_like_notice
from adjudicator.engine.open_game import OpenGame, now
from adjudicator.engine.orders import (
    Kind,
    Refusal,
    Submission,
    check_envelope,
    game_problems,
    order_and_signature,
    pair,
    parse,
    sha256,
    within_caps,
)
from adjudicator.rules import sealing
from adjudicator.rules.contract import Msg, Problem, Reason, msg
from adjudicator.rules.errors import NotNow
from adjudicator.rules.lang import game_lang
from adjudicator.rules.verdict import Verdict
from adjudicator.signing import sshsig
from adjudicator.store import steps
from adjudicator.store.gamedir import GameDir


# -- submit ------------------------------------------------------------------------------------
def submit(root: Path, paths: list[Path], only: str | None = None) -> list[Verdict]:
    """Judge each order file (or notice) in turn against the game as the files before it left
    it; one step (one journal line) for all those accepted. ``only``: the one kind of notice
    taken (``press`` and ``absence`` take only their own)."""
    GameDir(root).require()  # a folder that is no game is named before the files are
    submissions = pair(paths)
    verdicts = []
    with steps.step(root, "submit") as running:
        handle = OpenGame(root)
        if handle.over():
            raise NotNow(f"game {handle.meta['id']} is over; it takes no more orders")
        for submission in submissions:
            verdicts.append(_submit_one(handle, submission, only))
        if handle.pending or handle.noticed or handle.seating:
            dealt = deal_if_ready(handle)
            running.commit("submitted", **accepted_lines(handle), **handle.opening(), **dealt)
    return verdicts


def accepted_lines(handle: OpenGame) -> dict[str, Any]:
    """What a step's journal line says it accepted: ``orders``, and ``notices`` when it took
    any (a line without notices has no such key, as lines made before them), and
    ``deadline_moved`` when an absence it took moves the current turn's deadline."""
    noticed = {"notices": handle.noticed} if handle.noticed else {}
    seats = {}
    if handle.seating:
        from adjudicator.engine.signup import seating_fields

        seats = seating_fields(handle)
    return {"orders": handle.pending, **noticed, **absences.moved_now(handle), **seats}


def _submit_one(handle: OpenGame, submission: Submission, only: str | None) -> Verdict:
    label = str(submission.order_path)
    try:
        received, signature = order_and_signature(submission)
    except Refusal as refusal:
        return Verdict(label, False, reasons=[Reason(refusal.reason)])
    return judge(handle, label, received, signature, only)


def judge_received(handle: OpenGame, label: str, received: bytes, signature: bytes) -> Verdict:
    """Judge one order that came by mail (already split from its signature), inside a step."""
    if handle.over():
        return Verdict(label, False, reasons=[Reason(msg("game-over", game=handle.meta["id"]))])
    try:
        within_caps(received, signature)
    except Refusal as refusal:
        return Verdict(label, False, reasons=[Reason(refusal.reason)])
    return judge(handle, label, received, signature)


def judge(
    handle: OpenGame,
    label: str,
    received: bytes,
    signature: bytes | None,
    only: str | None = None,
) -> Verdict:
    """The pipeline for one order (or notice): parse, verify, envelope, validate, store."""
    if looks_like_join(received) and only is None:
        from adjudicator.engine.signup import judge_join

        verdict = judge_join(handle, label, received, signature)
    elif looks_like_notice(received) or only is not None:
        from adjudicator.engine.notice_intake import judge_notice

        verdict = judge_notice(handle, label, received, signature, only)
    else:
        verdict = _judge(handle, label, received, signature)
    verdict.game = handle.game
    verdict.lang = game_lang(handle.meta)
    return verdict


def looks_like_join(received: bytes) -> bool:
    """Whether a file has a top-level ``join:`` key (an open game's join or leave:
    :mod:`adjudicator.engine.signup`)."""
    return received.startswith(b"join:") or b"\njoin:" in received


@dataclass
class Taken:
    """An order (or commitment) the intake accepts, before it is stored."""

    player: str
    turn: int
    kind: Kind
    signed: bytes
    """The bytes the signature covers (the file as its player signed it)."""
    signature: bytes
    digest: str
    """The journal's digest of ``signed``: what a replay of the same bytes is found by."""
    notes: list[Reason]

    def verdict(self, label: str, replaces: bool) -> Verdict:
        return Verdict(
            label,
            True,
            self.player,
            self.turn,
            replaces,
            sha256=sha256(self.signed),
            notes=self.notes,
        )


def _judge(handle: OpenGame, label: str, received: bytes, signature: bytes | None) -> Verdict:
    taken = assess(handle, label, received, signature)
    if isinstance(taken, Verdict):
        return taken
    return taken.verdict(label, _store_order(handle, taken))


def assess(
    handle: OpenGame, label: str, received: bytes, signature: bytes | None
) -> Taken | Verdict:
    """Judge one order as the game stands in ``handle``, storing nothing: what it would take,
    or the refusal. The engine stores what it takes; ``verify`` judges each order the journal
    took again, as the game stood then."""
    kind = _kind_of(received)
    parsed = parse(received, handle.game, kind)
    if parsed.data is None:
        if signature is None:
            parsed.reasons.insert(0, NO_SIGNATURE)
        return Verdict(label, False, reasons=parsed.reasons)
    player = parsed.data.get("player")
    if not isinstance(player, str) or player not in handle.players:
        if isinstance(player, str):
            parsed.add(
                Problem("unknown-player", ("player",), player=player, game=handle.meta["id"])
            )
        return Verdict(label, False, reasons=parsed.reasons)
    if signature is None:
        return Verdict(label, False, player, reasons=[NO_SIGNATURE, *parsed.reasons])
    try:
        signed = sshsig.verify_variants(received, signature, handle.key_of(player), signer=player)
    except sshsig.SignatureError as error:
        return Verdict(
            label,
            False,
            player,
            reasons=[Reason(signature_reason(handle, player, error, signature)), *parsed.reasons],
        )
    digest = handle.dir.digester().hidden(signed)
    replayed = handle.accepted().get(digest)
    if replayed is not None:
        return Verdict(
            label,
            False,
            player,
            reasons=[Reason(msg("replay", turn=replayed))],
        )
    turn = handle.turn()
    closed = _closed_to(handle, player, turn) or _wrong_kind(handle, kind, player, turn)
    if closed is None and handle.noticed:
        from adjudicator.engine.notice_intake import not_alone

        closed = not_alone(handle, "order")
    if closed is not None:
        return Verdict(label, False, player, turn, reasons=[Reason(closed)])
    state = handle.state(turn)
    envelope = check_envelope(parsed, handle.meta["id"], player, turn)
    owed = handle.game.owed(state)
    if envelope and player not in owed:
        parsed.reasons.append(Reason(msg("owes-nothing", player=player, turn=turn)))
    elif envelope and kind != "commitment":
        game_problems(parsed, handle.game, handle.game.context(handle.game.view(state, player)))
    if (
        envelope
        and kind == "reveal"
        and commitment_made(handle, turn, player) != (sealing.commitment_of(signed))
    ):
        parsed.reasons.insert(0, Reason(msg("reveal-mismatch", player=player, turn=turn)))
    if not parsed.ok:
        return Verdict(label, False, player, turn, reasons=parsed.reasons)
    return Taken(player, turn, kind, signed, signature, digest, parsed.notes)


def commitment_made(handle: OpenGame, turn: int, player: str) -> str | None:
    """The ``commit`` of ``player``'s commitment in effect for ``turn``, or None."""
    entry = handle.committed(turn).get(player)
    if entry is None:
        return None
    raw = handle.dir.named(
        f"{handle.dir.turn_dir(turn)}/orders/{entry['file']}", handle.facts.files
    )
    data = parse(raw, handle.game, "commitment").data or {}
    commit = data.get("commit")
    return commit if isinstance(commit, str) else None


def _kind_of(received: bytes) -> Kind:
    """What a file looks like it is (a ``commit:`` or ``salt:`` key at the top level): the
    phase of the turn then says whether it is what the turn asks for."""
    for line in received.splitlines():
        if line.startswith(b"commit:"):
            return "commitment"
        if line.startswith(b"salt:"):
            return "reveal"
    return "order"


def _wrong_kind(handle: OpenGame, kind: Kind, player: str, turn: int) -> Msg | None:
    """Why a file of this ``kind`` is not what the turn asks of ``player`` now, or None."""
    phase = handle.phase(turn)
    wanted: dict[str, Kind] = {"orders": "order", "commit": "commitment", "reveal": "reveal"}
    if phase == "reveal" and player in handle.without(turn):
        return msg("reveal-without-commitment", player=player, turn=turn)
    if kind == wanted[phase]:
        return None
    if phase == "orders":
        return msg("not-sealed", game=handle.meta["id"])
    if phase == "commit":
        return msg("commitment-first", turn=turn)
    return msg("reveal-open", turn=turn)


def _open_reveal_when_complete(handle: OpenGame, turn: int, owed: dict[str, Any]) -> None:
    """The step that stores the last owed commitment opens the reveal (a resigned seat owes
    none: it plays the default orders)."""
    out = handle.resigned() + handle.votes().conceded
    missing = [p for p in owed if p not in handle.committed(turn) and p not in out]
    if not missing:
        handle.opens = absences.reveal_of(handle, turn, [])


def _closed_to(handle: OpenGame, player: str, turn: int) -> Msg | None:
    """Why ``player`` may send no order now (the deal waits for shares, out of the game, or the
    turn was rolled back),
    or None."""
    if handle.waiting():
        return msg("waiting-for-shares", game=handle.meta["id"], players=handle.owing())
    out = out_of_game(handle, player)
    if out is None and handle.clock().rolled_back:
        return msg("turn-rolled-back", turn=turn)
    return out


def _store_order(handle: OpenGame, taken: Taken) -> bool:
    """Write the order's (or commitment's) files; the step's journal line will name it in
    effect. True when it replaces the player's order (or commitment) of its turn."""
    store = handle.dir
    turn, player = taken.turn, taken.player
    folder = f"{store.turn_dir(turn)}/orders"
    count = _count(store.root / folder, f"{player}-*.yaml")
    name = f"{player}-{count + 1}.yaml"
    store.write_bytes(f"{folder}/{name}", taken.signed)
    store.write_bytes(f"{folder}/{name}.sig", taken.signature)
    earlier = handle.committed(turn) if taken.kind == "commitment" else handle.in_effect(turn)
    replaces = player in earlier
    entry = {
        "turn": turn,
        "player": player,
        "file": name,
        "digest": taken.digest,
        "replaces": replaces,
        "at": now(),
    }
    if taken.kind == "commitment":
        entry["kind"] = "commitment"
    took(handle, entry)
    return replaces


def _count(folder: Path, pattern: str) -> int:
    """How many names in ``folder`` match ``pattern`` (as ``Path.glob`` would count them,
    without making a path of each of the folder's thousands of files)."""
    from fnmatch import filter as matching

    try:
        return len(matching(os.listdir(folder), pattern))
    except (FileNotFoundError, NotADirectoryError):
        return 0


def took(handle: OpenGame, entry: dict[str, Any]) -> None:
    """Count an order the step took (its journal entry) as accepted within the step; the one
    that completes the turn's commitments opens the reveal."""
    handle.pending.append(entry)
    if entry.get("kind") == "commitment":
        turn = int(entry["turn"])
        _open_reveal_when_complete(handle, turn, handle.game.owed(handle.state(turn)))


# -- check -------------------------------------------------------------------------------------
