"""Taking mail in: each message's orders go to their game, checked before anything is answered.

For each order found in a message:

1. **The game** is the one the order's ``id`` names among the games served (an ``id`` that
   names none: the order is set aside).
2. **The signature is verified** against the registered keys of that game's players, for the
   order as found and then for each other reading of it (``FoundOrder.alternatives``); the
   first reading that verifies is the one taken. The key the signature names is only a hint of
   which key to try first. The player is the one whose registered key made the verified
   signature, never the From header. No verifying signature: set aside, answered to nobody.
3. An order that names one player but verifies with another player's key is refused by a
   receipt to the key's owner, and the game master is told. Any other order goes to the engine
   (:func:`adjudicator.engine.intake.judge_received`) and gets a receipt, to the signer's registered
   address only, threaded on the order message.

A message with no order, or with none that verifies, is set aside: kept as an ``.eml`` file, the
game master told by a notice that names the message (never carries it), and answered to nobody.
Automatic mail and mail from the adjudicator's or the game master's own address is never
answered (its orders are still taken), and one address gets at most 5 answers per game per hour
(:mod:`adjudicator.mail.answers`). Each message's work in a game is one step
(:mod:`adjudicator.store.steps`) whose journal line carries the Message-ID, keyed under the game's
file key (:meth:`Game.keyed`), so the same message is never applied twice, and a crash leaves it
applied whole or not at all. Text from a message
reaches an output line or a mail only through :mod:`adjudicator.present.quoting`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.engine import dealing, intake, open_game
from adjudicator.mail import answers, nogame
from adjudicator.mail.config import DEFAULT_SENDER, MailSettings
from adjudicator.mail.incoming import MAX_MESSAGE, FoundOrder, Incoming, read_message
from adjudicator.mail.outgoing import new_message_id, notice_mail, receipt_mail
from adjudicator.mail.queue import Outbox
from adjudicator.mail.sources import Raw
from adjudicator.present import mail as present_mail
from adjudicator.present.quoting import addr_spec, one_line, printable, shown_msg_id
from adjudicator.present.verdict_lines import reason_lines
from adjudicator.present.words import say
from adjudicator.rules.contract import Msg, Reason, msg
from adjudicator.rules.digests import Digester
from adjudicator.rules.errors import AdjudicatorError, TempFail
from adjudicator.rules.lang import DEFAULT, game_lang, lang_of
from adjudicator.rules.strictyaml import DEFAULT_MAX_BYTES, StrictYamlError, load
from adjudicator.rules.verdict import Verdict
from adjudicator.signing import sshsig
from adjudicator.store import journal, steps
from adjudicator.store.gamedir import LOG, GameDir, atomic_write

EXCERPT_LINES = 20
EXCERPT_BYTES = 1024
"""A notice to the game master quotes at most this much of the message (escaped)."""

HELD_NOTE = f"answer held for a digest: {answers.HOURLY_LIMIT} answers to this address this hour"

_FIELD = re.compile(
    rb"(?m)^(?:\xef\xbb\xbf)?(id|player)[ \t]*:[ \t]*([\"']?)([^\s\"'#]+)\2[ \t]*(?:#.*)?\r?$"
)


@dataclass(eq=False)
class Game:
    """One game directory among those ``ingest`` serves (compared by identity)."""

    root: Path
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.meta["id"])

    @property
    def players(self) -> list[str]:
        return [str(p["name"]) for p in self.meta["players"]]

    def email_of(self, player: str) -> str:
        return next(str(p["email"]) for p in self.meta["players"] if p["name"] == player)

    def key_of(self, player: str) -> str:
        return next(str(p["key"]) for p in self.meta["players"] if p["name"] == player)

    def signer(self, order: bytes, signature: bytes, named: object) -> str | None:
        """The player whose registered key made ``signature`` over ``order`` (as received or
        in a line-ending/BOM variant), or None.

        Every player's key is tried; the one the signature names goes first (the order's own
        player first when it is that one too), since the signature's key is only a hint.
        """
        try:
            hint = sshsig.parse_armored(signature).public_key_blob
        except sshsig.SignatureError:
            return None

        def first(player: str) -> tuple[bool, bool]:
            return (not _key_is(self.key_of(player), hint), player != named)

        for player in sorted(self.players, key=first):
            try:
                sshsig.verify_variants(order, signature, self.key_of(player), signer=player)
            except sshsig.SignatureError:
                continue
            return player
        return None

    def join_signer(self, order: bytes) -> str | None:
        """The name a join (or leave) of an open game gives, or None. A join is signed by the
        key it carries, so no registered key names its sender: the engine verifies it
        (:func:`adjudicator.engine.signup.judge_join`), and a refusal, a bad signature too,
        is answered only at the address the join gives, when it came from there."""
        name = _join_field(order, "name")
        return name or None

    def former_signer(self, order: bytes, signature: bytes) -> str | None:
        """The player whose seat held, before the game master replaced it, the key that made
        ``signature``: no stranger, but a player to tell that their key changed."""
        store = GameDir(self.root)
        for former in journal.former_keys(store.created(), store.log()):
            player = str(former["player"])
            try:
                sshsig.verify_variants(order, signature, str(former["key"]), signer=player)
            except sshsig.SignatureError:
                continue
            return player
        return None

    def processed(self) -> set[str]:
        """The Message-IDs processed for this game, as its journal says: each keyed
        (:meth:`keyed`), or as received in journals written before they were."""
        return GameDir(self.root).facts().processed

    def keyed(self, key: str) -> str:
        """The message key ``key`` as the journal keeps it: its HMAC-SHA-256 under the game's
        file key (:meth:`adjudicator.rules.digests.Digester.hidden`). A Message-ID names the
        sender's host or domain, and the journal, which a public archive holds, names the
        orders of the same line with their player; keyed, it says nothing of either."""
        return Digester.of(self.meta).hidden(key.encode("utf-8"))

    def seen(self, key: str) -> bool:
        """Whether the message ``key`` was processed for this game (keyed, or as received in a
        journal written before Message-IDs were keyed)."""
        processed = self.processed()
        return self.keyed(key) in processed or key in processed


def _key_is(public_key_line: str, blob: bytes) -> bool:
    try:
        return sshsig.registered_blob(public_key_line) == blob
    except sshsig.SignatureError:
        return False


@dataclass
class Outcome:
    """What ``ingest`` did with the messages: one line each, as the command prints them."""

    lines: list[str] = field(default_factory=list)
    set_aside: bool = False
    """Whether a message, or an order in one, was set aside (a duplicate too)."""


def games_in(paths: Iterable[Path], unreadable: list[tuple[Path, str]] | None = None) -> list[Game]:
    """Game directories given, or found one level down in folders of games. A game whose
    ``game.json`` or journal cannot be read is left out (and added to ``unreadable``, with why)."""
    found = []
    for root in game_roots(paths):
        try:
            found.append(Game(root, GameDir(root).meta()))
        except (OSError, ValueError, KeyError, TypeError, AdjudicatorError) as error:
            if unreadable is not None:
                from adjudicator.present.verdict_lines import unreadable_why

                unreadable.append((root, unreadable_why(error)))
    return found


def game_roots(paths: Iterable[Path]) -> list[Path]:
    """The game directories given, or found one level down in folders of games (those with a
    ``game.json``, or a journal: a game whose ``game.json`` is gone is one that cannot be
    read, not a folder), without reading them."""
    roots = []
    for path in paths:
        candidates = [path] if _a_game(path) else sorted(path.iterdir())
        roots += [root for root in candidates if _a_game(root)]
    return roots


def _a_game(path: Path) -> bool:
    """Whether ``path`` holds a game; not a folder the user may not look into (a ``lost+found``
    of root's beside the games, say), which cannot be told from one."""
    try:
        return (path / "game.json").exists() or (path / LOG).is_file()
    except OSError:
        return False


def ingest(
    games: list[Game], messages: Iterable[Raw], settings: MailSettings, unsure: bool = False
) -> Outcome:
    """Take each of ``messages`` into ``games``. ``unsure``: a game given could not be read, so
    a message that is none of these games' (no order, or one naming another game) may be its:
    TempFail, and it is left for a later run rather than set aside as no game's."""
    for game in games:
        steps.settle(game.root)
    outcome = Outcome()
    for raw in messages:
        one = _one_message(games, raw, settings, unsure)
        outcome.lines += one.lines
        outcome.set_aside = outcome.set_aside or one.set_aside
    return outcome


_MAY_BE_UNREAD = "it may be for a game given that cannot be read"


def message_key(incoming: Incoming, raw: bytes) -> str:
    """The Message-ID, or a digest of the whole message when it has none."""
    return incoming.message_id or f"<sha256-{hashlib.sha256(raw).hexdigest()}>"


@dataclass
class _Message:
    """One message being ingested, with what every step needs."""

    games: list[Game]
    raw: Raw
    incoming: Incoming
    key: str
    settings: MailSettings
    quiet: str | None
    """Why nothing is answered (automatic mail, our own address, the game master's), or None."""

    @property
    def shown(self) -> str:
        return shown_msg_id(self.incoming.message_id)

    @property
    def sender(self) -> str:
        return self.settings.sender or DEFAULT_SENDER

    @property
    def home(self) -> Game | None:
        """The game whose language speaks of a message that names none: the first served."""
        return self.games[0] if self.games else None


@dataclass(frozen=True)
class _Route:
    """Where an order goes: the game its ``id`` names and, when a reading verifies, the signer,
    with that reading (order bytes, signature) and the player the reading names."""

    game: Game | None
    signer: str | None = None
    order: bytes = b""
    signature: bytes = b""
    named: object = None
    former: bool = False
    """The signature verifies only with a key the signer's seat held before it was replaced."""


def _one_message(games: list[Game], raw: Raw, settings: MailSettings, unsure: bool) -> Outcome:
    incoming = read_message(raw.data)
    key = message_key(incoming, raw.data)
    sender = settings.sender or DEFAULT_SENDER
    message = _Message(
        games, raw, incoming, key, settings, answers.no_answer(incoming, settings, sender)
    )
    if any(game.seen(key) for game in games) or nogame.seen(key):
        return Outcome(
            [f"{message.shown} set aside: a duplicate of a message processed before"], True
        )
    if incoming.problem is not None:
        return _set_aside_whole(message, incoming.problem)
    if unsure and not incoming.orders:
        raise TempFail(_MAY_BE_UNREAD)
    confirmed = _confirmation(message)
    if confirmed is not None and not incoming.orders:
        return confirmed
    if not incoming.orders:
        unread = Msg("mail-why-no-order", {})
        if incoming.unsigned:
            names = [printable(name) for name in incoming.unsigned[:5]]
            more = len(incoming.unsigned) - 5
            unread = (
                Msg("mail-why-unsigned-more", {"names": names, "more": more})
                if more > 0
                else Msg("mail-why-unsigned", {"names": names})
            )
        return _set_aside_whole(message, unread)
    routes = [(found, _route(games, found)) for found in incoming.orders]
    if unsure and any(route.game is None for _, route in routes):
        raise TempFail(_MAY_BE_UNREAD)
    lines: list[str] = [""] * len(routes)
    taken = [r.game for _, r in routes if r.game is not None and r.signer is not None]
    for game in dict.fromkeys(taken):
        with steps.step(game.root, "mail") as running:
            handle = open_game.OpenGame(game.root)
            handle.sender = addr_spec(message.incoming.sender) or ""  # by mail: from whom
            game.meta = handle.meta
            judged = [
                (index, found, str(route.signer), _judged(message, handle, game, found, route))
                for index, (found, route) in enumerate(routes)
                if route.game is game and route.signer is not None
            ]
            unnamed = _secret_step(handle)
            for index, found, signer, verdict in judged:
                note = _answer(message, handle, game, signer, found, verdict, unnamed)
                lines[index] = _line(message, game, signer, verdict, note)
            running.commit(
                "mail",
                message_id=game.keyed(key),
                **intake.accepted_lines(handle),
                **handle.opening(),
                **dealing.deal_if_ready(handle),
            )
    aside: dict[Game | None, list[Msg]] = {}
    hints: set[Game | None] = set()
    for index, (found, route) in enumerate(routes):
        name = printable(found.name)
        named = route.game
        if named is None:
            why = Msg("mail-why-no-game", {"name": name})
        elif route.signer is None:
            why = Msg("mail-why-unverified", {"name": name, "game": named.id})
            if found.pasted:
                hints.add(named)
        else:
            continue
        lines[index] = f"{message.shown} set aside: {_said(why, named or message.home)}"
        aside.setdefault(named, []).append(why)
    for home, whys in aside.items():
        _keep_in_step(message, home, whys, home in hints)
    return Outcome(lines, bool(aside))


def _confirmation(message: _Message) -> Outcome | None:
    """A mail from the address of a join waiting for confirmation that holds its code, in its
    subject or text (a reply to the confirmation request does): the join confirmed, and under
    ``seating: first-come`` seated. Automatic mail confirms nothing: an auto-reply quotes the
    request's subject, but nobody read it."""
    incoming = message.incoming
    sender = addr_spec(incoming.sender)
    if sender is None or incoming.automatic is not None:
        return None
    text = f"{incoming.subject}\n{incoming.text}"
    for game in message.games:
        if "signup" not in game.meta:
            continue
        from adjudicator.engine import signup

        # read first: only a game with a join this mail confirms takes a step for it
        if not signup.confirming(open_game.OpenGame(game.root), sender, text):
            continue
        with steps.step(game.root, "mail") as running:
            handle = open_game.OpenGame(game.root)
            name = signup.confirming(handle, sender, text)  # again, under the game's lock
            if name is None:
                continue
            signup.confirm(handle, name)
            fields = signup.seating_fields(handle)
            running.commit("mail", message_id=game.keyed(message.key), **fields)
        seated = "seated" if name in fields.get("seated", []) else "confirmed"
        if fields.get("started"):
            seated += "; the game starts"
        return Outcome([f"{message.shown} {game.id} {name} {seated}"])
    return None


def _readings(found: FoundOrder) -> list[tuple[bytes, bytes]]:
    return [(found.order, found.signature), *found.alternatives]


def _route(games: list[Game], found: FoundOrder) -> _Route:
    """The first reading of ``found`` whose ``id`` names a game served here and whose signature
    verifies with a registered key of that game; else the first game any reading names."""
    named_game: Game | None = None
    for order, signature in _readings(found):
        game_id, player = _fields(order)
        game = next((g for g in games if g.id == game_id), None) if game_id else None
        if game is None:
            continue
        named_game = named_game or game
        signer = game.join_signer(order) or game.signer(order, signature, player)
        if signer is not None:
            return _Route(game, signer, order, signature, player)
    for order, signature in _readings(found):
        game_id, player = _fields(order)
        game = next((g for g in games if g.id == game_id), None) if game_id else None
        signer = None if game is None else game.former_signer(order, signature)
        if game is not None and signer is not None:
            return _Route(game, signer, order, signature, player, former=True)
    return _Route(named_game)


def _fields(order: bytes) -> tuple[str | None, object]:
    """The order's ``id`` (a string) and ``player`` (as written), read to route it: by the
    strict loader, else (a file it refuses, which the engine then refuses with its reasons) from
    top-level ``id:`` and ``player:`` lines."""
    if len(order) <= DEFAULT_MAX_BYTES:
        try:
            data = load(order).data
        except StrictYamlError:
            data = None
        if isinstance(data, dict):
            game_id = data.get("id")
            return (game_id if isinstance(game_id, str) else None), data.get("player")
    found: dict[bytes, str] = {}
    for match in _FIELD.finditer(order[:DEFAULT_MAX_BYTES]):
        found.setdefault(match.group(1), match.group(3).decode("utf-8", "replace"))
    return found.get(b"id"), found.get(b"player")


def _judged(
    message: _Message, handle: open_game.OpenGame, game: Game, found: FoundOrder, route: _Route
) -> Verdict:
    """Judge an order (or notice) whose signature verified with ``route.signer``'s key, within
    the game's step."""
    named, signer = route.named, str(route.signer)
    if route.former:
        names = {"game": game.id, "player": signer}
        about = Msg("mail-former-key-subject", names)
        _keep_and_tell(message, game, [Msg("mail-former-key", names)], False, about=about)
    elif isinstance(named, str) and named != signer and named in game.players:
        names = {"game": game.id, "named": named, "signer": signer}
        _keep_and_tell(
            message,
            game,
            [Msg("mail-names-another-player", names)],
            False,
            about=Msg("mail-names-another-player-subject", names),
        )
        return Verdict(
            found.name,
            False,
            signer,
            reasons=[Reason(msg("names-another-player", named=named, signer=signer))],
        )
    return intake.judge_received(handle, found.name, route.order, route.signature)


def _secret_step(handle: open_game.OpenGame) -> bool:
    """Whether the step took grey press or a vote: then nothing it writes may name who sent it
    (grey press hides its sender; draw votes are secret while the game runs), and the journal
    line names every file (the receipts of the message included)."""
    grey = handle.meta["options"].get("press") == "grey"
    secret = {"press", "vote"} if grey else {"vote"}
    return any(n["kind"] in secret for n in handle.noticed)


def _line(message: _Message, game: Game, signer: str, verdict: Verdict, note: str) -> str:
    """What ``ingest`` says of one judged file."""
    turn = "-" if verdict.turn is None else str(verdict.turn)
    head = f"{message.shown} {game.id} {printable(signer, 40)} {turn}"
    if verdict.accepted:
        return f"{head} accepted{note}"
    reasons = "; ".join(one_line(r) for r in reason_lines(verdict))
    return f"{head} refused: {reasons}{note}"


def _answer(
    message: _Message,
    handle: open_game.OpenGame,
    game: Game,
    signer: str,
    found: FoundOrder,
    verdict: Verdict,
    unnamed: bool = False,
) -> str:
    """Queue (or hold) the receipt to ``signer``; what the output line adds about it.
    ``unnamed``: the step took grey press or a vote, so the receipt is queued as ``receipt``
    and never held (the held answers' folder is the address's, and its other files name the
    player); grey press is at most :data:`adjudicator.engine.notices.MAX_PRESS_PER_TURN` a
    turn, and a receipt goes only to the signer's own registered address."""
    if message.quiet is not None:
        return f" (not answered: {message.quiet})"
    if verdict.kind in ("join", "leave"):
        return _answer_join(message, handle, game, found, verdict)
    words = receipt_words(handle, game, signer, found, verdict)
    receipt = receipt_mail(
        sender=message.sender,
        to=game.email_of(signer),
        game_id=game.id,
        subject=words.subject,
        in_reply_to=message.incoming.message_id,
        references=message.incoming.references,
        body=words.body,
        message_id=new_message_id(message.sender, f"{game.id}.receipt"),
    )
    # A notice's receipt is not named after its player, nor is any receipt of a step that took
    # grey press or a vote: the journal names the file, and grey press must not tell who sent
    # it (nor a vote who made it).
    label = "receipt" if verdict.kind is not None or unnamed else f"receipt-{signer}"
    if unnamed:
        answers.put_uncounted(game.root, receipt, label)
        return ""
    if answers.put_answer(game.root, receipt, label):
        return ""
    return f" ({HELD_NOTE})"


def _answer_join(
    message: _Message,
    handle: open_game.OpenGame,
    game: Game,
    found: FoundOrder,
    verdict: Verdict,
) -> str:
    """A join is answered only at the address it gives, and only when it came from there
    (anyone can sign a join with a key of their own: no stranger's address gets mail from
    it). A join taken is answered by the confirmation request ``send`` queues; a refused join,
    and a leave, by a receipt."""
    if verdict.accepted and verdict.kind == "join":
        return ""
    given = _join_address(found.order) if verdict.kind == "join" else _seat_address(handle, verdict)
    came_from = addr_spec(message.incoming.sender)
    if given is None or came_from is None or addr_spec(given) != came_from:
        return " (not answered: not sent from the address the join gives)"
    words = present_mail.receipt(
        game_id=game.id,
        name=printable(found.name),
        turn=None,
        accepted=verdict.accepted,
        sha256=verdict.sha256,
        reasons=verdict.reasons,
        order=found.order.decode("utf-8", errors="replace").rstrip("\n"),
        game=verdict.game,
        lang=game_lang(handle.meta),
        kind=verdict.kind,
        pasted=found.pasted,
    )
    receipt = receipt_mail(
        sender=message.sender,
        to=came_from,  # the one address it came from, never what the join wrote
        game_id=game.id,
        subject=words.subject,
        in_reply_to=message.incoming.message_id,
        references=message.incoming.references,
        body=words.body,
        message_id=new_message_id(message.sender, f"{game.id}.receipt"),
    )
    if answers.put_answer(game.root, receipt, "receipt"):
        return ""
    return f" ({HELD_NOTE})"


def _join_address(order: bytes) -> str | None:
    return _join_field(order, "email")


def _join_field(order: bytes, key: str) -> str | None:
    """The text a join (or leave) gives under ``key``, or None (no join, or no text there)."""
    from adjudicator.engine.intake import looks_like_join

    if not looks_like_join(order) or len(order) > DEFAULT_MAX_BYTES:
        return None
    try:
        data = load(order).data
    except StrictYamlError:
        return None
    body = data.get("join") if isinstance(data, dict) else None
    value = body.get(key) if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


def _seat_address(handle: open_game.OpenGame, verdict: Verdict) -> str | None:
    """The address of the seat (or join) a leave gives up, as the game had it before."""
    name = verdict.player
    if name is None:
        return None
    for seat in handle.meta["players"]:
        if seat["name"] == name:
            return str(seat["email"])
    join = journal.joins(handle.log).get(name)
    return None if join is None else str(handle.dir.read_json(join["addresses"])["email"])


_COMMITMENT = re.compile(rb"(?m)^commit:[ \t]")
"""A line of a commitment (``sealing: commit-reveal``), which no order has."""


def receipt_words(
    handle: open_game.OpenGame, game: Game, signer: str, found: FoundOrder, verdict: Verdict
) -> present_mail.Mail:
    """What the receipt says: only what ``signer`` may see (their own order and its fate), and
    the chain head as it stands when the receipt is written (just before the journal line of
    the step that stores the order and queues the receipt).

    The attachment's name is a stranger's choice: it is quoted escaped, at most 80 characters.
    """
    facts: dict[str, Any] = {}
    if not verdict.accepted and verdict.kind is None:
        turn = handle.turn() if verdict.turn is None else verdict.turn
        entry = handle.in_effect(turn).get(signer)
        in_effect = None if entry is None else _sha256_of(handle, turn, entry)
        facts = {"in_effect_turn": turn, "in_effect": in_effect}
    return present_mail.receipt(
        game_id=game.id,
        name=printable(found.name),
        turn=verdict.turn,
        accepted=verdict.accepted,
        replaces=verdict.replaces,
        sha256=verdict.sha256,
        notes=verdict.notes,
        reasons=verdict.reasons,
        order=found.order.decode("utf-8", errors="replace").rstrip("\n"),
        game=verdict.game,
        lang=lang_of(handle.meta, signer),
        head=handle.dir.head(),
        kind=verdict.kind,
        pasted=found.pasted,
        commitment=verdict.kind is None and _COMMITMENT.search(found.order) is not None,
        **facts,
    )


def _sha256_of(handle: open_game.OpenGame, turn: int, entry: dict[str, Any]) -> str:
    """The SHA-256 of the order in effect, as the receipt that accepted it said (the journal
    keeps only a keyed digest)."""
    rel = f"{handle.dir.turn_dir(turn)}/orders/{entry['file']}"
    return hashlib.sha256(handle.dir.named(rel, handle.facts.files)).hexdigest()


def setaside_folder(game: Game | None) -> Path:
    """``GAMEDIR/setaside``, or the user's data folder's when the message names no game."""
    if game is not None:
        return game.root / "setaside"
    return nogame.setaside_folder()


def _said(why: Msg, game: Game | None) -> str:
    """Why a message was set aside, on one line, in the language of ``game``'s game master."""
    return one_line(say(why, lang=DEFAULT if game is None else game_lang(game.meta)))


def _set_aside_whole(message: _Message, why: Msg) -> Outcome:
    """A message with no order that can be taken: kept, the game master told; the line."""
    _keep_in_step(message, None, [why], False)
    return Outcome([f"{message.shown} set aside: {_said(why, message.home)}"], True)


def _keep_in_step(message: _Message, game: Game | None, whys: list[Msg], pasted: bool) -> None:
    """:func:`_keep_and_tell` as a step of the game, which remembers the message; for a message
    that names no game, in the user's data folder, which belongs to none
    (:mod:`adjudicator.mail.nogame`)."""
    if game is None:
        _keep_and_tell(message, None, whys, pasted)
        nogame.remember(message.key)
        return
    with steps.step(game.root, "mail") as running:
        _keep_and_tell(message, game, whys, pasted)
        running.commit(
            "mail", message_id=game.keyed(message.key), set_aside=[w.to_json() for w in whys]
        )


def _keep_and_tell(
    message: _Message,
    game: Game | None,
    whys: list[Msg],
    pasted: bool,
    about: Msg | None = None,
) -> None:
    """Keep the message as an ``.eml`` file, tell the game master (a notice that names the
    message and carries none of it but an escaped excerpt). Answers nobody. Runs within a step
    of ``game``; for a message that names no game, the notice is queued in the user's data
    folder (in the language of the first game served, if any)."""
    data = message.raw.data
    kept = setaside_folder(game) / f"{hashlib.sha256(data).hexdigest()[:16]}.eml"
    if not kept.exists():
        atomic_write(kept, data)
    home = game or message.home
    if message.settings.gm:
        where = kept.relative_to(game.root).as_posix() if game is not None else str(kept)
        words = present_mail.set_aside(
            game_id=None if game is None else game.id,
            whys=[_said(why, home) for why in whys],
            pasted=pasted,
            facts=notice_facts(message.incoming, data, where),
            about=about,
            lang=DEFAULT if home is None else game_lang(home.meta),
        )
        notice = notice_mail(
            sender=message.sender,
            to=message.settings.gm,
            subject=words.subject,
            body=words.body,
            message_id=new_message_id(message.sender, "setaside"),
        )
        Outbox(nogame.root() if game is None else game.root).put(notice, "setaside-gm")


def notice_facts(incoming: Incoming, data: bytes, where: str) -> dict[str, Any]:
    """What names a message for the game master (sender, subject, date, Message-ID, size,
    SHA-256, where it is kept), with a short excerpt: everything from it escaped."""
    excerpt = re.split(rb"\r?\n", data[:EXCERPT_BYTES])[:EXCERPT_LINES]
    return {
        "sender": printable(incoming.sender),
        "subject": printable(incoming.subject) if incoming.subject else None,
        "date": printable(incoming.date),
        "message_id": shown_msg_id(incoming.message_id),
        "size": len(data),
        "cap": MAX_MESSAGE,
        "sha256": hashlib.sha256(data).hexdigest(),
        "where": where,
        "excerpt": [printable(line, 74) for line in excerpt],
        "excerpt_lines": EXCERPT_LINES,
        "excerpt_bytes": EXCERPT_BYTES,
    }
