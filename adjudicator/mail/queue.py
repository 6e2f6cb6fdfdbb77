"""The outgoing mail of one game: a crash-safe queue, and its delivery.

Layout::

    GAMEDIR/mail/queue/000001-receipt-alice.eml    written, not yet sent
    GAMEDIR/mail/sending/…                         being handed to the SMTP server right now
    GAMEDIR/mail/sent/…                            accepted by the server (or written to outbox/)
    GAMEDIR/mail/failed/…                          refused by the server for good; kept
    GAMEDIR/outbox/…                               without [smtp]: the messages, for the GM to send

Names sort in the order the messages were put. A message moves queue/ -> sending/ (durably)
before its SMTP transaction and sending/ -> sent/ once the server accepted it; when the server
did not accept it, it moves back to queue/ and a later delivery tries again, or, when the server
refused it for good (5xx; or 4xx for longer than ``give_up_after`` since its first 4xx), to
failed/, where it stays. So a crash never loses a message, and never sends one twice: a file
found in sending/ when a delivery starts was cut short at an unknown point. It is "in doubt" and
never sent again by itself; the game master checks whether it arrived, then moves it to sent/
(it did) or back to queue/ (it did not).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout

from adjudicator.mail.config import MailSettings, ServerSettings, password
from adjudicator.mail.headerclasses import DEFAULT_POLICY
from adjudicator.mail.outgoing import POLICY
from adjudicator.mail.patience import at_most, too_slow
from adjudicator.mail.waiting import QUEUE, eml_files, queued_at
from adjudicator.present import mail as present_mail
from adjudicator.store import clock, failpoint
from adjudicator.store.gamedir import atomic_write, durable_point, fsync_dir, make_folder

if TYPE_CHECKING:  # smtplib and ssl are loaded by a delivery alone, not by every command
    import smtplib

SMTP_TIMEOUT = 60.0
"""Seconds to wait for the SMTP server at every step before giving up."""
LOCK_TIMEOUT = 30.0

ANSWER_LENGTH = 300
"""A server's answer is kept to this many characters in a report."""

_NAME = re.compile(r"^(\d{6,})-.*\.eml$")
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

Connect = Callable[[ServerSettings, str | None], "smtplib.SMTP"]
"""Opens a TLS-protected SMTP session, logged in when a password is given."""


class Outbox:
    """The outgoing mail folders of one game directory; nothing is created before it is used."""

    def __init__(self, gamedir: Path) -> None:
        self.gamedir = gamedir
        self.queue = gamedir / QUEUE
        self.sending = gamedir / "mail" / "sending"
        self.sent = gamedir / "mail" / "sent"
        self.failed = gamedir / "mail" / "failed"
        self.withdrawn = gamedir / "mail" / "withdrawn"
        """Reports a rollback took back before they went out (``adjudicator rollback``)."""
        self.outbox = gamedir / "outbox"

    def put(self, message: EmailMessage, label: str) -> Path:
        """Queue ``message`` as ``queue/<NNNNNN>-<label>.eml``, written atomically.

        NNNNNN is one more than any number in the queue, withdrawn/, sending/, sent/, failed/
        or outbox/, so names sort in the order messages were put and no number is given out
        twice; ``label`` is reduced to ``A-Za-z0-9._-``.
        """
        data = message.as_bytes(policy=POLICY)
        with self._lock():
            path = self.queue / f"{self._next_number():06d}-{_safe_label(label)}.eml"
            atomic_write(path, data)
        return path

    def pending(self) -> list[Path]:
        """The queued messages, in the order they were put."""
        return eml_files(self.queue)

    def in_doubt(self) -> list[Path]:
        """Messages whose sending was cut short: they may or may not have arrived."""
        return eml_files(self.sending)

    def _next_number(self) -> int:
        # Messages move queue -> sending -> sent or failed, or queue -> withdrawn (under the
        # same lock), scanned in that order: a number is never given out twice.
        folders = (self.queue, self.withdrawn, self.sending, self.sent, self.failed, self.outbox)
        numbers = [
            int(match.group(1))
            for folder in folders
            for path in eml_files(folder)
            if (match := _NAME.match(path.name))
        ]
        return max(numbers, default=0) + 1

    @contextmanager
    def _lock(self, name: str = ".queue.lock") -> Iterator[None]:
        """Hold ``mail/<name>``: ``.queue.lock`` while names are chosen or messages move,
        ``.send.lock`` for a whole delivery."""
        folder = self.gamedir / "mail"
        make_folder(folder)  # its name lasts with the step, as every folder a step makes
        with FileLock(str(folder / name), timeout=LOCK_TIMEOUT):
            yield

    def _move(self, path: Path, folder: Path) -> Path:
        """Move ``path`` into ``folder``, durably (both folders fsynced)."""
        with self._lock():
            return move_into(path, folder)


