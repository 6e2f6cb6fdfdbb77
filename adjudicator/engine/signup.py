"""An open game (docs/signup.md): joins and leaves, confirmed addresses, the game master's
``seat`` and ``refuse``, and the start.

A join is signed by the key it carries, which proves its sender holds that key. The step that
takes one stores it under ``seats/joins/`` (it names an address, so no public archive holds
it), beside the confirmation code drawn for it, and names it in its journal line (``joins``:
``name``, ``key``, ``lang``, ``share``, the ``file`` and the ``addresses`` file); ``send``
then mails the code to the address. A mail from that address holding the code confirms it
(``confirmed``); under ``seating: first-come`` that takes a seat (``seated``), under
``approve`` the game master seats or refuses (``turned_away``) each. The step that fills the
last seat starts the game (``started``: the seats in join order), and deals when every seat's
share is in; so does ``start``, and ``tick`` at the sign-up deadline, or it closes the game
(``closed``) when too few joined.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from adjudicator.engine.dealing import deal_if_ready
from adjudicator.engine.open_game import OpenGame, now
from adjudicator.engine.orders import Parsed, loaded, sha256
from adjudicator.rules import deal
from adjudicator.rules.contract import Msg, Problem, Reason, msg
from adjudicator.rules.errors import InputRefused, NotNow
from adjudicator.rules.lang import Lang
from adjudicator.rules.problems import located_all, schema_problems
from adjudicator.rules.verdict import Verdict
from adjudicator.signing import keys, sshsig
from adjudicator.store import clock, journal, steps

FOLDER = "seats/joins"
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""The confirmation code's letters: capitals and digits, none that reads as another (0 and O,
1 and I)."""
CODE_LENGTH = 12
"""About 60 bits: nobody guesses a code before the sign-up ends."""


class JoinBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str
    email: str | None = None
    lang: Lang | None = None
    tz: str | None = None
    key: str | None = None
    share: str | None = None
    leave: bool | None = None


