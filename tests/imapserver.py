"""A real IMAP server for tests: Dovecot on 127.0.0.1, TLS from a throwaway trustme CA.

The fixtures ``imap_server`` and ``dovecot`` are registered for every test module by
tests/conftest.py (a test module names them as arguments, and does not import them: a module
that did would start a Dovecot of its own). ``dovecot``
starts, once per test process, ``dovecot -F -c CONFIG`` with a config written to a temporary folder:
one user (``USER``/``PASSWORD``), Maildir storage, its run, state and log files all in that
folder, listening on loopback only, on two free ports: implicit TLS and STARTTLS (logins only
over TLS), with a certificate from its own authority; ``imap_server`` empties its mail
before each test. Nothing system-wide is read or written. Dovecot 2.3 and 2.4 (whose settings
differ) are both supported.

Run as root (as in CI), Dovecot's own processes use the unprivileged users its package made
(``dovenull``, ``dovecot``; else ``nobody``), and the mail user is ``nobody``: Dovecot never
lets uid 0 touch mail. Its mail folder is made in the temporary folder, owned by ``nobody``, and
the IMAP process is chrooted into it (the home ``DIR/./USER`` with ``valid_chroot_dirs``) before it
drops root, since pytest's temporary folders are closed to other users. Run as another user,
every process runs as that user, without chroots.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped]

from tests import smtpserver
from tests.smtpserver import HOST, Authority
from tests.tools import require_tool

USER = "adjudicator"
PASSWORD = "s3cret-wörd"  # no spaces: Dovecot's static passdb takes it as one word
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
MAIL_USER = "nobody"
"""Who owns the mail when the tests run as root."""

authority = smtpserver.authority


@dataclass
class ImapServer:
    """A running Dovecot and what a client needs to reach it."""

    host: str
    ports: dict[str, int]
    """``tls`` (implicit TLS) and ``starttls``."""
    ca_file: Path
    folder: Path
    """Where its config, log and mail are."""

    def settings(
        self,
        tls: Literal["tls", "starttls"] = "tls",
        ca_file: Path | None = None,
        password_env: str = "TEST_IMAP_PASSWORD",
        port: int | None = None,
    ) -> str:
        """An ``[imap]`` table for this server (the password is read from ``password_env``)."""
        return (
            f'[imap]\nhost = "{self.host}"\nport = {port or self.ports[tls]}\n'
            f'tls = "{tls}"\nuser = "{USER}"\nca_file = "{ca_file or self.ca_file}"\n'
            f'password_env = "{password_env}"\n'
        )

    @contextmanager
    def client(self) -> Iterator[Any]:
        """An IMAPClient logged in as ``USER`` over implicit TLS; logged out on leaving."""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        client = IMAPClient(self.host, self.ports["tls"], ssl_context=context, timeout=10)
        try:
            client.plain_login(USER, PASSWORD)
            yield client
        finally:
            client.logout()

    def name(self, folder: str) -> str:
        """The server's name for ``folder`` (``/`` between levels), as the source makes it."""
        with self.client() as client:
            separator = client.list_folders("", "")[0][1]
        return folder.replace("/", separator.decode()) if separator else folder

    def append(
        self, *messages: bytes, folder: str = "INBOX", flags: tuple[bytes, ...] = ()
    ) -> None:
        """Put ``messages`` into ``folder``, in this order (so in UID order)."""
        with self.client() as client:
            for message in messages:
                client.append(folder, message, flags=flags)

    def messages(self, folder: str = "INBOX") -> list[bytes]:
        """The messages in ``folder`` (server name), oldest UID first; [] when it is missing."""
        with self.client() as client:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            uids = sorted(client.search("ALL"))
            fetched = client.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
            return [bytes(fetched[uid][b"BODY[]"]) for uid in uids]

    def counts(self) -> dict[str, int]:
        """How many messages each folder holds (folders that can hold messages only)."""
        with self.client() as client:
            return {
                name: client.folder_status(name, [b"MESSAGES"])[b"MESSAGES"]
                for flags, _, name in client.list_folders()
                if b"\\Noselect" not in flags
            }

    def empty(self) -> None:
        """Every message, folder and subscription a test left goes: an empty INBOX, as a new
        server has (but for the keywords INBOX was given, and its next UID)."""
        with self.client() as client:
            for _, _, name in client.list_sub_folders():  # kept when their folders go
                client.unsubscribe_folder(name)
            names = [name for _, _, name in client.list_folders()]
            for name in sorted(names, key=len, reverse=True):  # inner folders first
                if name.upper() != "INBOX" and client.folder_exists(name):
                    client.delete_folder(name)  # a parent with no box of its own went with them
            client.select_folder("INBOX")
            uids = client.search("ALL")
            if uids:
                client.delete_messages(uids)
                client.expunge()
        assert self.counts() == {"INBOX": 0}

    def log(self) -> str:
        """What Dovecot wrote: its log file and its own output."""
        parts = [self.folder / "dovecot.log", self.folder / "dovecot.out"]
        return "".join(
            f"--- {p.name}\n{p.read_text(errors='replace')}" for p in parts if p.exists()
        )