@dataclass
class SendReport:
    """What one delivery did; each list holds file names (``000001-receipt-alice.eml``)."""

    sent: list[str] = field(default_factory=list)
    """Accepted by the SMTP server."""
    written: list[str] = field(default_factory=list)
    """Written to ``GAMEDIR/outbox/`` (no ``[smtp]`` table)."""
    in_doubt: list[str] = field(default_factory=list)
    """Found in ``mail/sending/``: cut short earlier; not sent again."""
    failed: str | None = None
    """Why not everything could be sent for now (one line), or None; what was not sent stays
    queued for a later run (the mail commands exit 75)."""
    refused_for_good: list[tuple[str, str]] = field(default_factory=list)
    """Refused by the server for good: a 5xx answer to a recipient or to the message, or a 4xx
    one still given ``give_up_after`` after the message was queued. Each is (file name, the
    server's answer as one line of printable ASCII); the message is moved to ``mail/failed/``,
    kept, and never sent again by itself. Not a reason to run again: the game master is told
    (see :func:`failure_notice`)."""
    never_works: str | None = None
    """A setting that can never work as it is (STARTTLS not offered, the login refused, a
    certificate that does not verify, the sender refused), or None. One line that starts with
    the settings file, the table and the key. Delivery stopped before the message at hand was
    sent; it and the rest stay queued (the mail commands exit 3)."""
    stopped: str | None = None
    """Why delivery stopped on the server itself (it could not be reached, the TLS handshake or
    the login failed, the connection broke), or None; a refusal of one message is not this."""
    told: list[tuple[str, str]] = field(default_factory=list)
    """The refusals for good told to the game master now, each (recipients, the server's
    answer); one told before with the same answer is not (:mod:`adjudicator.mail.told`)."""


def smtp_connect(server: ServerSettings, secret: str | None) -> smtplib.SMTP:
    """An SMTP session over implicit TLS or STARTTLS, certificate and host name verified
    (against ``ca_file`` when given, else the system's trusted certificates), logged in
    as ``server.user`` with ``secret`` when given. Plain text only with ``tls = "none"``, which
    the settings allow only for this machine (checked again here against the address reached).

    A setting that can never work raises :class:`NeverWorks`."""
    import smtplib

    from adjudicator.mail.tls import not_local, tls_context

    client: smtplib.SMTP
    if server.tls == "tls":
        context = tls_context(server)
        client = smtplib.SMTP_SSL(server.host, server.port, timeout=SMTP_TIMEOUT, context=context)
    else:
        client = smtplib.SMTP(server.host, server.port, timeout=SMTP_TIMEOUT)
    _no_delay(client)
    try:
        if server.tls == "none" and (problem := not_local(_where(server), server, client.sock)):
            raise NeverWorks(problem)
        client.ehlo()
        if server.tls == "starttls":
            if not client.has_extn("starttls"):
                raise NeverWorks(
                    f"{server.setting('tls')}: {_where(server)} does not offer STARTTLS "
                    "(plain text is never used)"
                )
            client.starttls(context=tls_context(server))
            client.ehlo()
        if server.user is not None and secret is not None:
            _login(client, server, secret)
    except BaseException:
        client.close()
        raise
    return client