class JoinFile(BaseModel):
    """A join file: the game's ``id`` and ``join`` (docs/signup.md)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str
    join: JoinBody


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


# -- a join or a leave, judged inside the step that brought it ----------------------------------
def judge_join(handle: OpenGame, label: str, received: bytes, signature: bytes | None) -> Verdict:
    """One join (or leave): its verdict; when it is accepted, its files written and the step's
    line told (:attr:`OpenGame.seating`)."""
    parsed = _parse(received)
    data = parsed.data
    body = data.get("join") if isinstance(data, dict) else None
    name = body.get("name") if isinstance(body, dict) else None
    who = name if isinstance(name, str) else None
    leaving = isinstance(body, dict) and body.get("leave") is True
    kind = "leave" if leaving else "join"
    if not parsed.ok or data is None or not isinstance(body, dict):
        return _verdict(label, who, parsed.reasons, kind=kind)
    if not leaving and handle.sender is not None and handle.seating.get("joins"):
        # by mail, one join a message: each names an address that is mailed a request, and a
        # stranger's message must not make the game mail many
        return _verdict(label, who, [Reason(msg("join-one-a-message"))], kind=kind)
    key_line = _key_of(handle, str(name)) if leaving else body.get("key")
    if signature is None:
        return _verdict(label, who, [Reason(msg("no-signature"))], kind=kind)
    if not isinstance(key_line, str):
        why = "join-leave-unknown" if leaving else "join-no-key"
        return _verdict(
            label, who, [Reason(msg(why, name=name, game=handle.meta["id"]))], kind=kind
        )
    try:
        signed = sshsig.verify_variants(received, signature, key_line, signer=str(name))
    except sshsig.SignatureError as error:
        return _verdict(label, who, [Reason(msg("bad-signature", why=error.reason))], kind=kind)
    # The digest of the signature, not of the file: the file names an address, and a digest
    # of it could be matched against guessed addresses once the seed is revealed.
    digest = handle.dir.digester().hidden(signature)
    if digest in _taken_digests(handle):
        return _verdict(label, who, [Reason(msg("join-replay"))], kind=kind)
    if data["id"] != handle.meta["id"]:
        parsed.add(Problem("notice-wrong-game", ("id",), given=data["id"], game=handle.meta["id"]))
    not_now = _not_open(handle)
    if not_now is not None:
        return _verdict(label, who, [Reason(not_now)], kind=kind)
    for problem in [] if leaving else join_problems(handle, body):
        parsed.add(problem)
    if not parsed.ok:
        return _verdict(label, who, parsed.reasons, kind=kind)
    if leaving:
        rel = f"{FOLDER}/{_next_number(handle):04d}-{name}-leave.json"
        handle.dir.write_json(rel, {"leave": _text(signed), "signature": _text(signature)})
        handle.seating.setdefault("left", []).append(name)
        entry = {"name": name, "digest": digest, "file": rel, "at": now()}
        handle.seating.setdefault("leaves", []).append(entry)
    else:
        _take(handle, body, signed, signature, digest)
    return _verdict(label, who, [], True, sha256(signed), kind)


def _parse(raw: bytes) -> Parsed:
    parsed = loaded(raw)
    if parsed.loaded is None:
        return parsed
    data = parsed.loaded.data
    problems = schema_problems(JoinFile, data)
    body = data.get("join") if isinstance(data, dict) else None
    if isinstance(body, dict) and not problems:
        given = {k for k, v in body.items() if v is not None}
        if body.get("leave") is True:
            extra = sorted(given - {"name", "leave"})
            if extra:
                problems.append(Problem("join-leave-alone", ("join",), keys=extra))
        else:
            missing = [k for k in ("email", "key", "share") if k not in given]
            problems += [Problem("join-missing", ("join", k), key=k) for k in missing]
    if isinstance(data, dict):
        parsed.data = data
    parsed.schema = problems
    parsed.reasons = located_all(problems, parsed.loaded)
    return parsed


def join_problems(handle: OpenGame, body: dict[str, Any]) -> list[Problem]:
    """What is wrong with a well-formed join in this game now: its name, address, key, share,
    time zone, or a game with no seat left."""
    from adjudicator.engine.setup import ONE_ADDRESS, player_name_problems, zone_ok

    name = str(body["name"])
    where = ("join", "name")
    problems = player_name_problems(name, where)
    joining = handle.joining()
    own = handle.sender is None or _same_address(handle.sender, str(body["email"]))
    taken = {*handle.players, *(n for n, j in joining.items() if not (own and _squat(handle, j)))}
    same = next((t for t in taken if t.casefold() == name.casefold()), None)
    if same == name:
        problems.append(Problem("join-name-taken", where, name=name))
    elif same is not None:
        problems.append(Problem("duplicate-player-case", where, name=name, first=same))
    if not ONE_ADDRESS.match(str(body["email"])):
        problems.append(Problem("bad-email", ("join", "email"), email=body["email"]))
    try:
        blob = keys.parse_public_line(str(body["key"]))
    except keys.KeyProblem as error:
        problems.append(Problem("bad-key", ("join", "key"), player=name, why=error.reason))
    else:
        for other in taken:
            if other != name and _same_key(_key_of(handle, other), blob):
                problems.append(Problem("join-key-taken", ("join", "key"), other=other))
    if not deal.is_share(body["share"]):
        low, high = deal.MIN_DIGITS, deal.MAX_DIGITS
        problems.append(Problem("share-malformed", ("join", "share"), low=low, high=high))
    if body.get("tz") is not None and not zone_ok(str(body["tz"])):
        problems.append(Problem("bad-timezone", ("join", "tz"), zone=body["tz"]))
    if not problems and len(handle.players) >= handle.meta["signup"]["seats"]["max"]:
        problems.append(Problem("join-full", (), game=handle.meta["id"]))
    return problems


def _squat(handle: OpenGame, join: dict[str, Any]) -> bool:
    """A join that holds its name for nobody yet: its address has not confirmed it, and it did
    not come from that address. A join from its own address takes the name from it (anyone
    may send a join with a name a player announced, and an address that is not theirs)."""
    if join.get("confirmed"):
        return False
    return not handle.dir.read_json(join["addresses"]).get("own", True)


def _take(
    handle: OpenGame, body: dict[str, Any], signed: bytes, signature: bytes, digest: str
) -> None:
    """Store a join, as signed, with its address and confirmation code in one file (its digest
    then covers the code, which nobody can guess), and tell the step's line. The line keeps the
    key without its comment, which may be an address."""
    for name in handle.joining():
        if name.casefold() == str(body["name"]).casefold():  # a squat this join replaces
            handle.seating.setdefault("replaced", []).append(name)
    rel = f"{FOLDER}/{_next_number(handle):04d}-{body['name']}.json"
    handle.dir.write_json(
        rel,
        {
            "email": body["email"],
            "code": new_code(),
            "own": handle.sender is None or _same_address(handle.sender, str(body["email"])),
            "join": _text(signed),
            "signature": _text(signature),
        },
    )
    entry = {
        "name": body["name"],
        "key": keys.bare(str(body["key"])),
        "lang": body.get("lang") or handle.meta["lang"],
        **({"tz": body["tz"]} if body.get("tz") else {}),
        "share": body["share"],
        "file": rel,
        "addresses": rel,
        "digest": digest,
        "at": now(),
    }
    handle.seating.setdefault("joins", []).append(entry)


def _text(data: bytes) -> str:
    """Signed bytes as the JSON file keeps them (a lone byte that is no UTF-8: as a
    surrogate, so the bytes come back as they were)."""
    return data.decode("utf-8", errors="surrogateescape")


def _same_address(sender: str, email: str) -> bool:
    return sender.strip().casefold() == email.strip().casefold()


def _next_number(handle: OpenGame) -> int:
    """One more than every join and leave this game took: no file is written twice."""
    entries = [*handle.log, handle.seating]
    return 1 + sum(len(e.get("joins") or []) + len(e.get("leaves") or []) for e in entries)


def _taken_digests(handle: OpenGame) -> set[str]:
    seen = {j["digest"] for e in handle.log for j in e.get("joins") or []}
    seen |= {j["digest"] for e in handle.log for j in e.get("leaves") or []}
    seen |= {j["digest"] for j in handle.seating.get("joins", [])}
    return seen | {j["digest"] for j in handle.seating.get("leaves", [])}


def _key_of(handle: OpenGame, name: str) -> str | None:
    """The key of a seat or of a join taken, or None."""
    if name in handle.players:
        return handle.key_of(name)
    join = handle.joining().get(name)
    return None if join is None else str(join["key"])


def _same_key(line: str | None, blob: bytes) -> bool:
    try:
        return line is not None and keys.parse_public_line(line) == blob
    except keys.KeyProblem:
        return False


def _not_open(handle: OpenGame) -> Msg | None:
    """Why the game takes no join (or leave) now, or None."""
    game = handle.meta["id"]
    if handle.facts.signup is None:
        return msg("join-not-open", game=game)
    if handle.facts.closed:
        return msg("join-closed", game=game)
    if not handle.signing_up():
        return msg("join-started", game=game)
    until = handle.meta["signup"].get("until")
    if until is not None and clock.now() >= datetime.fromisoformat(until):
        return msg("join-late", game=game, until=until)
    return None


def _verdict(
    label: str,
    player: str | None,
    reasons: list[Reason],
    accepted: bool = False,
    digest: str | None = None,
    kind: str = "join",
) -> Verdict:
    return Verdict(label, accepted, player, None, reasons=reasons, sha256=digest, kind=kind)


# -- confirmations by mail ------------------------------------------------------------------------
def code_of(handle: OpenGame, name: str) -> str:
    join = handle.joining()[name]
    return str(handle.dir.read_json(join["addresses"])["code"])


def address_of(handle: OpenGame, name: str) -> str:
    join = handle.joining()[name]
    return str(handle.dir.read_json(join["addresses"])["email"])


def confirming(handle: OpenGame, sender: str, text: str) -> str | None:
    """The join whose address is ``sender`` and whose code ``text`` holds, not yet confirmed,
    or None."""
    if not handle.signing_up() or _not_open(handle) is not None:  # too late to confirm
        return None
    for name, join in handle.joining().items():
        if join.get("confirmed"):
            continue
        found = handle.dir.read_json(join["addresses"])
        if str(found["email"]).casefold() == sender.casefold() and str(found["code"]) in text:
            return name
    return None


def confirm(handle: OpenGame, name: str) -> None:
    """Tell the step's line that ``name``'s address confirmed; under ``first-come`` seat them
    (a game full by then turns them away)."""
    handle.seating.setdefault("confirmed", []).append(name)
    if handle.meta["signup"]["seating"] != "first-come":
        return
    if len(handle.players) + len(handle.seating.get("seated", [])) >= _most(handle):
        handle.seating.setdefault("turned_away", []).append({"name": name, "why": "full"})
    else:
        handle.seating.setdefault("seated", []).append(name)


def _most(handle: OpenGame) -> int:
    return int(handle.meta["signup"]["seats"]["max"])


# -- what a step's line says of the seats -------------------------------------------------------
def seating_fields(handle: OpenGame) -> dict[str, Any]:
    """What the step's line says of the seats (nothing when it changed none): with
    ``started`` (and ``dealt``) when it filled the last seat."""
    fields = dict(handle.seating)
    if not fields:
        return {}
    line = {"type": "mail", "notices": handle.noticed, **fields}
    after = OpenGame(handle.dir, log=[*handle.log, line])
    if after.signing_up() and len(after.players) >= _most(after) and not fields.get("started"):
        fields.update(_start(after))
    return fields


def _start(after: OpenGame) -> dict[str, Any]:
    """The start of ``after`` (an open game as the step leaves it): the seats in join order,
    the welcome owed, and the deal when every seat's share is in."""
    order = _join_order(after)
    fields: dict[str, Any] = {"started": {"players": order, "at": now()}, "welcome": True}
    started = OpenGame(after.dir, log=[*after.log, {"type": "started", **fields}])
    fields.update(deal_if_ready(started, starts=True))
    return fields


