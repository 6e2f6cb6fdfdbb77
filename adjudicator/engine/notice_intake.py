"""Judging notices (press, absences, votes): parse -> player -> verify signature -> replay ->
envelope -> what the kind says -> store; for ``submit``, ``press``, ``absence`` and mail.

A notice is judged inside the step of the command (or mail) that brought it, as orders are, and
the step's journal line names it (:meth:`adjudicator.engine.open_game.OpenGame.accepted_lines`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.engine import notices
from adjudicator.engine.gate import NO_SIGNATURE, out_of_game, signature_reason
from adjudicator.engine.notices import Kind
from adjudicator.engine.open_game import OpenGame, now
from adjudicator.engine.orders import sha256
from adjudicator.rules import deal, schedule, votes
from adjudicator.rules.contract import Problem, Reason, msg
from adjudicator.rules.verdict import Verdict
from adjudicator.signing import sshsig
from adjudicator.store import clock


@dataclass
class TakenNotice:
    """A notice the intake accepts, before it is stored."""

    player: str
    kind: Kind
    signed: bytes
    signature: bytes
    digest: str
    """The journal's digest of ``signed``."""


def judge_notice(
    handle: OpenGame, label: str, received: bytes, signature: bytes | None, only: str | None
) -> Verdict:
    """One notice: its verdict, and, when it is accepted, its files written and its entry in
    ``handle.noticed``."""
    taken = assess_notice(handle, label, received, signature, only)
    if isinstance(taken, Verdict):
        return taken
    _store(handle, taken.kind, taken.signed, taken.signature, taken.digest)
    return _verdict(label, True, taken.player, [], taken.kind, sha256(taken.signed))


def assess_notice(
    handle: OpenGame, label: str, received: bytes, signature: bytes | None, only: str | None
) -> TakenNotice | Verdict:
    """Judge one notice as the game stands in ``handle``, storing nothing: what it would take,
    or the refusal (``verify`` judges each notice the journal took again, so)."""
    if only is not None and not notices.looks_like_notice(received):
        return _verdict(label, False, None, [Reason(msg("not-a-notice", only=only))], only)
    parsed = notices.parse(received)
    if parsed.data is None:
        if signature is None:
            parsed.reasons.insert(0, NO_SIGNATURE)
        return _verdict(label, False, None, parsed.reasons, only)
    told = only or notices.kind_of(parsed.data)  # what a refusal's receipt speaks of
    player = parsed.data.get("player")
    if not isinstance(player, str) or player not in handle.players:
        if isinstance(player, str):
            parsed.add(
                Problem("unknown-player", ("player",), player=player, game=handle.meta["id"])
            )
        return _verdict(label, False, None, parsed.reasons, told)
    if signature is None:
        return _verdict(label, False, player, [NO_SIGNATURE, *parsed.reasons], told)
    try:
        signed = sshsig.verify_variants(received, signature, handle.key_of(player), signer=player)
    except sshsig.SignatureError as error:
        why = Reason(signature_reason(handle, player, error, signature))
        return _verdict(label, False, player, [why, *parsed.reasons], told)
    digest = handle.dir.digester().hidden(signed)
    replayed = handle.accepted().get(digest)
    if replayed is not None:
        return _verdict(label, False, player, [Reason(msg("notice-replay", turn=replayed))], told)
    out = out_of_game(handle, player)
    if out is not None:
        return _verdict(label, False, player, [Reason(out)], told)
    data = parsed.data
    if "id" in data and data["id"] != handle.meta["id"]:
        parsed.add(Problem("notice-wrong-game", ("id",), given=data["id"], game=handle.meta["id"]))
    kind = notices.kind_of(data)
    if parsed.ok and kind is not None:
        for problem in kind_problems(handle, player, kind, data[kind]):
            parsed.add(problem)
        if only is not None and kind != only:
            parsed.reasons.insert(0, Reason(msg("notice-not-of-kind", kind=kind, only=only)))
    if not parsed.ok or kind is None:
        return _verdict(label, False, player, parsed.reasons, only or kind)
    alone = not_alone(handle, kind)
    if alone is not None:
        return _verdict(label, False, player, [Reason(alone)], kind)
    return TakenNotice(player, kind, signed, signature, digest)