def _no_delay(client: smtplib.SMTP) -> None:
    """Send each write at once (TCP_NODELAY). A message is written as TLS records of 16 KiB
    at most; without it, the last part of a message of two records or more waits until the
    server acknowledges the first, which a server that answers only once the message has
    ended may put off (40 ms on Linux, up to 200 ms elsewhere): a wait for every report with
    its pictures. A socket that takes no such option is used as it is."""
    import socket

    if client.sock is not None:  # connected: smtplib made it in the constructor
        with suppress(OSError):
            client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _login(client: smtplib.SMTP, server: ServerSettings, secret: str) -> None:
    """``client.login``, which can send only ASCII; otherwise AUTH PLAIN in UTF-8 (RFC 4616)."""
    import smtplib

    user = server.user or ""
    offered = client.esmtp_features.get("auth", "").upper().split()
    if not client.has_extn("auth"):
        raise NeverWorks(
            f"{server.setting('user')}: {_where(server)} offers no login (AUTH) here; "
            "leave out user if it takes mail without one"
        )
    if (user + secret).isascii():
        try:
            client.login(user, secret)
        except smtplib.SMTPAuthenticationError as error:
            if error.smtp_code < 500:  # 454: cannot check the login now
                raise
            raise NeverWorks(f"{server.login_setting()}: {_reason(server, error)}") from None
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPResponseException):
            raise
        except smtplib.SMTPException as error:  # no AUTH mechanism smtplib knows
            raise NeverWorks(
                f"{server.login_setting()}: {_where(server)} offers no login method that can be "
                f"used ({_text(str(error))}; offered: {' '.join(offered) or 'none'})"
            ) from None
        return
    if "PLAIN" not in offered:
        raise NeverWorks(
            f"{server.login_setting()}: the user name or password is not ASCII, which needs "
            f"AUTH PLAIN, and {_where(server)} does not offer it"
        )
    blob = b"\0" + user.encode("utf-8") + b"\0" + secret.encode("utf-8")
    code, reply = client.docmd("AUTH", "PLAIN " + base64.b64encode(blob).decode("ascii"))
    if 400 <= code < 500:
        raise smtplib.SMTPAuthenticationError(code, reply)
    if code != 235:
        refusal = smtplib.SMTPAuthenticationError(code, reply)
        raise NeverWorks(f"{server.login_setting()}: {_reason(server, refusal)}")


def deliver(
    outbox: Outbox, settings: MailSettings, *, connect: Connect = smtp_connect
) -> SendReport:
    """Send every queued message, in order, over one SMTP connection; or, without ``[smtp]``,
    write each to ``GAMEDIR/outbox/`` (and move it to ``sent/``: that is its delivery).

    What it does when something goes wrong (it raises nothing for any of this):

    - The server cannot be reached, the TLS handshake fails, the server refuses for now (4xx,
      421) a login or the sender, the connection breaks or times out: delivery stops. The
      message at hand was not accepted and goes back to ``queue/``, the rest stay there;
      ``failed`` says why. A later run sends them.
    - A setting can never work (STARTTLS not offered, the login refused, a certificate that
      does not verify, the sender refused for good): delivery stops the same way, and
      ``never_works`` names the setting.
    - The server refuses one message for good (5xx, for a recipient, to DATA, or at the end of
      the message's data): it moves to ``mail/failed/`` and is listed in ``refused_for_good``
      with the server's answer; delivery goes on with the next.
    - The server refuses one message for now (4xx): it goes back to ``queue/``, ``failed``
      names it and the server's answer, and delivery goes on with the next, so one bad address
      does not hold up everyone's reports. Later runs try it again until ``give_up_after`` has
      passed since its ``Date`` (when it was queued; ``clock.now()``): then that refusal counts
      as one for good. A message with several recipients is sent only when the server takes
      all of them, never to some now and to all again later.
    - The connection breaks after the whole message was sent but before the server answered:
      the message may have arrived, so it stays in ``sending/``, listed in ``in_doubt``.
    - Another delivery for the same game is running: ``failed`` says so; nothing moves.

    Messages in ``sending/`` when delivery starts are listed in ``in_doubt`` and never sent
    again by it. A password that cannot be had raises ``ConfigError`` before anything moves;
    so does an ``ADJUDICATOR_NOW`` that cannot be read (``UsageProblem``).
    ``connect`` opens the SMTP session (tests may pass their own).
    """
    report = SendReport()
    try:
        with outbox._lock(".send.lock"):
            report.in_doubt = [path.name for path in outbox.in_doubt()]
            pending = outbox.pending()
            if not pending:
                return report
            if settings.smtp is None:
                _write_all(outbox, pending, report)
            else:
                _send_all(outbox, settings.smtp, pending, report, connect)
    except Timeout as error:
        report.failed = (
            f"the mail folders of this game are locked by another command "
            f"({Path(error.lock_file).name}); try again later"
        )
    return report