def _join_order(handle: OpenGame) -> list[str]:
    """The seats in join order: the setup's players first, then each join as it was taken."""
    first = [p["name"] for p in handle.dir.created()["players"]]
    return journal.join_order(first, handle.log, handle.players)


# -- the game master's commands ----------------------------------------------------------------
def seat(root: Path, name: str) -> None:
    """Seat ``name`` (``seating: approve``): their join taken and their address confirmed."""
    with steps.step(root, "seat") as running:
        handle = _open_for_gm(root)
        join = handle.joining().get(name)
        if join is None:
            raise InputRefused(_no_join(handle, name))
        if not join.get("confirmed"):
            raise InputRefused(msg("seat-unconfirmed", name=name))
        if len(handle.players) >= _most(handle):
            raise InputRefused(msg("join-full", game=handle.meta["id"]))
        handle.seating["seated"] = [name]
        running.commit("seated", at=now(), **seating_fields(handle))


def refuse(root: Path, name: str, why: str) -> None:
    """Turn ``name``'s join away, saying ``why`` (the game master's words, mailed to them)."""
    with steps.step(root, "refuse") as running:
        handle = _open_for_gm(root)
        if name not in handle.joining():
            raise InputRefused(_no_join(handle, name))
        turned = {"name": name, "why": "game-master", "words": why}
        running.commit("turned-away", at=now(), turned_away=[turned])