def _verdict(
    label: str,
    accepted: bool,
    player: str | None,
    reasons: list[Reason],
    kind: str | None,
    digest: str | None = None,
) -> Verdict:
    """A notice's verdict: its ``kind`` where it is known, else ``notice`` (so that its receipt
    speaks of a notice, never of an order)."""
    return Verdict(
        label, accepted, player, None, reasons=reasons, sha256=digest, kind=kind or "notice"
    )


def not_alone(handle: OpenGame, kind: str) -> Any:
    """Why a file of ``kind`` (``order`` for an order) may not join this step, or None.

    The journal is public (a public archive holds it) and names each step's orders with their
    players, and reports name absences and concessions. So what must stay secret travels alone:
    a vote (draw votes are secret, V2) shares its step with nothing but votes, and under ``press:
    grey`` a press with nothing but press; else a vote or press in one line with an order, an
    absence or the like would name its sender."""
    secret = {"vote": "vote-alone"}
    if handle.meta["options"].get("press") == "grey":
        secret["press"] = "grey-press-alone"
    taken = {n["kind"] for n in handle.noticed} | ({"order"} if handle.pending else set())
    if kind in secret:
        return None if taken <= {kind} else msg(secret[kind])
    clash = sorted(taken & set(secret))
    return msg(secret[clash[0]]) if clash else None


def kind_problems(handle: OpenGame, player: str, kind: Kind, body: Any) -> list[Problem]:
    """What is wrong with a well-formed notice of ``kind`` in this game now."""
    if kind == "press":
        return press_problems(handle, player, body)
    if kind == "absence":
        from adjudicator.engine import absences

        return absence_problems(handle, body) or absences.problems_of(handle, player, body)
    if kind == "share":
        return share_problems(handle, player, body)
    return vote_problems(handle, player, body)


def share_problems(handle: OpenGame, player: str, share: str) -> list[Problem]:
    """A share for a game that asks for them (``shares: ask``), before the deal, of 32 to 128
    hex digits, one per player (docs/randomness.md)."""
    game = handle.meta["id"]
    if handle.meta.get("shares") != "ask":
        return [Problem("share-not-asked", ("share",), game=game)]
    if not handle.waiting():
        return [Problem("share-late", ("share",), game=game)]
    if not deal.is_share(share):
        return [Problem("share-malformed", ("share",), low=deal.MIN_DIGITS, high=deal.MAX_DIGITS)]
    if player in handle.shares():
        return [Problem("share-twice", ("share",), player=player)]
    return []


def vote_problems(handle: OpenGame, player: str, vote: str) -> list[Problem]:
    """A concession that would leave nobody playing a game it does not end is refused (the
    others resigned: a resigned seat never concedes, and the game would play itself out by
    default orders); that player may vote for a draw instead (E8, V2)."""
    if vote != "concede":
        return []
    out = {*handle.resigned(), *handle.votes().conceded, player}
    counted = votes.tally([*((p, "concede") for p in handle.votes().conceded), (player, vote)])
    ending = votes.ending(counted, handle.players, handle.resigned(), handle.turn())
    if ending is None and all(p in out for p in handle.players):
        return [Problem("concede-last-playing", ("vote",), player=player, game=handle.meta["id"])]
    return []