def _write_all(outbox: Outbox, pending: list[Path], report: SendReport) -> None:
    """Without SMTP: each message to ``outbox/`` under its own name, then to ``sent/``.

    A crash in between writes the same file again next time, which does no harm.
    """
    for path in pending:
        try:
            atomic_write(outbox.outbox / path.name, path.read_bytes())
        except OSError as error:
            report.failed = f"cannot write {outbox.outbox / path.name}: {error.strerror or error}"
            return
        outbox._move(path, outbox.sent)
        report.written.append(path.name)


class NeverWorks(Exception):
    """A setting can never work as it is; the message (one line) starts with the settings
    file, the table and the key."""


class _Refused(Exception):
    """The server refused this one message, for good or for now; the next may go through."""

    def __init__(self, answer: str, *, for_good: bool) -> None:
        super().__init__(answer)
        self.for_good = for_good


class _InDoubt(Exception):
    """The connection broke after the message was sent, before the server answered."""


def _send_all(
    outbox: Outbox,
    server: ServerSettings,
    pending: list[Path],
    report: SendReport,
    connect: Connect,
) -> None:
    import smtplib

    secret = password(server)
    now = clock.now()
    refused: list[str] = []
    where = _where(server)
    try:
        with at_most(_exchange_limit(), where):
            client = connect(server, secret)
    except Exception as error:
        _stopped(server, error, report)
        return
    try:
        for path in pending:
            data = path.read_bytes()
            sending = outbox._move(path, outbox.sending)
            try:
                with at_most(_exchange_limit(), where):
                    _transaction(client, server, data)
            except _InDoubt as error:
                report.in_doubt.append(sending.name)
                report.failed = f"{sending.name}: {error}"
                return
            except _Refused as error:
                answer = printable(str(error))
                age = None if error.for_good else now - _first_refused(outbox, sending, now)
                if age is None:
                    outbox._move(sending, outbox.failed)
                    report.refused_for_good.append((sending.name, answer))
                elif age >= server.give_up_after:
                    outbox._move(sending, outbox.failed)
                    limit = _span(server.give_up_after)
                    report.refused_for_good.append(
                        (
                            sending.name,
                            f"{answer} (still refused {_span(age)} after the server first "
                            f'refused it for now; give_up_after = "{limit}")',
                        )
                    )
                else:
                    outbox._move(sending, outbox.queue)
                    refused.append(f"{sending.name}: {answer} (for now: tried again)")
                with suppress(smtplib.SMTPException, OSError), at_most(SMTP_TIMEOUT, where):
                    client.rset()
                continue
            except Exception as error:
                outbox._move(sending, outbox.queue)
                _stopped(server, error, report)
                return
            outbox._move(sending, outbox.sent)
            report.sent.append(sending.name)
    finally:
        if refused:
            report.failed = "; ".join([*refused, *filter(None, [report.failed])])
        with suppress(smtplib.SMTPException, OSError), at_most(SMTP_TIMEOUT, where):
            client.quit()
        client.close()


def _first_refused(outbox: Outbox, sending: Path, now: datetime) -> datetime:
    """When a server first refused the message at ``sending`` for now (``now``, when it never
    had; its Date when that cannot be remembered): ``give_up_after`` counts from then, not
    from its queuing, so that mail that waited out an outage of the server is tried for as long
    as any. Kept in the user's data folder (:func:`adjudicator.mail.told.memory`), the
    game's messages no longer queued forgotten."""
    from adjudicator.mail import told

    game = str(outbox.gamedir.resolve())
    try:
        with told.memory("deferred") as state:
            waiting = {p.name for p in [*outbox.pending(), *outbox.in_doubt()]}
            for key in [k for k in state if k.startswith(f"{game}/")]:
                if key.rpartition("/")[2] not in waiting | {sending.name}:
                    del state[key]
            entry = state.setdefault(f"{game}/{sending.name}", {"since": now.isoformat()})
            try:
                since = datetime.fromisoformat(str(entry.get("since")))
            except ValueError:
                since = None
            if since is None or since.tzinfo is None:  # changed by hand: counted from now
                entry["since"], since = now.isoformat(), now
            return since
    except (OSError, ValueError, TimeoutError):  # the memory cannot be had: as before
        return queued_at(sending.read_bytes(), sending)


def _exchange_limit() -> float:
    """The most seconds a session's opening, or one message's transaction, may take in all."""
    return 4 * SMTP_TIMEOUT


