"""Order files as received: pairing with signatures, reading, parsing, envelope checks.

The pipeline for one file (intake.submit runs it): read (size caps) -> parse (strict YAML, the
game's schema) -> verify the signature (the player's registered key) -> check the envelope (game
id, player, turn, replay) -> validate against the player's view (the game). Every problem found is
kept, so the player hears all of them at once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from adjudicator.rules import sealing
from adjudicator.rules.contract import Game, Msg, Problem, Reason, msg
from adjudicator.rules.errors import UsageProblem
from adjudicator.rules.limits import MAX_ORDER_BYTES, MAX_SIGNATURE_BYTES
from adjudicator.rules.problems import located, located_all, schema_problems
from adjudicator.rules.strictyaml import Loaded, StrictYamlError, load
from adjudicator.signing import sshsig
from adjudicator.store.readfile import FileRefused, read_head, read_regular

ENVELOPE = ("id", "player", "turn")
SALT_KEY = sealing.SALT_KEY
Kind = Literal["order", "reveal", "commitment"]
NOTICE_KEYS = ("press", "absence", "vote", "share")
"""The keys that make a file a notice (:mod:`adjudicator.engine.notices`), written at the
start of a line."""


@dataclass
class Submission:
    """One order file from the command line and where its signature comes from."""

    order_path: Path
    sig_path: Path | None = None


@dataclass
class Parsed:
    """An order file read and parsed; ``reasons`` holds every problem found so far, placed."""

    raw: bytes
    loaded: Loaded | None = None
    data: dict[str, Any] | None = None
    reasons: list[Reason] = field(default_factory=list)
    schema: list[Problem] = field(default_factory=list)  # the schema's problems, unplaced
    notes: list[Reason] = field(default_factory=list)  # placed like reasons; they never refuse

    @property
    def ok(self) -> bool:
        return not self.reasons

    def body(self) -> dict[str, Any]:
        """The order without its envelope (what the game validates)."""
        assert self.data is not None
        return {k: v for k, v in self.data.items() if k not in ENVELOPE and k != SALT_KEY}

    def add(self, problem: Problem) -> None:
        """Place ``problem`` among the reasons in the order of their lines."""
        reason = located(problem, self.loaded)
        at = next(
            (i for i, r in enumerate(self.reasons) if r.line > reason.line), len(self.reasons)
        )
        self.reasons.insert(at, reason)


class Refusal(Exception):
    """A file refused before it could be parsed (unreadable, too large)."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.code)
        self.reason = reason


def pair(paths: list[Path]) -> list[Submission]:
    """Pair command-line arguments: ``X.sig`` (or armored content) signs the order before it."""
    submissions: list[Submission] = []
    for path in paths:
        if _is_signature(path):
            if not submissions or submissions[-1].sig_path is not None:
                raise UsageProblem(f"{path}: a signature with no order file before it")
            submissions[-1].sig_path = path
        else:
            submissions.append(Submission(path))
    return submissions


def _is_signature(path: Path) -> bool:
    if path.name.endswith(".sig"):
        return True
    try:
        head = read_head(path, 256)
    except FileRefused:
        return False  # judged, and refused, as an order file
    return sshsig.looks_armored(head)


