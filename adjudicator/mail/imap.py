"""Incoming mail from an IMAP folder (``[imap]`` in the settings), by UID, oldest first.

Each message is fetched with ``BODY.PEEK[]`` (so it is not marked seen), handed to ingest, and
then moved out of the folder: to ``done_folder``, or to ``setaside_folder`` when ingest set it
aside. Moving is what makes a run safe to repeat: what was handled is no longer in the folder,
and ingest remembers every Message-ID it processed, so a message that comes back (a run cut
short between ingest and the move) is never applied twice. Nothing is deleted: a server with
MOVE moves; one without gets COPY, then ``\\Deleted`` on that one UID and a ``UID EXPUNGE`` of
that UID (UIDPLUS); without UIDPLUS the original is only flagged ``\\Deleted``, expunged by the
user's own mail program, and skipped by later runs.

Folder names use ``/`` between levels; it is replaced by the server's own separator.

With ``tls = "none"`` (allowed by the settings for a server on this machine only, and checked
again against the address reached) no TLS is used, and the password crosses the loopback
interface in plain text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from imapclient import IMAPClient  # type: ignore[import-untyped]
from imapclient.exceptions import (  # type: ignore[import-untyped]
    CapabilityError,
    IMAPClientAbortError,
    IMAPClientError,
    LoginError,
)

from adjudicator.mail.config import ConfigError, ServerSettings, password
from adjudicator.mail.incoming import MAX_MESSAGE
from adjudicator.mail.patience import at_most, too_slow
from adjudicator.mail.sources import Raw
from adjudicator.mail.tls import certificate_problem, connection_problem, not_local, tls_context

IMAP_TIMEOUT = 60.0
"""Seconds to wait for the IMAP server at every step before giving up."""

_BODY = f"BODY.PEEK[]<0.{MAX_MESSAGE + 1}>"
"""The whole message, but never more than ingest reads (a longer one is set aside unread)."""
_BODY_KEY = b"BODY[]<0>"
_BYTES_REPR = re.compile(r"b(['\"])(.*)\1")
_SERVER_WIDE = ("[UNAVAILABLE]", "[INUSE]", "[LIMIT]")
"""Response codes of a refusal that concerns the session, not the message it was about."""
_FOR_NOW = (*_SERVER_WIDE, "[SERVERBUG]", "[EXPUNGEISSUED]")
"""Response codes (RFC 5530) of a refusal that a later run may not meet (EXPUNGEISSUED:
another session expunged a message the command named, as a mail program may)."""


class ImapRefused(ConfigError):
    """The server cannot be used as configured (login refused, no such folder, no STARTTLS, a
    certificate that does not verify): running again will not help until the settings or the
    server change. The message starts with the settings file, the table and the key."""


class ImapUnavailable(Exception):
    """The server cannot be reached or talked to now (connection, TLS, timeout): run again."""


class Unfetchable(Exception):
    """The server will not give one message (it refused the FETCH, or ended the session in
    answer to it, or gave no text); the others may still be read."""


def where(server: ServerSettings) -> str:
    """``IMAP server host:port``, as messages name it."""
    return f"IMAP server {server.host}:{server.port}"


class Mailbox:
    """A logged-in session; ``select`` chooses ``server.folder``, the one messages come from."""

    def __init__(self, client: Any, server: ServerSettings) -> None:
        self.client = client
        self.server = server
        with _talking(server, "folder"):
            self._separator = _separator(client)
        self._ready: set[str] = set()

    def name(self, setting: str) -> str:
        """The server's name for the folder ``setting`` (``/`` between levels)."""
        if self._separator in (None, "/"):
            return setting
        return setting.replace("/", self._separator)

    def select(self) -> None:
        """Select ``server.folder``; ImapRefused when there is no such folder."""
        folder = self.name(self.server.folder)
        with _talking(self.server, "folder"):
            if not self.client.folder_exists(folder):
                raise ImapRefused(
                    f"{self.server.setting('folder')}: {where(self.server)} has no folder "
                    f"{folder!r}"
                )
            self.client.select_folder(folder)

    def uids(self) -> list[int]:
        """The UIDs of the messages in the folder (those not flagged deleted), oldest first."""
        with _talking(self.server, "folder"):
            return sorted(int(uid) for uid in self.client.search(["NOT", "DELETED"]))

    def fetch(self, uid: int) -> Raw | None:
        """Message ``uid`` as stored, without marking it seen; None when it is gone already.
        Unfetchable when the server answers for this message alone that it will not give it
        (a refusal, or its end of the session, in answer to this FETCH; or no text)."""
        try:
            with at_most(_exchange_limit(), where(self.server)):
                answered = self.client.fetch([uid], [_BODY])
        except IMAPClientError as error:  # an answer to this FETCH: a refusal, or a BYE
            said = _text(error)
            if too_slow(error) is not None or any(code in said for code in _SERVER_WIDE):
                raise _translated(self.server, "folder", error) from None
            raise Unfetchable(f"{where(self.server)}: {said}") from None
        except OSError as error:
            raise _translated(self.server, "folder", error) from None
        found = answered.get(uid)
        if found is None:
            return None
        data = found.get(_BODY_KEY)
        if data is None:  # a server that names the part otherwise (BODY[]) is read as well
            data = next((v for k, v in found.items() if bytes(k).startswith(b"BODY[")), None)
        if not isinstance(data, (bytes, bytearray)):
            raise Unfetchable(f"{where(self.server)} gave no text for message {uid}")
        return Raw(f"imap:{uid}", bytes(data))

    def file_away(self, uid: int, set_aside: bool) -> None:
        """Move message ``uid`` to the set-aside or the done folder (created when missing)."""
        key = "setaside_folder" if set_aside else "done_folder"
        folder = self._folder(key)
        with _talking(self.server, key):
            if self.client.has_capability("MOVE"):
                self.client.move([uid], folder)
            else:
                self.client.copy([uid], folder)
                self.client.add_flags([uid], [b"\\Deleted"], silent=True)
                if self.client.has_capability("UIDPLUS"):
                    self.client.uid_expunge([uid])

    def _folder(self, key: str) -> str:
        """The server's name for the folder set as ``key``, created (and subscribed) when
        missing."""
        name = self.name(getattr(self.server, key))
        if name in self._ready:
            return name
        with _talking(self.server, key):
            if not self.client.folder_exists(name):
                try:
                    self.client.create_folder(name)
                except IMAPClientError:
                    if not self.client.folder_exists(name):  # not made by a run at the same time
                        raise
                with suppress(IMAPClientError):  # so mail programs show it; not essential
                    self.client.subscribe_folder(name)
        self._ready.add(name)
        return name