def _stopped(server: ServerSettings, error: Exception, report: SendReport) -> None:
    """Delivery stopped on ``error``: ``never_works`` when a setting is to blame, else
    ``failed``; either is ``stopped`` too."""
    from adjudicator.mail.tls import certificate_problem

    if isinstance(error, NeverWorks):
        report.never_works = str(error)
    elif (problem := certificate_problem(_where(server), server, error)) is not None:
        report.never_works = problem
    else:
        report.failed = _reason(server, error)
    report.stopped = report.never_works or report.failed


def _transaction(client: smtplib.SMTP, server: ServerSettings, data: bytes) -> None:
    """One SMTP transaction (MAIL, RCPT for each recipient, DATA) for the message ``data``.

    DATA is done here rather than by ``smtplib.sendmail`` so that a connection lost after the
    message's last line was sent can be told from one lost before: only the first is in doubt.
    A 5xx answer to MAIL is a setting that never works (``[mail] from``; ``[smtp] user`` when
    the server wants a login and none is set); to a RCPT, to DATA or at the end of the data,
    a refusal of this message for good.
    """
    import smtplib

    sender, recipients = _envelope(data)
    if not recipients:
        raise _Refused("the message has no recipient (To)", for_good=True)
    for recipient in recipients:  # queued by a game made before addresses were held to ASCII
        if not (recipient.isascii() and recipient.isprintable()) or " " in recipient:
            shown = _text(ascii(recipient))
            raise _Refused(f"{shown} is not an address a mail server takes", for_good=True)
    code, reply = _unless_closing(client.mail(sender))
    if not 200 <= code < 300:
        error = smtplib.SMTPSenderRefused(code, reply, sender)
        if code < 500:
            raise error
        if code == 530 and server.user is None:
            raise NeverWorks(
                f"{server.setting('user')}: {_where(server)} wants a login: {code} {_text(reply)}"
            )
        where = f"{server.source}: " if server.source is not None else ""
        raise NeverWorks(f"{where}[mail] from: {_reason(server, error)}")
    refusals = []
    for_good = False
    for recipient in recipients:
        code, reply = _unless_closing(client.rcpt(recipient))
        if not 200 <= code < 300:
            refusals.append(f"{recipient} refused: {code} {_text(reply)}")
            for_good = for_good or code >= 500
    if refusals:
        raise _Refused("; ".join(refusals), for_good=for_good)
    code, reply = _unless_closing(client.docmd("data"))
    if code != 354:
        raise _Refused(
            f"the server refused the message: {code} {_text(reply)}", for_good=code >= 500
        )
    failpoint.reached("smtp data")
    client.send(_dot_stuffed(data))
    try:
        code, reply = client.getreply()
        failpoint.reached("smtp answered")
    except (smtplib.SMTPServerDisconnected, OSError) as error:
        raise _InDoubt(
            "the connection broke after the message was sent, before the server answered: "
            f"{_text(str(error))}; it may have arrived"
        ) from None
    if not 200 <= code < 300:
        raise _Refused(
            f"the server refused the message: {code} {_text(reply)}", for_good=code >= 500
        )


