"""An open game's seats as ``verify`` follows them (docs/signup.md): every join and leave taken
as the intake takes one, signed as its line says, and each line held to the sign-up's rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adjudicator.audit.findings import Finding, Summary
from adjudicator.audit.walk import Walk, loads
from adjudicator.rules import digests
from adjudicator.rules.contract import Msg, msg
from adjudicator.signing import sshsig
from adjudicator.store import journal


@dataclass
class _Seats:
    """An open game's seats as :func:`joins` follows them, line by line."""

    seated: list[str]
    keys: dict[str, str]
    """The key of each seat and each join taken, by name."""
    waiting: set[str] = field(default_factory=set)
    """The joins taken and not yet seated, turned away or gone."""
    confirmed: set[str] = field(default_factory=set)
    """The joins taken whose address confirmed them."""
    digests: set[str] = field(default_factory=set)
    """Every join's and leave's digest taken (a signature's: the same signed file again)."""
    settled: bool = False
    """The game started or closed: its seats change no more."""


def joins(
    walk: Walk,
    files: dict[str, bytes],
    public: bool,
    summary: Summary,
    digester: digests.Digester | None,
) -> None:
    """An open game's seats as its journal gives them (docs/signup.md): each join and each
    leave taken as the intake takes one (no signed file twice, no join of a name taken in the
    game, nothing once the game started) and signed by the key it must be (a join: the key it
    carries; a leave: the key of the seat or join it gives up), saying what its line says (the
    name, the key, the share the deal is made from), and the seats of the start in join order.
    A public archive holds no join (a join names an address), so there the files are not
    checked; ``digester`` (None without the game's file key) checks the digest a line gives
    each, its signature's."""
    created = walk.entries[0].get("public") or {}
    first = [str(p["name"]) for p in created.get("players") or []]
    seats = _Seats(
        list(first), {str(p["name"]): str(p.get("key")) for p in created.get("players") or []}
    )
    game_id = str(created.get("id"))
    for number, entry in enumerate(walk.entries):
        turn = walk.turn_at[number]
        before = len(seats.seated)
        why_not = _taking(seats, entry, number + 1)
        if entry["type"] == "replaced" and entry.get("player") in seats.keys:
            seats.keys[str(entry["player"])] = str(entry["key"])  # replace in the sign-up
        for join in entry.get("joins") or []:
            if not public:
                _join_file(files, walk, join, (number + 1, turn, game_id), summary, digester)
        for leave in entry.get("leaves") or []:
            key = seats.keys.get(str(leave["name"]))
            if not public:
                where = (number + 1, turn, game_id)
                _leave_file(files, walk, leave, key, where, summary, digester)
        named = {str(x["name"]) for x in entry.get("leaves") or []}
        for name in entry.get("left") or []:
            if name not in named:
                why_not.append(msg("verify-leave-unsigned", player=name, line=number + 1))
            if name in seats.seated:
                seats.seated.remove(name)
        now = [str(n) for n in entry.get("seated") or [] if n not in seats.seated]
        seats.seated += now
        gone = [
            *now,
            *(entry.get("left") or []),
            *(t["name"] for t in entry.get("turned_away") or []),
        ]
        seats.waiting.difference_update(str(name) for name in gone)
        signup = created.get("signup")
        why_not += _seats_kept(signup, entry, number + 1, (before, now, seats.seated))
        # every seat a join takes waits for its address to confirm it, whatever the seating
        why_not += [
            msg("verify-seated-unconfirmed", line=number + 1, player=name)
            for name in now
            if name not in seats.confirmed
        ]
        started = entry.get("started")
        if started:
            order = journal.join_order(first, walk.entries[: number + 1], seats.seated)
            if list(started.get("players") or []) != order:
                why_not.append(msg("verify-seat-order", line=number + 1, order=order))
        seats.settled = seats.settled or bool(started) or bool(entry.get("closed"))
        summary.findings += [Finding(turn, "log.jsonl", why) for why in why_not]


def _taking(seats: _Seats, entry: dict[str, Any], line: int) -> list[Msg]:
    """What is wrong with the joins and leaves one line takes, as the intake would judge them:
    none once the game started or closed, no signed file taken before (the same join again
    would move its seat after the others', and so change the deal), no join of a name taken in
    the game (a seat's, or a join's but an unconfirmed one the line says it replaces)."""
    found = []
    changes = ("joins", "leaves", "left", "seated", "confirmed", "turned_away")
    if seats.settled and any(entry.get(k) for k in changes):
        found.append(msg("verify-seats-after-start", line=line))
    for taken in [*(entry.get("joins") or []), *(entry.get("leaves") or [])]:
        if str(taken.get("digest")) in seats.digests:
            found.append(msg("verify-join-again", line=line, player=str(taken["name"])))
        seats.digests.add(str(taken.get("digest")))
    replaced = {str(name) for name in entry.get("replaced") or []}
    for join in entry.get("joins") or []:
        name = str(join["name"])
        held = [n for n in seats.waiting if n in seats.confirmed or n not in replaced]
        if any(n.casefold() == name.casefold() for n in [*seats.seated, *held]):
            found.append(msg("verify-join-name-taken", line=line, player=name))
        seats.waiting -= replaced
        seats.waiting.add(name)
        seats.keys[name] = str(join["key"])
        seats.confirmed.discard(name)  # a join taken anew confirms anew
    seats.confirmed |= {str(name) for name in entry.get("confirmed") or []}
    return found