def read_capped(path: Path, cap: int, what: str) -> bytes:
    """The bytes of ``path``; Refusal without reading when it is over ``cap`` or no regular
    file (a pipe or a device would be read forever)."""
    try:
        return read_regular(path, cap)
    except FileRefused as error:
        if error.size is not None:
            too_large = msg("file-too-large", what=msg(what), size=error.size, cap=cap // 1024)
            raise Refusal(too_large) from None
        raise Refusal(msg("file-unreadable", what=msg(what), why=error.why)) from None


def within_caps(order: bytes, signature: bytes | None) -> None:
    """Refusal when the order or its signature is over its size cap (files read from mail)."""
    if signature is not None and len(signature) > MAX_SIGNATURE_BYTES:
        raise Refusal(msg("signature-over-cap", cap=MAX_SIGNATURE_BYTES // 1024))
    if len(order) > MAX_ORDER_BYTES:
        raise Refusal(msg("order-over-cap", cap=MAX_ORDER_BYTES // 1024))


def order_and_signature(submission: Submission) -> tuple[bytes, bytes | None]:
    """The order bytes and the armored signature (None when there is none)."""
    data = read_capped(submission.order_path, MAX_ORDER_BYTES + MAX_SIGNATURE_BYTES, "order-file")
    if submission.sig_path is not None:
        signature = read_capped(submission.sig_path, MAX_SIGNATURE_BYTES, "signature-file")
        within_caps(data, None)
        return data, signature
    split = sshsig.split_appended(data)
    if split is not None:
        within_caps(*split)
        return split
    within_caps(data, None)
    beside = submission.order_path.with_name(submission.order_path.name + ".sig")
    if beside.exists():
        return data, read_capped(beside, MAX_SIGNATURE_BYTES, "signature-file")
    return data, None


def loaded(raw: bytes) -> Parsed:
    """``raw`` read as strict YAML under the order files' cap (``loaded`` set), or with the
    YAML's problems as its reasons (``loaded`` None): the first stage of every signed file."""
    parsed = Parsed(raw)
    try:
        parsed.loaded = load(raw, max_bytes=MAX_ORDER_BYTES)
    except StrictYamlError as error:
        parsed.reasons = [p.reason for p in error.problems]
    return parsed


def parse(raw: bytes, game: Game, kind: Kind = "order") -> Parsed:
    """Strict YAML, then the schema: every problem at once. ``kind``: an ``order`` file, a
    ``reveal`` (an order with its ``salt``) or a ``commitment``
    (:mod:`adjudicator.rules.sealing`)."""
    parsed = loaded(raw)
    if parsed.loaded is None:
        return parsed
    data = parsed.loaded.data
    if kind == "commitment":
        from adjudicator.engine.file_models import Commitment

        problems = schema_problems(Commitment, data)
        if isinstance(data, dict):
            problems += sealing.commit_problems(data)
    elif kind == "reveal" and isinstance(data, dict):
        problems = sealing.salt_problems(data)
        unsalted = {k: v for k, v in data.items() if k != SALT_KEY}
        problems += order_schema_problems(game, unsalted)
    else:
        problems = order_schema_problems(game, data)
    notice = indented_notice(raw, data)
    if notice is not None:  # its order's reasons would name keys the player never meant
        problems = [Problem("notice-indented", (), kind=notice)]
        data = None
    parsed.schema = problems
    parsed.reasons = located_all(problems, parsed.loaded)
    if isinstance(data, dict):
        parsed.data = data
    return parsed


def order_schema_problems(game: Game, data: Any) -> list[Problem]:
    """What ``game.order_model()`` finds in the order file ``data``: nothing, without loading
    the schema, when the game's plain check says the file fits it (``order_fits``, optional in
    the contract), so that a valid order is judged without pydantic."""
    fits = getattr(game, "order_fits", None)
    if fits is not None and fits(data):
        return []
    return schema_problems(game.order_model(), data)


def indented_notice(raw: bytes, data: Any) -> str | None:
    """The kind of a notice whose every line is indented (as copied from an indented example):
    YAML reads its keys as a notice's, but no line starts with the notice's key, which is how a
    notice is told from an order. None for any other file."""
    if not isinstance(data, dict):
        return None
    kinds = [key for key in NOTICE_KEYS if key in data]
    lines = [line for line in raw.splitlines() if line.strip() and line.lstrip()[:1] != b"#"]
    if not kinds or not lines or not all(line[:1] in (b" ", b"\t") for line in lines):
        return None
    return kinds[0]


def check_envelope(parsed: Parsed, game_id: str, player: str, turn: int) -> bool:
    """The order names this game, this player and this turn: True when it does (as far as its
    envelope is well typed)."""
    assert parsed.data is not None
    before = len(parsed.reasons)
    data = parsed.data
    if "id" in data and data["id"] != game_id:
        parsed.add(Problem("wrong-game", ("id",), given=data["id"], game=game_id))
    if "player" in data and data["player"] != player:
        parsed.add(Problem("wrong-player", ("player",), given=data["player"], player=player))
    if "turn" in data and isinstance(data["turn"], int) and data["turn"] != turn:
        code = "earlier-turn" if data["turn"] < turn else "later-turn"
        parsed.add(Problem(code, ("turn",), given=data["turn"], turn=turn))
    return len(parsed.reasons) == before


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# What a game's validate may raise when it assumes a well-typed order and gets another
_UNTYPED = (TypeError, ValueError, KeyError, AttributeError, IndexError)


def game_problems(parsed: Parsed, game: Game, context: dict[str, Any]) -> None:
    """The game's own validation against the player's context, placed on lines, also when the
    schema found problems: a wrong type in one place must not hide a problem in another. What
    the schema said of a place, the game does not say again. A valid order gets the game's
    notes in ``parsed.notes``."""
    for problem in game_found(game, context, parsed.body(), parsed.schema):
        parsed.add(problem)
    if parsed.ok:
        parsed.notes = located_all(game_notes(game, context, parsed.body()), parsed.loaded)


def game_found(
    game: Game, context: dict[str, Any], body: dict[str, Any], schema: list[Problem]
) -> list[Problem]:
    """What the game's ``validate`` finds in an order's ``body`` that the schema's problems
    (``schema``) do not say already; nothing more when the game cannot judge an order the
    schema found mistyped (its problems stand)."""
    try:
        found = game.validate(context, body)
    except _UNTYPED:
        if not schema:
            raise
        return []  # the game needs a well-typed order
    if not schema:  # the common case: nothing said already (the order page asks thousands)
        return found
    return [problem for problem in found if not _said(problem, schema)]


def game_notes(game: Game, context: dict[str, Any], body: dict[str, Any]) -> list[Problem]:
    """The game's notes on a valid order (``Game.notes`` is optional: a game may have none)."""
    notes = getattr(game, "notes", None)
    return list(notes(context, body)) if notes is not None else []


def _said(problem: Problem, schema: list[Problem]) -> bool:
    """The schema found a problem at ``problem``'s place, or a wrong type above it."""
    for known in schema:
        if known.path == problem.path:
            return True
        above = problem.path[: len(known.path)] == known.path
        if known.path and above and known.code == "wrong-type":
            return True
    return False
