"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, TLS from a throwaway trustme CA.

Use the fixtures ``smtp_tls`` (implicit TLS) and ``smtp_starttls`` (STARTTLS required), both
asking for a login (``USER``/``PASSWORD``), by importing them into a test module; or
``running_server`` for other combinations. Each server listens on loopback only, on a port the
system picks, and is stopped in teardown. What arrives is kept byte for byte in
``server.received``.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

USER = "adjudicator"
PASSWORD = "s3cret wörd"
HOST = "127.0.0.1"


@dataclass
class Received:
    """One message the server accepted."""

    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    """The message exactly as it arrived (after the DATA transparency was undone)."""
    user: str | None
    """Who had logged in, None without a login."""


@dataclass
class Recorder:
    """The server's handler: keeps every accepted message; can refuse recipients, ask for a
    login before MAIL, or drop the connection after the message's data (before answering)."""

    refuse: set[str] = field(default_factory=set)
    require_login: bool = False
    drop_after_data: bool = False
    received: list[Received] = field(default_factory=list)

    async def handle_MAIL(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        mail_options: list[str],
    ) -> str:
        if self.require_login and not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert envelope.mail_from is not None
        assert isinstance(envelope.original_content, bytes)
        auth: Any = session.auth_data
        login = auth.login.decode() if session.authenticated else None
        self.received.append(
            Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content, login)
        )
        if self.drop_after_data:
            assert isinstance(server.transport, asyncio.Transport)
            server.transport.abort()
        return "250 2.0.0 Message accepted"


def authenticator(
    server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
) -> AuthResult:
    """Lets in ``USER`` with ``PASSWORD`` (PLAIN or LOGIN), nobody else."""
    if isinstance(auth_data, LoginPassword) and (
        auth_data.login.decode() == USER and auth_data.password.decode() == PASSWORD
    ):
        return AuthResult(success=True, auth_data=auth_data)
    return AuthResult(success=False, handled=False)


class LoopbackController(Controller):
    """aiosmtpd's Controller on a port the system picks (``port=0``), read back once bound;
    given a minute to start (its own default, 5 s, a loaded machine can miss), and stopped
    again when it does not."""

    def __init__(self, handler: Any, **kwargs: Any) -> None:
        kwargs.setdefault("ready_timeout", 60.0)
        super().__init__(handler, **kwargs)

    def start(self) -> None:
        try:
            super().start()
        except BaseException:
            self.stop(no_assert=True)
            raise

    def _trigger_server(self) -> None:
        assert isinstance(self.server, asyncio.Server)
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]


@dataclass
class Server:
    """A running test server and what a client needs to reach it."""

    host: str
    port: int
    tls: Literal["tls", "starttls"]
    ca_file: Path
    recorder: Recorder

    @property
    def received(self) -> list[Received]:
        return self.recorder.received


@dataclass
class Authority:
    """A throwaway CA and its PEM file; it issues the servers' certificates."""

    ca: trustme.CA
    ca_file: Path

    def server_context(self, names: tuple[str, ...] = (HOST, "localhost")) -> ssl.SSLContext:
        """A server context with a certificate for ``names``."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert(*names).configure_cert(context)
        return context


def make_authority(folder: Path, name: str = "ca.pem") -> Authority:
    """A new CA, its certificate written to ``folder/name`` (to use as ``ca_file``)."""
    ca = trustme.CA()
    folder.mkdir(parents=True, exist_ok=True)
    ca_file = folder / name
    ca.cert_pem.write_to_path(str(ca_file))
    return Authority(ca, ca_file)


@contextmanager
def running_server(
    authority: Authority,
    tls: Literal["tls", "starttls"],
    *,
    login: bool = True,
    recorder: Recorder | None = None,
    names: tuple[str, ...] = (HOST, "localhost"),
) -> Iterator[Server]:
    """An SMTP server on 127.0.0.1, stopped on leaving; its certificate names ``names``. With
    ``login`` it takes no mail before ``USER`` logged in."""
    recorder = recorder or Recorder()
    recorder.require_login = login
    context = authority.server_context(names)
    options: dict[str, Any] = {}
    if login:
        options["authenticator"] = authenticator
    if tls == "tls":
        # aiosmtpd counts only STARTTLS as TLS when it decides whether to allow AUTH
        # (aio-libs/aiosmtpd#281), so auth_require_tls must be off with implicit TLS; this
        # listener speaks nothing but TLS, so no password crosses in plain text, and
        # Recorder.require_login refuses MAIL before a login.
        options.update(ssl_context=context, auth_require_tls=False)
    else:
        options.update(tls_context=context, require_starttls=True, auth_require_tls=True)
    controller = LoopbackController(recorder, hostname=HOST, port=0, **options)
    controller.start()
    try:
        yield Server(HOST, controller.port, tls, authority.ca_file, recorder)
    finally:
        controller.stop()


@pytest.fixture
def authority(tmp_path: Path) -> Authority:
    return make_authority(tmp_path / "ca")


@pytest.fixture
def smtp_tls(authority: Authority) -> Iterator[Server]:
    """An SMTP server with implicit TLS, asking for a login."""
    with running_server(authority, "tls") as server:
        yield server


@pytest.fixture
def smtp_starttls(authority: Authority) -> Iterator[Server]:
    """An SMTP server requiring STARTTLS, then a login (AUTH only over TLS)."""
    with running_server(authority, "starttls") as server:
        yield server
