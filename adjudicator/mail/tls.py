"""What SMTP and IMAP share: the TLS context, and why a connection could not be made."""

from __future__ import annotations

import socket
import ssl
from contextlib import suppress

from adjudicator.mail.config import ServerSettings, is_local

_NAME_MISMATCH = (62, 64)
"""OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH."""


def tls_context(server: ServerSettings) -> ssl.SSLContext:
    """Certificates and host names verified against ``ca_file`` when given, else against the
    system's trusted certificates."""
    return ssl.create_default_context(
        cafile=str(server.ca_file) if server.ca_file is not None else None
    )


def certificate_problem(where: str, server: ServerSettings, error: BaseException) -> str | None:
    """For a certificate that did not verify: one line that names the setting to look at
    (``host`` when the certificate is for another name, else ``ca_file``); None for any other
    error.

    Such a certificate is a setting that can never work, not a reason to try again: every run
    meets the same certificate until the settings (or the server's certificate) change, and
    the game master has to be told (exit 3 is a failure for cron and systemd; 75 is not).
    """
    if not isinstance(error, ssl.SSLCertVerificationError):
        return None
    said = error.verify_message or error.reason or str(error)
    if error.verify_code in _NAME_MISMATCH:
        return f"{server.setting('host')}: the certificate of {where} is not for this name: {said}"
    trusted = (
        server.setting("ca_file")
        if server.ca_file is not None
        else server.setting("ca_file").replace("(not set)", "(not set: the system's CAs)")
    )
    return f"{trusted}: TLS with {where} failed: the certificate was not trusted: {said}"


def not_local(where: str, server: ServerSettings, sock: socket.socket | None) -> str | None:
    """With ``tls = "none"``: one line when the connection's other end is not this machine
    (``localhost`` resolved elsewhere), else None."""
    peer = ""
    with suppress(OSError):
        peer = str(sock.getpeername()[0]) if sock is not None else ""
    if peer and is_local(peer.partition("%")[0]):
        return None
    return (
        f"{server.setting('tls')}: {where} was reached at {peer or 'an unknown address'}, "
        "which is not this machine: no TLS is only for a server on this machine"
    )


def connection_problem(where: str, server: ServerSettings, error: BaseException) -> str | None:
    """One line for a TLS failure, an unknown host or a refused connection to ``where``;
    None for any other error."""
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS with {where} failed: the certificate was not trusted: {error.verify_message}"
    if isinstance(error, ssl.SSLError):
        hint = ' (is tls = "starttls" meant?)' if server.tls == "tls" else ""
        return f"TLS with {where} failed: {error.reason or error}{hint}"
    if isinstance(error, socket.gaierror):
        return f"cannot reach {where}: the host name is not known ({error.strerror})"
    if isinstance(error, ConnectionRefusedError):
        return f"cannot reach {where}: connection refused"
    return None