def dovecot_version(binary: str) -> tuple[int, int]:
    """(major, minor) of ``dovecot --version``, like ``2.3.19.1 (9b53102964)``."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    found = re.match(r"(\d+)\.(\d+)", out.stdout.strip())
    assert found, f"dovecot --version said {out.stdout!r}"
    return int(found[1]), int(found[2])


def _dovecot() -> str:
    """The dovecot program: on PATH or in the sbin folders (not on a user's PATH on Debian)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    return shutil.which("dovecot", path=path) or require_tool(
        "dovecot", "the IMAP tests run a real Dovecot; Debian's package: dovecot-imapd"
    )


def free_ports(count: int) -> list[int]:
    """``count`` different ports on HOST that nothing listens on (at this moment)."""
    with ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind((HOST, 0))
        return [int(probe.getsockname()[1]) for probe in probes]


def _existing_user(*names: str) -> str:
    """The first of ``names`` that is a user on this system."""
    for name in names:
        with suppress(KeyError):
            return pwd.getpwnam(name).pw_name
    raise AssertionError(f"none of the users {', '.join(names)} exists")


def _existing_group(*names: str) -> str:
    """The first of ``names`` that is a group on this system."""
    for name in names:
        with suppress(KeyError):
            return grp.getgrnam(name).gr_name
    raise AssertionError(f"none of the groups {', '.join(names)} exists")


@dataclass(frozen=True)
class _Users:
    login: str
    internal: str
    internal_group: str
    mail_uid: int
    mail_gid: int
    chroot: bool


def _users() -> _Users:
    """Who Dovecot's processes and the mail run as: see the module's docstring."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(os.getegid()).gr_name
        return _Users(me.pw_name, me.pw_name, group, me.pw_uid, me.pw_gid, chroot=False)
    mail = pwd.getpwnam(MAIL_USER)
    return _Users(
        login=_existing_user("dovenull", "nobody"),
        internal=_existing_user("dovecot", "nobody"),
        internal_group=_existing_group("dovecot", "nogroup"),
        mail_uid=mail.pw_uid,
        mail_gid=mail.pw_gid,
        chroot=True,
    )


def _mail_home(folder: Path, users: _Users) -> str:
    """The userdb home: ``MAIL/./%u`` (chrooted into MAIL) as root, else ``MAIL/%u``."""
    mail = folder / "mail"
    home = mail / USER
    home.mkdir(parents=True)
    if users.chroot:
        os.chown(home, users.mail_uid, users.mail_gid)
        home.chmod(0o700)
        return f"{mail}/./%u"
    return f"{mail}/%u"


def _common(folder: Path, ports: dict[str, int], users: _Users, anvil: str = "") -> str:
    """Settings written the same in 2.3 and 2.4; ``anvil``: more of ``service anvil``."""
    rootless = "" if users.chroot else "  chroot =\n"  # for anvil and the login process
    anvil = f"service anvil {{\n{rootless}{anvil}}}\n" if rootless or anvil else ""
    return f"""\
base_dir = {folder}/run
state_dir = {folder}/state
instance_name = adjudicator-test-{ports["tls"]}
log_path = {folder}/dovecot.log
listen = {HOST}
ssl = required
auth_mechanisms = plain login
default_login_user = {users.login}
default_internal_user = {users.internal}
default_internal_group = {users.internal_group}
first_valid_uid = {min(users.mail_uid, 500)}
valid_chroot_dirs = {folder}/mail
{anvil}service imap-login {{
{rootless}  inet_listener imap {{
    port = {ports["starttls"]}
  }}
  inet_listener imaps {{
    port = {ports["tls"]}
    ssl = yes
  }}
}}
"""


def config_23(folder: Path, ports: dict[str, int], users: _Users, home: str) -> str:
    """A Dovecot 2.3 config."""
    return f"""\