@contextmanager
def open_mailbox(server: ServerSettings) -> Iterator[Mailbox]:
    """A session with ``server``: TLS verified, logged in, ``server.folder`` selected; logged
    out on leaving.

    Raises ImapUnavailable (cannot connect, the TLS handshake fails, a timeout, a temporary
    refusal) or ImapRefused (login refused, no such folder, no STARTTLS, a certificate that
    does not verify); a password that cannot be had raises ConfigError before anything is sent.
    """
    if server.user is None:
        raise ImapRefused(f"{server.setting('user')}: IMAP needs a login")
    secret = password(server) or ""
    with _talking(server, "tls"):
        client = _connect(server)
    try:
        with _talking(server, "user"):
            _login(client, server.user, secret)
        mailbox = Mailbox(client, server)
        mailbox.select()
        yield mailbox
    finally:
        _logout(client)


def _connect(server: ServerSettings) -> Any:
    """A connection over implicit TLS or STARTTLS, certificate and host name verified against
    ``ca_file`` when given, else the system's trusted certificates; plain text only with
    ``tls = "none"`` to this machine."""
    context = tls_context(server) if server.tls != "none" else None
    implicit = server.tls == "tls"
    client = IMAPClient(
        server.host, server.port, ssl=implicit, ssl_context=context, timeout=IMAP_TIMEOUT
    )
    if not implicit:
        try:
            if server.tls == "none":
                problem = not_local(where(server), server, client.socket())
                if problem is not None:
                    raise ImapRefused(problem)
                return client
            if not client.has_capability("STARTTLS"):
                raise ImapRefused(
                    f"{server.setting('tls')}: {where(server)} does not offer STARTTLS "
                    "(plain text is never used)"
                )
            client.starttls(context)
        except BaseException:
            _logout(client)
            raise
    return client