def _seats_kept(
    signup: Any, entry: dict[str, Any], line: int, seats: tuple[int, list[str], list[str]]
) -> list[Msg]:
    """What one line of an open game (``signup``: its seats and seating) does against the
    sign-up's rules; ``seats``: how many were seated before the line, the names it seats, the
    seats after it. No more seats than the most; under ``first-come`` each join its line
    confirms seated at once, or turned away only when the seats are full (counted with those
    the line seats: the generous count); a start with at least the fewest."""
    if not isinstance(signup, dict):
        return []  # a game whose seats the setup gave
    before, now, after = seats
    least, most = int(signup["seats"]["min"]), int(signup["seats"]["max"])
    found = []
    if len(after) > most:
        found.append(msg("verify-seats-over", line=line, count=len(after), most=most))
    turned = {str(t.get("name")): t.get("why") for t in entry.get("turned_away") or []}
    if signup.get("seating") == "first-come":
        for name in [str(n) for n in entry.get("confirmed") or []]:
            if name not in now and name not in turned:
                found.append(msg("verify-confirmed-waiting", line=line, player=name))
            if name in turned and turned[name] != "full":  # seated at once, or the game full
                found.append(msg("verify-turned-away-confirmed", line=line, player=name))
            if turned.get(name) == "full" and before + len(now) < most:
                taken = before + len(now)
                found.append(
                    msg("verify-turned-away-open", line=line, player=name, taken=taken, most=most)
                )
    started = entry.get("started")
    if started and len(started.get("players") or []) < least:
        count = len(started.get("players") or [])
        found.append(msg("verify-started-too-few", line=line, count=count, least=least))
    return found


def _join_file(
    files: dict[str, bytes],
    walk: Walk,
    join: dict[str, Any],
    where: tuple[int, int, str],
    summary: Summary,
    digester: digests.Digester | None,
) -> None:
    """A full archive holds the join a line took, signed by the key it carries, saying what
    the line says of it (for this game), under the digest the line gives it; ``where``: the
    line that took it, its turn, and the game's id."""
    from adjudicator.signing import keys

    line, turn, game_id = where
    rel = walk.at(str(join["file"]), line)
    kept = loads(files[rel]) if rel in files else None
    data, wrong = _signed_as_taken(kept, "join", str(join["key"]), join, digester)
    summary.findings += [Finding(turn, rel, why) for why in wrong]
    if data is None:
        return
    said = _said(data)
    body = said.get("join") if isinstance(said, dict) else None
    given = {k: body.get(k) for k in ("name", "share")} if isinstance(body, dict) else {}
    if not isinstance(said, dict) or said.get("id") != game_id:
        given["id"] = None  # a join signed for another game
    try:
        same_key = (
            keys.parse_public_line(str(body.get("key"))) == keys.parse_public_line(str(join["key"]))
            if isinstance(body, dict)
            else False
        )
    except keys.KeyProblem:
        same_key = False
    if given != {"name": join["name"], "share": join["share"]} or not same_key:
        summary.findings.append(Finding(turn, rel, msg("verify-join-differs", line=line)))


def _signed_as_taken(
    kept: Any,
    what: str,
    key: str | None,
    taken: dict[str, Any],
    digester: digests.Digester | None,
) -> tuple[bytes | None, list[Msg]]:
    """The signed bytes of a join or leave (``what``) the archive keeps, and what is wrong with
    it: none kept, not signed by ``key`` as the name its line gives (None then), or taken under
    another digest than its signature's (the same signed file taken again under a made-up
    one, say; not checked without the game's file key)."""
    if not isinstance(kept, dict) or not isinstance(kept.get(what), str) or key is None:
        return None, [msg("verify-file-missing")]
    data = kept[what].encode("utf-8", errors="surrogateescape")
    signature = str(kept.get("signature", "")).encode("utf-8", errors="surrogateescape")
    try:
        sshsig.verify_variants(data, signature, key, signer=str(taken["name"]))
    except sshsig.SignatureError as error:
        return None, [msg("verify-signature", player=taken["name"], why=error.reason)]
    if digester is not None and digester.hidden(signature) != taken.get("digest"):
        return data, [msg("verify-taken-otherwise")]
    return data, []


def _leave_file(
    files: dict[str, bytes],
    walk: Walk,
    leave: dict[str, Any],
    key: str | None,
    where: tuple[int, int, str],
    summary: Summary,
    digester: digests.Digester | None,
) -> None:
    """A full archive holds each leave, signed by the key of the seat it gives up and saying
    it leaves that seat of this game; ``where``: the line that took it, its turn, and the
    game's id."""
    line, turn, game_id = where
    rel = walk.at(str(leave.get("file")), line)
    kept = loads(files[rel]) if rel in files else None
    data, wrong = _signed_as_taken(kept, "leave", key, leave, digester)
    summary.findings += [Finding(turn, rel, why) for why in wrong]
    if data is None:
        return
    said = _said(data)
    body = said.get("join") if isinstance(said, dict) else None
    meant = isinstance(body, dict) and body.get("name") == leave["name"] and body.get("leave")
    if not (meant is True and isinstance(said, dict) and said.get("id") == game_id):
        summary.findings.append(Finding(turn, rel, msg("verify-leave-differs", line=line)))


def _said(data: bytes) -> Any:
    """What a signed join or leave says, read as the intake reads it (None: it cannot be)."""
    from adjudicator.rules.strictyaml import StrictYamlError, load

    try:
        return load(data).data
    except StrictYamlError:
        return None