protocols = imap
ssl_cert = <{folder}/cert.pem
ssl_key = <{folder}/key.pem
auth_failure_delay = 0
passdb {{
  driver = static
  args = password={PASSWORD}
  username_filter = {USER}
}}
userdb {{
  driver = static
  args = uid={users.mail_uid} gid={users.mail_gid} home={home}
}}
mail_location = maildir:~/Maildir
{_common(folder, ports, users, _NO_PENALTY)}"""


_NO_PENALTY = "  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n"
"""No penalty for a refused login (2.3's way): a test's wrong password would wait for it
(4.6 s here, the first time)."""


def config_24(folder: Path, ports: dict[str, int], users: _Users, home: str) -> str:
    """A Dovecot 2.4 config (``dovecot_config_version`` must come first)."""
    home = home.replace("%u", "%{user}")
    return f"""\
dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
protocols {{
  imap = yes
}}
ssl_server_cert_file = {folder}/cert.pem
ssl_server_key_file = {folder}/key.pem
auth_failure_delay = 0
passdb static {{
  password = {PASSWORD}
  username_filter = {USER}
}}
userdb static {{
  fields {{
    uid = {users.mail_uid}
    gid = {users.mail_gid}
    home = {home}
  }}
}}
mail_driver = maildir
mail_path = ~/Maildir
{_common(folder, ports, users)}"""


def _write_certificate(folder: Path, authority: Authority) -> None:
    """The server's certificate (for 127.0.0.1 and localhost) and key, in ``folder``."""
    cert = authority.ca.issue_cert(HOST, "localhost")
    (folder / "cert.pem").write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
    cert.private_key_pem.write_to_path(str(folder / "key.pem"))
    (folder / "key.pem").chmod(0o600)


def _wait_until_listening(process: subprocess.Popen[bytes], ports: list[int]) -> bool:
    """True once every port takes connections; False when Dovecot ended or time ran out."""
    deadline = time.monotonic() + START_TIMEOUT
    waiting = list(ports)
    while waiting and time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            socket.create_connection((HOST, waiting[0]), timeout=1).close()
            waiting.pop(0)
        except OSError:
            time.sleep(0.05)
    return not waiting


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running_dovecot(folder: Path, authority: Authority) -> Iterator[ImapServer]:
    """Dovecot serving ``USER``'s mail from ``folder``; stopped on leaving. Fails the test,
    showing Dovecot's log, when it does not start."""
    binary = _dovecot()
    version = dovecot_version(binary)
    users = _users()
    for sub in ("run", "state"):
        (folder / sub).mkdir(parents=True)
    _write_certificate(folder, authority)
    home = _mail_home(folder, users)
    make = config_24 if version >= (2, 4) else config_23
    tls, starttls = free_ports(2)
    ports = {"tls": tls, "starttls": starttls}
    config = folder / "dovecot.conf"
    config.write_text(make(folder, ports, users, home))
    server = ImapServer(HOST, ports, authority.ca_file, folder)
    with (folder / "dovecot.out").open("wb") as out:
        process = subprocess.Popen(
            [binary, "-F", "-c", str(config)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        if not _wait_until_listening(process, list(ports.values())):
            shown = ".".join(map(str, version))
            pytest.fail(f"Dovecot {shown} did not start:\n{server.log()}", pytrace=False)
        yield server
        if process.poll() is not None:
            pytest.fail(f"Dovecot ended during the test:\n{server.log()}", pytrace=False)
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def dovecot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ImapServer]:
    """One Dovecot for the whole run of a test process, with its own authority (started once,
    not once per test or module: it takes about a second to stop)."""
    authority = smtpserver.make_authority(tmp_path_factory.mktemp("imap-ca"))
    with running_dovecot(tmp_path_factory.mktemp("dovecot"), authority) as server:
        yield server


@pytest.fixture
def imap_server(dovecot: ImapServer) -> Iterator[ImapServer]:
    """The run's Dovecot with an empty INBOX for ``USER`` and no other folder, over implicit
    TLS and STARTTLS."""
    dovecot.empty()
    yield dovecot
