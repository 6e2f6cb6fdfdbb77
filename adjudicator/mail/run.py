"""The mail commands' sequence over many games: ``ingest`` here, ``send`` and ``tick`` in
:mod:`adjudicator.mail.daily` (which ``ingest`` does not load).

Each game is worked on alone: one that is locked or cannot be read is named on standard error
and left for a later run, and the others are done (:func:`each_game`). What a run prints goes
to the ``Console`` the command line gives, line by line; what it leaves for a later run is
raised at the end as :class:`~adjudicator.rules.errors.TempFail` (exit 75), and a setting that
can never work as :class:`~adjudicator.rules.errors.InputRefused` (exit 3).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from adjudicator.mail import nogame, sources
from adjudicator.mail.config import MailSettings, ServerSettings
from adjudicator.mail.ingest import Game, Outcome, games_in, ingest
from adjudicator.rules.errors import AdjudicatorError, TempFail
from adjudicator.store.gamedir import make_folder

if TYPE_CHECKING:
    from adjudicator.mail import imap
    from adjudicator.mail.sources import Raw


@dataclass(frozen=True)
class Console:
    """Where a run's lines go: ``out`` (standard output) and ``err`` (standard error)."""

    out: Callable[[str], None]
    err: Callable[[str], None]


@dataclass(frozen=True)
class Source:
    """Where ``ingest`` and ``tick`` take mail from: a Maildir, an mbox, the [imap] server, or
    (``stdin``) standard input; nothing given: the [imap] server when the settings have one."""

    maildir: Path | None = None
    mbox: Path | None = None
    imap: bool = False
    stdin: bool = False


def ingest_all(
    games: tuple[Path, ...],
    source: Source,
    settings: MailSettings,
    say: Console,
    left: list[str] | None = None,
    unfetched: list[str] | None = None,
) -> bool:
    """Each message in turn: its lines printed, then (Maildir) marked seen or (IMAP) moved;
    whether a message was left for a later run (a game locked or unreadable). A game that
    cannot be read is named (and added to ``left``), and a message that may be its waits. A
    message the IMAP server would not give is moved unread and named in ``unfetched``."""
    unnamed = source.maildir is None and source.mbox is None and not source.stdin
    by_imap = source.imap or (unnamed and settings.imap is not None)
    name = source_name(source, settings.imap if by_imap else None)
    if name is None:
        return _ingest_source(games, source, settings, say, left)
    from filelock import FileLock, Timeout

    lock = reading_lock(name)
    make_folder(lock.parent)
    try:
        with FileLock(str(lock), timeout=0):
            if by_imap:
                return _ingest_imap(_served(games, say, left), settings, say, unfetched)
            return _ingest_source(games, source, settings, say, left)
    except Timeout:
        say.err(f"{name}: another run is reading it: its messages are left to that run")
        return True


def source_name(source: Source, server: ServerSettings | None) -> str | None:
    """The mailbox ``source`` reads (``server``: by IMAP), as its lock is named; None for
    standard input, each of whose messages is its own."""
    if server is not None:
        return f"imap {server.user or ''}@{server.host}:{server.port} {server.folder}"
    if source.maildir is not None:
        return f"maildir {source.maildir.resolve()}"
    if source.mbox is not None:
        return f"mbox {source.mbox.resolve()}"
    return None


def reading_lock(name: str) -> Path:
    """The lock a run holds while it reads the mailbox ``name``, in the user's data folder:
    one run at a time, as cron starts a tick every minute and a long one meets the next (two
    would both take a message, and answer it twice)."""
    key = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    return nogame.root() / "reading" / f"{key}.lock"


def _ingest_source(
    games: tuple[Path, ...],
    source: Source,
    settings: MailSettings,
    say: Console,
    left: list[str] | None,
) -> bool:
    """:func:`ingest_all` from a Maildir, an mbox or standard input."""
    if source.maildir is not None:
        messages = list(sources.from_maildir(source.maildir))
    elif source.mbox is not None:
        messages = list(sources.from_mbox(source.mbox))
    elif source.stdin:
        messages = list(sources.from_stdin(sys.stdin.buffer))
    else:
        messages = []
    if not messages:
        return False  # no game need be read (tick over many idle games: see mail/idle.py)
    served = _served(games, say, left)
    waits = False
    for raw in messages:
        outcome = _ingest_one(served, raw, settings, say)
        if outcome is None:
            waits = True
            continue
        if source.maildir is not None:
            sources.mark_seen_maildir(source.maildir, raw.key)
    return waits


class _Served(list[Game]):
    """The games mail is taken into; ``unsure`` when one given could not be read."""

    unsure = False