def _span(span: timedelta) -> str:
    """A duration as settings write it: ``3d``, ``36h`` or ``90m`` (hours rounded down from
    two hours on)."""
    minutes = max(int(span.total_seconds()) // 60, 0)
    if minutes and minutes % (24 * 60) == 0:
        return f"{minutes // (24 * 60)}d"
    if (minutes and minutes % 60 == 0) or minutes >= 120:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def _unless_closing(answer: tuple[int, bytes]) -> tuple[int, bytes]:
    """The server's answer, unless it is 421 (closing the connection): that stops delivery."""
    import smtplib

    code, reply = answer
    if code == 421:
        raise smtplib.SMTPResponseException(code, reply)
    return answer


def _envelope(data: bytes) -> tuple[str, list[str]]:
    """The envelope sender (the From address) and recipients (To and Cc) of ``data``."""
    headers = BytesParser(policy=DEFAULT_POLICY).parsebytes(data, headersonly=True)
    senders = [a.addr_spec for h in headers.get_all("From", []) for a in h.addresses]
    recipients: list[str] = []
    for name in ("To", "Cc"):
        for header in headers.get_all(name, []):
            for address in header.addresses:
                if address.addr_spec and address.addr_spec not in recipients:
                    recipients.append(address.addr_spec)
    return (senders[0] if senders else ""), recipients


def recipients_of(data: bytes) -> list[str]:
    """The recipients (To and Cc) of the message ``data``."""
    return _envelope(data)[1]


def _dot_stuffed(data: bytes) -> bytes:
    """``data`` as DATA carries it: CRLF line ends, leading dots doubled, ending CRLF.CRLF."""
    text = re.sub(rb"\r\n|\r|\n", b"\r\n", data)
    text = re.sub(rb"(?m)^\.", b"..", text)
    if not text.endswith(b"\r\n"):
        text += b"\r\n"
    return text + b".\r\n"


def _reason(server: ServerSettings, error: BaseException) -> str:
    """One line saying why the delivery stopped."""
    import smtplib

    from adjudicator.mail.tls import connection_problem

    where = _where(server)
    if isinstance(error, NeverWorks):
        return str(error)
    if (slow := too_slow(error)) is not None:
        return str(slow)
    problem = connection_problem(where, server, error)
    if problem is not None:
        return problem
    said = (
        f"{error.smtp_code} {_text(error.smtp_error)}"
        if isinstance(error, smtplib.SMTPResponseException)
        else ""
    )
    if isinstance(error, smtplib.SMTPAuthenticationError):
        return f"{where} refused the login as {server.user}: {said}"
    if isinstance(error, smtplib.SMTPSenderRefused):
        return f"{where} refused the sender {error.sender}: {said}"
    if isinstance(error, smtplib.SMTPServerDisconnected) and isinstance(
        error.__context__, TimeoutError
    ):
        return f"{where} gave no answer within {SMTP_TIMEOUT:g} seconds"
    if isinstance(error, smtplib.SMTPServerDisconnected):
        return f"{where} closed the connection: {_text(str(error))}"
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{where} refused: {said}"
    if isinstance(error, smtplib.SMTPException):
        return f"SMTP with {where} failed: {_text(str(error))}"
    if isinstance(error, TimeoutError):
        return f"cannot reach {where}: no answer within {SMTP_TIMEOUT:g} seconds"
    if isinstance(error, OSError):
        return f"cannot reach {where}: {error.strerror or _text(str(error))}"
    return f"SMTP with {where} failed: {type(error).__name__}: {_text(str(error))}"


def _where(server: ServerSettings) -> str:
    return f"the SMTP server {server.host}:{server.port}"


def _text(reply: bytes | str) -> str:
    text = reply.decode("utf-8", errors="replace") if isinstance(reply, bytes) else reply
    return " ".join(text.split())


def printable(text: str, limit: int = ANSWER_LENGTH) -> str:
    """``text`` as one line of printable ASCII: white space runs made one space, anything else
    escaped (``\\xe9``, ``\\u2028``), at most ``limit`` characters (``...`` when cut)."""
    line = " ".join(text.split()).encode("ascii", "backslashreplace").decode("ascii")
    line = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m[0]):02x}", line)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def failure_notice(name: str, data: bytes, answer: str, lang: str = "en") -> tuple[str, str]:
    """The subject and body of a notice to the game master that the server refused the queued
    message ``name`` (bytes ``data``, now in ``mail/failed/``) for good, saying ``answer``
    (an entry of ``SendReport.refused_for_good``); the caller queues it (``notice_mail``,
    perhaps with the message attached). Every value is shown as printable ASCII on one line.

    A notice about a notice to the game master would go where the first could not: the
    caller sends none for those.
    """
    headers = BytesParser(policy=DEFAULT_POLICY).parsebytes(data, headersonly=True)
    recipients = [
        address.addr_spec
        for key in ("To", "Cc")
        for header in headers.get_all(key, [])
        for address in header.addresses
    ]
    words = present_mail.refused(
        name=printable(name, 120),
        recipients=printable(", ".join(recipients), 200),
        subject_line=printable(str(headers.get("Subject", "")), 80),
        answer=printable(answer),
        lang=lang,
    )
    return words.subject, words.body


def _safe_label(label: str) -> str:
    return _LABEL_UNSAFE.sub("-", label).strip(".-")[:80] or "message"


def move_into(path: Path, folder: Path) -> Path:
    """``os.replace`` ``path`` into ``folder``; both folders are fsynced, so the move lasts.
    What the step wrote before (a copy in ``outbox/``, say) lasts first: a move on the way out
    is kept by a step's recovery, and so must never last without what it stands for."""
    make_folder(folder)
    durable_point()
    failpoint.reached("move")
    target = folder / path.name
    os.replace(path, target)
    fsync_dir(folder)
    fsync_dir(path.parent)
    return target
