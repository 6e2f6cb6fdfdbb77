"""What SMTP and IMAP share: the TLS context, and why a connection could not be made."""

from __future__ import annotations

import socket
import ssl

from adjudicator.mail.config import ServerSettings


def tls_context(server: ServerSettings) -> ssl.SSLContext:
    """Certificates and host names verified against ``ca_file`` when given, else against the
    system's trusted certificates."""
    return ssl.create_default_context(
        cafile=str(server.ca_file) if server.ca_file is not None else None
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
