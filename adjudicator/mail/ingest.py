"""Taking mail in: each message's orders go to their game, each gets a receipt.

A message's orders go to the game named by the order file's ``id`` among the games given; the
player is the one whose registered key made the signature, never the From header. Receipts go
to that player's registered address only, threaded on the order message. A message that carries
no order we can take is set aside (kept as an ``.eml`` file, the game master told) and answered
only where its From is a registered address. Processed Message-IDs are remembered in each game,
so the same message is never applied twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from adjudicator import engine, keys, sshsig, steps
from adjudicator.mail.config import MailSettings
from adjudicator.mail.incoming import FoundOrder, Incoming, read_message
from adjudicator.mail.outgoing import new_message_id, notice_mail, receipt_mail
from adjudicator.mail.queue import Outbox
from adjudicator.mail.sources import Raw
from adjudicator.store import GameDir, atomic_write
from adjudicator.strictyaml import StrictYamlError, load

DEFAULT_SENDER = "adjudicator@localhost"

PASTED_HINT = (
    "the order pasted into the message body does not verify: mail programs often change "
    "pasted text, so send the order file and its signature as attachments"
)


@dataclass(eq=False)
class Game:
    """One game directory among those ``ingest`` serves (compared by identity)."""

    root: Path
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.meta["id"])

    def email_of(self, player: str) -> str:
        return next(str(p["email"]) for p in self.meta["players"] if p["name"] == player)

    def player_with_key(self, blob: bytes) -> str | None:
        for player in self.meta["players"]:
            if keys.parse_public_line(player["key"]) == blob:
                return str(player["name"])
        return None

    def player_with_email(self, address: str | None) -> str | None:
        if address is None:
            return None
        for player in self.meta["players"]:
            if str(player["email"]).lower() == address.lower():
                return str(player["name"])
        return None

    def processed(self) -> set[str]:
        """The Message-IDs processed for this game, as its journal says."""
        return GameDir(self.root).facts().processed


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
    for path in paths:
        candidates = [path] if (path / "game.json").exists() else sorted(path.iterdir())
        for root in candidates:
            if not (root / "game.json").exists():
                continue
            try:
                found.append(Game(root, GameDir(root).meta()))
            except (OSError, ValueError, KeyError, TypeError) as error:
                if unreadable is not None:
                    unreadable.append((root, f"{type(error).__name__}: {error}"))
    return found


def ingest(games: list[Game], messages: Iterable[Raw], settings: MailSettings) -> Outcome:
    for game in games:
        steps.settle(game.root)
    outcome = Outcome()
    for raw in messages:
        one = _one_message(games, raw, settings)
        outcome.lines += one.lines
        outcome.set_aside = outcome.set_aside or one.set_aside
    return outcome


def message_key(incoming: Incoming, raw: bytes) -> str:
    """The Message-ID, or a digest of the whole message when it has none."""
    return incoming.message_id or f"<sha256-{hashlib.sha256(raw).hexdigest()}>"


def _one_message(games: list[Game], raw: Raw, settings: MailSettings) -> Outcome:
    incoming = read_message(raw.data)
    key = message_key(incoming, raw.data)
    if any(key in game.processed() for game in games):
        return Outcome([f"{key} set aside: a duplicate of a message processed before"], True)
    if incoming.problem is not None:
        why = incoming.problem
        return Outcome([_set_aside(games, None, raw, incoming, key, why, settings)], True)
    if not incoming.orders:
        why = "no signed order in the message"
        if incoming.unsigned:
            why = f"no signature for {', '.join(incoming.unsigned)}"
        return Outcome([_set_aside(games, None, raw, incoming, key, why, settings)], True)
    outcome = Outcome()
    routed: dict[Game, list[tuple[FoundOrder, str]]] = {}
    for found in incoming.orders:
        game, signer = _route(games, found)
        if game is None or signer is None:
            why = (
                f"{found.name}: names no game served here"
                if game is None
                else f"{found.name}: not signed by a registered key of game {game.id}"
            )
            outcome.lines.append(_set_aside(games, game, raw, incoming, key, why, settings))
            outcome.set_aside = True
            continue
        routed.setdefault(game, []).append((found, signer))
    for game, orders in routed.items():
        with steps.step(game.root, "mail") as running:
            handle = engine.OpenGame(game.root)
            for found, signer in orders:
                verdict = engine.judge_received(handle, found.name, found.order, found.signature)
                if not verdict.accepted and found.pasted and _signature_failed(verdict):
                    verdict.reasons.append(PASTED_HINT)
                outcome.lines.append(_line(key, game, signer, verdict))
                _receipt(handle, game, signer, incoming, key, found, verdict, settings)
            running.commit("mail", message_id=key, orders=handle.pending)
    return outcome


def _route(games: list[Game], found: FoundOrder) -> tuple[Game | None, str | None]:
    """The game the order's ``id`` names (else the only game where its key is a player's),
    and the player whose registered key made the signature."""
    try:
        blob = sshsig.parse_armored(found.signature).public_key_blob
    except sshsig.SignatureError:
        blob = None
    named = _order_id(found.order)
    candidates = [g for g in games if g.id == named] if named is not None else []
    if not candidates and blob is not None:
        candidates = [g for g in games if g.player_with_key(blob)]
    if len(candidates) != 1:
        return None, None
    game = candidates[0]
    return game, game.player_with_key(blob) if blob is not None else None


def _order_id(order: bytes) -> str | None:
    try:
        data = load(order).data
    except StrictYamlError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _signature_failed(verdict: engine.Verdict) -> bool:
    return any(r.startswith(("bad signature", "no signature")) for r in verdict.reasons)


def _line(key: str, game: Game, signer: str, verdict: engine.Verdict) -> str:
    player = verdict.player or signer
    turn = "-" if verdict.turn is None else str(verdict.turn)
    head = f"{key} {game.id} {player} {turn}"
    if verdict.accepted:
        return f"{head} accepted"
    return f"{head} refused: {'; '.join(verdict.reasons)}"


def _receipt(
    handle: engine.OpenGame,
    game: Game,
    signer: str,
    incoming: Incoming,
    key: str,
    found: FoundOrder,
    verdict: engine.Verdict,
    settings: MailSettings,
) -> None:
    sender = settings.sender or DEFAULT_SENDER
    message = receipt_mail(
        sender=sender,
        to=game.email_of(signer),
        game_id=game.id,
        subject=incoming.subject or f"orders for {game.id}",
        in_reply_to=incoming.message_id,
        references=incoming.references,
        body=receipt_text(handle, game, signer, found, verdict),
        message_id=new_message_id(sender, f"{game.id}.receipt"),
    )
    Outbox(game.root).put(message, f"receipt-{signer}")


def receipt_text(
    handle: engine.OpenGame, game: Game, signer: str, found: FoundOrder, verdict: engine.Verdict
) -> str:
    """What the receipt says: only what ``signer`` may see (their own order and its fate)."""
    if verdict.accepted:
        lines = [
            f"Your order {found.name} for game {game.id}, turn {verdict.turn}, was accepted"
            + (" and replaces your earlier order for that turn." if verdict.replaces else "."),
            f"SHA-256: {verdict.sha256}",
            "",
            "The order now in effect for you:",
            "",
            found.order.decode("utf-8", errors="replace").rstrip("\n"),
        ]
    else:
        lines = [
            f"Your order {found.name} for game {game.id} was refused:",
            *(f"- {reason}" for reason in verdict.reasons),
            "",
            "Nothing in the game changed: "
            + _in_effect(handle, signer, verdict.turn)
            + " Correct the file, sign it again and send it.",
        ]
    return "\n".join(lines) + "\n"


def _in_effect(handle: engine.OpenGame, player: str, turn: int | None) -> str:
    turn = handle.turn() if turn is None else turn
    entry = handle.in_effect(turn).get(player)
    if entry is None:
        return f"you have no order in effect for turn {turn}."
    return f"your order in effect for turn {turn} is the one with SHA-256 {entry['sha256']}."


def setaside_folder(game: Game | None) -> Path:
    """``GAMEDIR/setaside``, or the user's data folder when the message names no game."""
    if game is not None:
        return game.root / "setaside"
    return Path(platformdirs.user_data_dir("adjudicator")) / "setaside"


