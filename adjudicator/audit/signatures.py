"""``verify``'s signatures: every order and notice the archive holds signed by the key its
player's seat held when the journal took it, every key a seat held (a ``replaced`` line's
change, an open game's seat taken with its join's key), and the same signed order taken twice
named as a replay. What else a file must be, the replay's intake judges
(:mod:`adjudicator.audit.replica`)."""

from __future__ import annotations

from typing import Any

from adjudicator.audit.findings import Finding, KeyChange, Summary
from adjudicator.audit.walk import Walk
from adjudicator.rules.contract import msg
from adjudicator.rules.errors import UsageProblem
from adjudicator.signing import sshsig
from adjudicator.store import journal
from adjudicator.store.gamedir import GameDir


def order_path(order: dict[str, Any]) -> str:
    """Where the step that took ``order`` (a journal line's entry) put it."""
    return f"{GameDir.turn_dir(int(order['turn']))}/orders/{order['file']}"


def check(walk: Walk, files: dict[str, bytes], header: dict[str, Any], summary: Summary) -> None:
    """Every key each seat held (the summary lists them), and every order and notice the
    archive holds signed by its player's key of the time; the same signed order twice in the
    journal is a replay (which a public archive of a running game shows too). What else a file
    must be, the replay's intake judges (:mod:`adjudicator.audit.replica`)."""
    keys = {p["name"]: p.get("key") for p in header["players"]}
    taken: set[str] = set()
    """The digest of every order accepted so far: the same signed bytes twice is a replay,
    which the engine refuses (the digest is the journal's, so a public archive shows it too)."""
    seats = [*keys, *(n for e in walk.entries for n in e.get("seated") or [] if n not in keys)]
    if summary.seat is not None and summary.seat.player not in seats:  # an open game's too
        raise UsageProblem(
            msg(
                "verify-no-such-seat",
                player=summary.seat.player,
                players=list(dict.fromkeys(seats)),
            )
        )
    joined: dict[str, str] = {}  # an open game's joins, by name: the key each carried
    for number, entry in enumerate(walk.entries):
        joined.update({j["name"]: j["key"] for j in entry.get("joins") or []})
        keys.update({name: joined[name] for name in entry.get("seated") or []})
        if entry["type"] == "replaced":
            player = str(entry["player"])
            change = KeyChange(
                walk.turn_at[number],
                player,
                _fingerprint(keys.get(player)),
                _fingerprint(entry["key"]),
            )
            summary.keys.append(change)
            keys[player] = entry["key"]
        for order in journal.order_entries(entry):
            turn, player = int(order["turn"]), str(order["player"])
            origin = order_path(order)
            rel = walk.at(origin, number + 1)
            digest = journal.order_digest(order)
            if digest in taken:
                summary.findings.append(Finding(turn, rel, msg("verify-order-replayed")))
            taken.add(digest)
            _under_seat_key(summary, keys, player, turn, rel)
            data = files.get(rel)
            signature = files.get(walk.at(origin + ".sig", number + 1))
            if data is None:
                continue  # not in a public archive yet (a full one names it missing)
            unsigned = _unsigned(data, signature, keys, player, turn, rel)
            if unsigned is not None:  # an order is played only with its player's signature
                summary.findings.append(unsigned)
                continue
            summary.signatures += 1  # the rest of what it must be, the replay's intake judges
        for notice in entry.get("notices") or []:
            _notice_signed(notice, number + 1, walk, files, keys, summary)


def _fingerprint(line: Any) -> str:
    """The SHA256 fingerprint of a public key line, or ``-`` when it is none."""
    from adjudicator.signing import keys

    return keys.fingerprint_of(line) or "-"


def _under_seat_key(
    summary: Summary, keys: dict[str, Any], player: str, turn: int, rel: str
) -> None:
    """With ``--player NAME --key FILE``: a file of that seat accepted under another key is a
    finding (a key swapped in for one order and swapped back is seen so)."""
    seat = summary.seat
    if seat is None or seat.player != player:
        return
    used = _fingerprint(keys.get(player))
    if used != seat.key:
        summary.findings.append(
            Finding(turn, rel, msg("verify-not-your-key", player=player, key=used, yours=seat.key))
        )


def _unsigned(
    data: bytes,
    signature: bytes | None,
    keys: dict[str, Any],
    player: str,
    turn: int,
    rel: str,
) -> Finding | None:
    """What is wrong with the signature of the file at ``rel`` (an order or a notice), as
    ``player``'s key stood then (``keys``), or None when it verifies."""
    if signature is None:
        return Finding(turn, rel + ".sig", msg("verify-signature-missing", player=player))
    try:
        sshsig.verify(data, signature, str(keys.get(player)), signer=player)
    except sshsig.SignatureError as error:
        why = msg("verify-signature", player=player, why=error.reason)
        return Finding(turn, rel + ".sig", why)
    return None


def _notice_signed(
    notice: dict[str, Any],
    line: int,
    walk: Walk,
    files: dict[str, bytes],
    keys: dict[str, Any],
    summary: Summary,
) -> None:
    """A notice the archive holds: signed by the key of the player it names, as it stood then
    (the rest of what it must be, the replay's intake judges)."""
    from adjudicator.engine import notices

    turn = int(notice["turn"])
    origin = notices.path(str(notice["kind"]), str(notice["file"]))
    rel = walk.at(origin, line)
    data = files.get(rel)
    if data is None:
        return  # not in a public archive (a full one names it missing)
    signature = files.get(walk.at(origin + ".sig", line))
    body = notices.parse(data).data or {}
    player = body.get("player")
    if not isinstance(player, str) or player not in keys:
        summary.findings.append(Finding(turn, rel, msg("verify-notice-envelope")))
        return
    _under_seat_key(summary, keys, player, turn, rel)
    unsigned = _unsigned(data, signature, keys, player, turn, rel)
    if unsigned is not None:
        summary.findings.append(unsigned)
        return
    summary.notices += 1