def _login(client: Any, user: str, secret: str) -> None:
    """LOGIN, which imaplib sends in ASCII only; otherwise AUTHENTICATE PLAIN in UTF-8."""
    if (user + secret).isascii():
        client.login(user, secret)
    else:
        client.plain_login(user, secret)


def _logout(client: Any) -> None:
    """Log out, or at least close the connection; errors here change nothing (nor does a
    server that answers a byte at a time: the logout has a limit too)."""
    try:
        with at_most(IMAP_TIMEOUT, "the IMAP server"):
            client.logout()
    except Exception:
        with suppress(Exception):
            client.shutdown()


def _separator(client: Any) -> str | None:
    """The server's hierarchy separator (``LIST "" ""``), None for a flat server."""
    listed = client.list_folders("", "")
    if not listed or listed[0][1] is None:
        return None
    separator = listed[0][1]
    return separator.decode("utf-8") if isinstance(separator, bytes) else str(separator)


@contextmanager
def _talking(server: ServerSettings, key: str) -> Iterator[None]:
    """Turns what the network and the server raise into ImapUnavailable or ImapRefused; a
    refusal names the setting ``key`` (the one the step at hand depends on)."""
    try:
        with at_most(_exchange_limit(), where(server)):
            yield
    except (OSError, IMAPClientError) as error:
        raise _translated(server, key, error) from None


def _exchange_limit() -> float:
    """The most seconds one exchange with the server (a command and its answer) may take."""
    return 4 * IMAP_TIMEOUT


def _translated(server: ServerSettings, key: str, error: OSError | IMAPClientError) -> Exception:
    """ImapUnavailable or ImapRefused, saying why in one line."""
    at = where(server)
    if (slow := too_slow(error)) is not None:
        return ImapUnavailable(str(slow))
    problem = certificate_problem(at, server, error)
    if problem is not None:
        return ImapRefused(problem)
    problem = connection_problem(at, server, error)
    if problem is not None:
        return ImapUnavailable(problem)
    if isinstance(error, TimeoutError):
        return ImapUnavailable(f"{at} gave no answer within {IMAP_TIMEOUT:g} seconds")
    if isinstance(error, OSError):
        return ImapUnavailable(f"cannot talk to {at}: {error.strerror or _text(error)}")
    if isinstance(error, LoginError):
        said = _text(error)
        if "[UNAVAILABLE]" in said:
            return ImapUnavailable(f"{at} cannot check the login now: {said}")
        return ImapRefused(
            f"{server.login_setting()}: {at} refused the login as {server.user}: {said}"
        )
    if isinstance(error, CapabilityError):
        return ImapRefused(f"{server.setting(key)}: {at} lacks a capability needed: {_text(error)}")
    if isinstance(error, IMAPClientAbortError):
        return ImapUnavailable(f"{at} closed the connection: {_text(error)}")
    said = _text(error)
    if any(code in said for code in _FOR_NOW):
        return ImapUnavailable(f"{at} refused for now: {said}")
    return ImapRefused(f"{server.setting(key)}: {at} refused: {said}")


def _text(error: BaseException) -> str:
    """The error's text on one line; the server's answer unwrapped from its ``b'...'``."""
    said = " ".join(str(error).split())
    quoted = _BYTES_REPR.fullmatch(said)
    return (quoted[2] if quoted else said)[:300]