def _served(games: tuple[Path, ...], say: Console, left: list[str] | None) -> _Served:
    """The games among ``games`` that can be read; each that cannot is named on standard error
    and added to ``left``."""
    unreadable: list[tuple[Path, str]] = []
    served = _Served(games_in(games, unreadable))
    for root, why in unreadable:
        served.unsure = True
        left_unread(root, why, [] if left is None else left, say)
    return served


def left_unread(root: Path, why: str, left: list[str], say: Console) -> None:
    """A game that cannot be read, named and left for a later run."""
    left.append(str(root))
    why = why.removeprefix(f"{root}: ")  # a domain error's words name the game first
    say.err(f"{root}: left for a later run: the game cannot be read ({why})")


def _ingest_one(served: _Served, raw: Raw, settings: MailSettings, say: Console) -> Outcome | None:
    """Ingest one message and print its lines; None when a game it goes to is locked or
    cannot be read: named on standard error, the message left where it is for a later run."""
    try:
        outcome = ingest(served, [raw], settings, served.unsure)
    except AdjudicatorError as error:
        from adjudicator.present.verdict_lines import error_text

        say.err(f"{raw.key}: left for a later run: {error_text(error)}")
        return None
    except (OSError, ValueError, KeyError, TypeError) as error:
        say.err(f"{raw.key}: left for a later run: {_system_refusal(error) or error}")
        return None
    for line in outcome.lines:
        say.out(line)
    return outcome


def _ingest_imap(
    served: _Served, settings: MailSettings, say: Console, unfetched: list[str] | None = None
) -> bool:
    """Each message of the [imap] folder, oldest first: its lines printed, then moved to the
    done folder, or to the set-aside folder when ingest set it aside."""
    from adjudicator.mail import imap

    assert settings.imap is not None  # the command line names a missing [imap] table
    left = False
    failed: dict[int, str] = {}  # a message the server would not give once, and why
    unread: dict[int, str] = {}  # one it would not give twice: moved unread when next met
    try:
        for _ in range(1 + 2 * MOST_UNFETCHABLE):
            try:
                with imap.open_mailbox(settings.imap) as mailbox:
                    for uid in mailbox.uids():
                        if uid in unread:
                            _move_unread(mailbox, uid, unread.pop(uid), say, unfetched)
                            continue
                        try:
                            raw = mailbox.fetch(uid)
                        except imap.Unfetchable as error:
                            # once may be the moment's (the session it ended is started
                            # anew); twice in a row, it is the message
                            (unread if uid in failed else failed)[uid] = str(error)
                            raise _SessionAgain from None
                        if raw is None:
                            continue
                        outcome = _ingest_one(served, raw, settings, say)
                        if outcome is None:
                            left = True
                            continue
                        mailbox.file_away(uid, outcome.set_aside)
                return left
            except _SessionAgain:
                continue
    except imap.ImapUnavailable as error:
        raise TempFail(f"{error}; run again") from None
    raise TempFail(f"more than {MOST_UNFETCHABLE} messages the server would not give; run again")


MOST_UNFETCHABLE = 10
"""The most messages one run moves unread (each costs two more sessions with the server)."""


class _SessionAgain(Exception):
    """The server would not give a message: a new session, which meets it again or moves it."""


def _move_unread(
    mailbox: imap.Mailbox, uid: int, why: str, say: Console, unfetched: list[str] | None
) -> None:
    """Move message ``uid``, which the server would not give twice, to the set-aside folder
    unread: the others in the folder are read all the same, and the game master is told."""
    mailbox.file_away(uid, set_aside=True)
    folder = mailbox.server.setaside_folder
    say.err(f"imap:{uid}: moved unread to {folder}: the server would not give it ({why})")
    if unfetched is not None:
        unfetched.append(f"imap:{uid} ({why})")


@contextmanager
def each_game(game_id: str, left: list[str], say: Console) -> Iterator[None]:
    """Work on one game of many: a game that is locked or cannot be read is named on standard
    error and left for a later run (``left``), and the others are done."""
    try:
        yield
    except AdjudicatorError as error:  # TempFail among them
        from adjudicator.present.verdict_lines import error_text

        left.append(game_id)
        say.err(f"{game_id}: left for a later run: {error_text(error)}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        left.append(game_id)
        refused = _system_refusal(error)
        if refused is not None:  # a full disk, a file this user may not write: not the game's
            say.err(f"{game_id}: left for a later run: {refused}")
            return
        say.err(
            f"{game_id}: left for a later run: the game cannot be read "
            f"({type(error).__name__}: {error}); `adjudicator doctor` tells more"
        )


def _system_refusal(error: Exception) -> str | None:
    """The words of a refusal by the system (:func:`system_refusal`), or None."""
    if not isinstance(error, OSError):
        return None
    from adjudicator.present.verdict_lines import system_refusal

    return system_refusal(error)