def _set_aside(
    games: list[Game],
    game: Game | None,
    raw: Raw,
    incoming: Incoming,
    key: str,
    why: str,
    settings: MailSettings,
) -> str:
    """Keep the message, tell the game master, answer a registered From; the output line."""
    home = game or (games[0] if games else None)
    if home is None:
        _keep(setaside_folder(None), raw.data)
        return f"{key} set aside: {why}"
    with steps.step(home.root, "mail") as running:
        kept = _keep(setaside_folder(game), raw.data)
        sender = settings.sender or DEFAULT_SENDER
        if settings.gm:
            notice = notice_mail(
                sender=sender,
                to=settings.gm,
                subject=f"set aside: {incoming.subject or key}",
                body=f"A message was set aside: {why}.\nMessage-ID: {key}\n"
                f"From: {incoming.sender or '-'}\nKept as: {kept.name}\n",
                message_id=new_message_id(sender, "setaside"),
                attachment=(kept.name, raw.data),
            )
            Outbox(home.root).put(notice, "setaside-gm")
        for candidate in [home, *games]:
            player = candidate.player_with_email(incoming.sender)
            if player is not None:
                answer = receipt_mail(
                    sender=sender,
                    to=candidate.email_of(player),
                    game_id=candidate.id,
                    subject=incoming.subject or "your message",
                    in_reply_to=incoming.message_id,
                    references=incoming.references,
                    body=f"Your message could not be taken as an order: {why}.\n"
                    "It was kept for the game master. To send orders, attach the order file "
                    "and its signature (.sig) to your message.\n",
                    message_id=new_message_id(sender, f"{candidate.id}.answer"),
                )
                Outbox(candidate.root).put(answer, f"answer-{player}")
                break
        running.commit("mail", message_id=key, set_aside=why)
    return f"{key} set aside: {why}"


def _keep(folder: Path, data: bytes) -> Path:
    """The message kept as ``<folder>/<first 16 hex digits of its SHA-256>.eml``."""
    kept = folder / f"{hashlib.sha256(data).hexdigest()[:16]}.eml"
    if not kept.exists():
        atomic_write(kept, data)
    return kept