def press_problems(handle: OpenGame, player: str, press: dict[str, Any]) -> list[Problem]:
    """Press the game's ``press`` option allows, to players of the game other than the sender,
    each named once, with some text, not too much, and no control character; and not more
    than :data:`notices.MAX_PRESS_PER_TURN` from one player in one turn. Grey press needs
    three players or more who may send press (not resigned, not conceded): with two, the other
    always knows who wrote (docs/rulings.md E23)."""
    option = handle.meta["options"].get("press", "none")
    if option == "none":
        return [Problem("press-off", ("press",), game=handle.meta["id"])]
    out = {*handle.resigned(), *handle.votes().conceded}
    if option == "grey" and len([p for p in handle.players if p not in out]) < 3:
        return [Problem("press-grey-two", ("press",), game=handle.meta["id"])]
    problems: list[Problem] = []
    to = press["to"]
    if isinstance(to, str) and to != "all":
        problems.append(Problem("press-to-word", ("press", "to"), given=to))
    elif option == "public" and to != "all":
        problems.append(Problem("press-public-only", ("press", "to"), game=handle.meta["id"]))
    elif isinstance(to, list):
        if not to:
            problems.append(Problem("press-to-nobody", ("press", "to")))
        for index, name in enumerate(to):
            if name == player:
                problems.append(Problem("press-to-self", ("press", "to", index)))
            elif name.casefold() == "all":
                problems.append(Problem("press-all-in-list", ("press", "to", index)))
            elif name not in handle.players and _same_but_case(name, handle.players):
                problems.append(
                    Problem(
                        "press-recipient-case",
                        ("press", "to", index),
                        name=name,
                        player=_same_but_case(name, handle.players),
                    )
                )
            elif name not in handle.players:
                problems.append(
                    Problem(
                        "press-unknown-recipient",
                        ("press", "to", index),
                        name=name,
                        players=[p for p in handle.players if p != player],
                    )
                )
            elif name in to[:index]:
                problems.append(Problem("press-recipient-twice", ("press", "to", index), name=name))
            elif name in handle.resigned():
                problems.append(
                    Problem("press-recipient-resigned", ("press", "to", index), name=name)
                )
    text = press["text"]
    control = notices.first_control(text)
    if not text.strip():
        problems.append(Problem("press-empty", ("press", "text")))
    elif len(text) > notices.MAX_PRESS_CHARS:
        problems.append(
            Problem(
                "press-too-long", ("press", "text"), size=len(text), cap=notices.MAX_PRESS_CHARS
            )
        )
    elif control is not None:
        at, char = control
        code = f"U+{ord(char):04X}"
        problems.append(Problem("press-control-character", ("press", "text"), code=code, at=at))
    if not problems and sent_this_turn(handle, player) >= notices.MAX_PRESS_PER_TURN:
        cap = notices.MAX_PRESS_PER_TURN
        problems.append(Problem("press-too-many", ("press",), turn=handle.turn(), cap=cap))
    return problems


def sent_this_turn(handle: OpenGame, player: str) -> int:
    """How many press ``player`` sent during the current turn (this step's included)."""
    turn = handle.turn()
    this_turn = [n for n in handle.notices() if n["kind"] == "press" and n["turn"] == turn]
    return sum(1 for n in this_turn if handle.notice(n)["player"] == player)


def _same_but_case(name: str, players: list[str]) -> str | None:
    """The player whose name is ``name`` but for case (names match exactly, E12)."""
    return next((p for p in players if p.casefold() == name.casefold()), None)


def absence_problems(handle: OpenGame, absence: dict[str, Any]) -> list[Problem]:
    """An absence that ends no earlier than it begins, not in the past (the game's time zone's
    today), and early enough that a deadline it moves stays in the calendar (E15)."""
    from adjudicator.rules.options import LAST_DAY

    start, end = absence["from"], absence["to"]
    today = clock.now().astimezone(schedule.game_zone(handle.meta)).date()
    if end < start:
        return [Problem("absence-ends-first", ("absence", "to"), start=str(start), end=str(end))]
    if end < today:
        return [Problem("absence-past", ("absence", "to"), end=str(end), today=str(today))]
    if end > LAST_DAY:
        return [Problem("absence-too-late", ("absence", "to"), end=str(end), last=str(LAST_DAY))]
    return []


def _store(handle: OpenGame, kind: Kind, signed: bytes, signature: bytes, digest: str) -> None:
    """Write the notice's files, numbered in their kind's folder; the step's journal line will
    name it. Neither names the player: a public archive holds the journal, and grey press
    must not tell its recipients who sent it (nor a vote who made it)."""
    store = handle.dir
    number = 1 + sum(1 for n in handle.notices() if n["kind"] == kind)
    name = f"{number:04d}.yaml"
    store.write_bytes(notices.path(kind, name), signed)
    store.write_bytes(notices.path(kind, name + ".sig"), signature)
    entry = {"kind": kind, "file": name, "digest": digest, "turn": handle.turn(), "at": now()}
    handle.noticed.append(entry)