def start(root: Path) -> OpenGame:
    """Start an open game now with the players seated (at least the fewest the game allows)."""
    with steps.step(root, "start") as running:
        handle = _open_for_gm(root)
        fewest = int(handle.meta["signup"]["seats"]["min"])
        if len(handle.players) < fewest:
            seated = len(handle.players)
            raise NotNow(msg("start-too-few", game=handle.meta["id"], seated=seated, fewest=fewest))
        running.commit("started", at=now(), **_start(handle))
    return OpenGame(root)


def at_deadline(root: Path) -> str | None:
    """``tick``'s step at the sign-up deadline: start the game, or close it when too few
    players are seated; what it did (``started``, ``closed``), or None."""
    with steps.step(root, "signup-deadline") as running:
        handle = OpenGame(root)
        until = handle.meta.get("signup", {}).get("until")
        if not handle.signing_up() or until is None or clock.now() < datetime.fromisoformat(until):
            return None
        if len(handle.players) >= int(handle.meta["signup"]["seats"]["min"]):
            running.commit("started", at=now(), **_start(handle))
            return "started"
        running.commit("closed", at=now(), closed={"seated": handle.players})
        return "closed"


def _open_for_gm(root: Path) -> OpenGame:
    handle = OpenGame(root)
    if not handle.signing_up():
        why = "join-not-open" if handle.facts.signup is None else "join-started"
        raise NotNow(msg(why, game=handle.meta["id"]))
    return handle


def _no_join(handle: OpenGame, name: str) -> Msg:
    waiting = list(handle.joining())
    return msg("no-such-join", name=name, game=handle.meta["id"], waiting=waiting)
