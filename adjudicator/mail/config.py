"""Mail settings: one TOML file outside every game directory.

The file is ``--config FILE``, else ``$ADJUDICATOR_CONFIG``, else ``config.toml`` in the user's
config folder; no file counts as an empty one (no ``[smtp]`` table: mail goes to
``GAMEDIR/outbox/``)::

    [mail]
    from = "Adjudicator <adjudicator@example.org>"
    gm = "gm@example.org"
    stuck_after = "1h"              # mail queued this long, or a server failing this long,
                                    # is told to the game master (once)

    [smtp]
    host = "mail.example.org"
    port = 465                      # default: 465 with tls, 587 with starttls
    tls = "tls"                     # "tls" (implicit TLS) or "starttls"; "none" only for a
                                    # relay on this machine (localhost, 127.x.y.z, ::1)
    user = "adjudicator"
    password_env = "ADJUDICATOR_SMTP_PASSWORD"   # or: password_command = "pass show smtp"
    ca_file = "ca.pem"              # optional: trust this PEM bundle instead of the system's
    give_up_after = "3d"            # [smtp] only: a message refused for now (4xx) this long
                                    # after its first such refusal counts as refused for good

    [imap]                          # the same keys, plus folder, done_folder, setaside_folder

Passwords are never stored: they come from an environment variable or a command's output, read
when needed and kept nowhere.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import Any, Literal

import platformdirs

from adjudicator.rules.schedule import ScheduleError, duration
from adjudicator.store.readfile import FileRefused, read_regular_or_empty_device

ENV_VAR = "ADJUDICATOR_CONFIG"
DEFAULT_SENDER = "adjudicator@localhost"
"""The From of every message sent when the settings have no ``[mail] from``."""
MAX_CONFIG_BYTES = 64 * 1024
PASSWORD_COMMAND_TIMEOUT = 60.0

DEFAULT_PORTS: dict[str, dict[str, int]] = {
    "smtp": {"tls": 465, "starttls": 587, "none": 25},
    "imap": {"tls": 993, "starttls": 143, "none": 143},
}
GIVE_UP_AFTER = "3d"
"""``[smtp] give_up_after`` when not set."""
_GIVE_UP_AFTER = duration(GIVE_UP_AFTER)
STUCK_AFTER = "1h"
"""``[mail] stuck_after`` when not set."""
_STUCK_AFTER = duration(STUCK_AFTER)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""Hosts named in messages as the ones ``tls = "none"`` allows (any 127.x.y.z is allowed too)."""

Tls = Literal["tls", "starttls", "none"]

_SERVER_KEYS = {"host", "port", "user", "tls", "ca_file", "password_env", "password_command"}
_IMAP_FOLDERS = {"folder", "done_folder", "setaside_folder"}
_KEYS: dict[str, set[str]] = {
    "mail": {"from", "gm", "gm_copy", "stuck_after"},
    "smtp": _SERVER_KEYS | {"give_up_after"},
    "imap": _SERVER_KEYS | _IMAP_FOLDERS,
}


class ConfigError(Exception):
    """The settings cannot be used; the message names the file, the key and the reason.

    The mail commands exit 3 for it: running again cannot help until the settings change.
    """


@dataclass(frozen=True)
class ServerSettings:
    """How to reach one mail server: ``[smtp]`` or ``[imap]`` (the folders are IMAP's only).

    ``table`` and ``source`` only say where the settings came from, for error messages.
    """

    host: str
    port: int
    user: str | None
    tls: Tls
    ca_file: Path | None
    password_env: str | None
    password_command: str | None
    give_up_after: timedelta = _GIVE_UP_AFTER
    """How long after its first refusal for now (4xx) a message is tried again;
    after that, such a refusal counts as one for good. ``[smtp]`` only."""
    folder: str = "INBOX"
    done_folder: str = "adjudicator/done"
    setaside_folder: str = "adjudicator/set-aside"
    table: Literal["smtp", "imap"] = field(default="smtp", compare=False)
    source: Path | None = field(default=None, compare=False)

    def setting(self, *keys: str) -> str:
        """Where a setting is, for a message: ``FILE: [smtp] tls = "starttls"``; each key
        with its value (``(not set)`` when it has none)."""
        where = f"{self.source}: " if self.source is not None else ""
        shown = []
        for key in keys:
            value = getattr(self, key)
            shown.append(f"{key} (not set)" if value is None else f'{key} = "{value}"')
        return f"{where}[{self.table}] {', '.join(shown)}"

    def login_setting(self) -> str:
        """``FILE: [table] user = "…", password_env = "…"`` (or password_command)."""
        secret = "password_env" if self.password_env is not None else "password_command"
        return self.setting("user", secret)


def is_local(host: str) -> bool:
    """Whether ``host`` is this machine: ``localhost``, any 127.x.y.z, or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


@dataclass(frozen=True)
class MailSettings:
    """The mail settings as read from the settings file: its ``[mail]`` table and the servers
    of its ``[smtp]`` and ``[imap]`` tables (None: not set)."""

    sender: str | None
    """``[mail] from``: the From of every message sent."""
    gm: str | None
    """``[mail] gm``: the game master's address, told of messages set aside."""
    smtp: ServerSettings | None
    imap: ServerSettings | None
    source: Path | None
    """The file read; None when there was none."""
    gm_copy: bool = False
    """``[mail] gm_copy``: the game master's report of each turn is mailed to ``gm`` with the
    players' reports."""
    stuck_after: timedelta = _STUCK_AFTER
    """``[mail] stuck_after``: mail queued this long, or a server failing this long, is told
    to the game master (:mod:`adjudicator.mail.told`)."""


def config_path(given: Path | None) -> Path:
    """``given``, else ``$ADJUDICATOR_CONFIG``, else ``config.toml`` in the user's config folder."""
    if given is not None:
        return given
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        return Path(from_env)
    return Path(platformdirs.user_config_dir("adjudicator")) / "config.toml"


def load_config(given: Path | None) -> MailSettings:
    """Read the settings; a file that does not exist counts as an empty one, and so does a
    character device that reads empty (``--config /dev/null``)."""
    path = config_path(given)
    try:
        raw = read_regular_or_empty_device(path, MAX_CONFIG_BYTES)
    except FileRefused as error:
        if error.missing:
            return MailSettings(sender=None, gm=None, smtp=None, imap=None, source=None)
        if os.path.isdir(path):
            raise ConfigError(f"{path}: is a folder, not a settings file") from None
        from adjudicator.present.words import say

        raise ConfigError(f"{path}: cannot be read: {say(error.why)}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (TOML files are UTF-8)") from None
    import tomllib  # only a command that finds a settings file reads TOML

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    return _Reader(path).settings(data)


def password(server: ServerSettings) -> str | None:
    """The password for ``server``, from its environment variable or command; None without user.

    A command is split like a shell would (``shlex``) but run without one; the first line of
    its standard output is the password.
    """
    where = f"{server.source}: " if server.source is not None else ""
    if server.user is None:
        return None
    if server.password_env is not None:
        value = os.environ.get(server.password_env)
        if not value:
            raise ConfigError(
                f"{where}[{server.table}] password_env: the environment variable "
                f"{server.password_env} is not set or empty"
            )
        return value
    if server.password_command is None:
        raise ConfigError(
            f"{where}[{server.table}]: user is set, but neither password_env nor password_command"
        )
    return _run_password_command(server.password_command, f"{where}[{server.table}]")


def _run_password_command(command: str, where: str) -> str:
    import shlex
    import subprocess

    prefix = f"{where} password_command"
    try:
        args = shlex.split(command)
    except ValueError as error:
        raise ConfigError(f"{prefix}: cannot be split into words: {error}") from None
    if not args:
        raise ConfigError(f"{prefix}: is empty")
    try:
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PASSWORD_COMMAND_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise ConfigError(f"{prefix}: no such program: {args[0]}") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"{prefix}: gave no answer within {PASSWORD_COMMAND_TIMEOUT:g} seconds"
        ) from None
    except OSError as error:
        raise ConfigError(f"{prefix}: cannot run {args[0]}: {error.strerror or error}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        detail = f": {said[0][:200]}" if said else ""
        raise ConfigError(f"{prefix}: {args[0]} failed with exit status {done.returncode}{detail}")
    try:
        lines = done.stdout.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise ConfigError(f"{prefix}: the output is not UTF-8 text") from None
    if not lines or not lines[0]:
        raise ConfigError(f"{prefix}: printed no password (the first line of its output is empty)")
    return lines[0]


class _Reader:
    """Checks the parsed TOML table by table; every error names the file and the key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, reason: str) -> ConfigError:
        return ConfigError(f"{self.path}: {where}: {reason}")

    def settings(self, data: dict[str, Any]) -> MailSettings:
        for name in data:
            if name not in _KEYS:
                raise self.fail(f"[{name}]", "unknown table (known: [mail], [smtp] and [imap])")
        mail = self.table(data, "mail")
        sender = self.address(mail, "mail", "from")
        gm = self.address(mail, "mail", "gm")
        gm_copy = mail.get("gm_copy", False)
        if not isinstance(gm_copy, bool):
            raise self.fail("[mail] gm_copy", "must be true or false")
        if gm_copy and gm is None:
            raise self.fail("[mail] gm_copy", "the game master's copy needs [mail] gm")
        smtp = self.server(data, "smtp")
        imap = self.server(data, "imap")
        return MailSettings(
            sender=sender,
            gm=gm,
            smtp=smtp,
            imap=imap,
            source=self.path,
            gm_copy=gm_copy,
            stuck_after=self.span(mail, "mail", "stuck_after", STUCK_AFTER),
        )

    def table(self, data: dict[str, Any], name: str) -> dict[str, Any]:
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise self.fail(name, f"must be a table ([{name}]), not a {_kind(table)}")
        for key in table:
            if key not in _KEYS[name]:
                if key == "password":
                    raise self.fail(
                        f"[{name}] password",
                        "passwords are never stored in a file: "
                        "use password_env or password_command",
                    )
                known = ", ".join(sorted(_KEYS[name]))
                raise self.fail(f"[{name}] {key}", f"unknown key (known: {known})")
        return table

    def string(self, table: dict[str, Any], name: str, key: str) -> str | None:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, str):
            raise self.fail(f"[{name}] {key}", f"must be a string, not a {_kind(value)}")
        if not value.strip():
            raise self.fail(f"[{name}] {key}", "must not be empty")
        if any(c in value for c in "\r\n\0"):
            raise self.fail(f"[{name}] {key}", "must be one line")
        return value

    def address(self, table: dict[str, Any], name: str, key: str) -> str | None:
        value = self.string(table, name, key)
        if value is None:
            return None
        _, addr = parseaddr(value)
        local, at, domain = addr.rpartition("@")
        if not at or not local or not domain or " " in addr:
            raise self.fail(
                f"[{name}] {key}",
                f"{value!r} is not an email address (like a@example.org or Name <a@example.org>)",
            )
        return value

    def server(self, data: dict[str, Any], name: Literal["smtp", "imap"]) -> ServerSettings | None:
        if name not in data:
            return None
        table = self.table(data, name)
        host = self.string(table, name, "host")
        if host is None:
            raise self.fail(f"[{name}] host", "missing: the server's host name is required")
        tls = self.tls(table, name)
        if tls == "none" and not is_local(host):
            raise self.fail(
                f'[{name}] tls = "none"',
                f"{host} is not this machine: no TLS is only for a server on this machine "
                f"({', '.join(LOCAL_HOSTS[:-1])} or {LOCAL_HOSTS[-1]}); mail never goes in "
                'plain text over a network (use "tls" or "starttls")',
            )
        port = self.port(table, name, tls)
        user = self.string(table, name, "user")
        password_env = self.string(table, name, "password_env")
        password_command = self.string(table, name, "password_command")
        if user is not None:
            if password_env is not None and password_command is not None:
                raise self.fail(f"[{name}]", "give password_env or password_command, not both")
            if password_env is None and password_command is None:
                raise self.fail(
                    f"[{name}]",
                    "user is set: give password_env (an environment variable holding the "
                    "password) or password_command (a command printing it)",
                )
        elif password_env is not None or password_command is not None:
            key = "password_env" if password_env is not None else "password_command"
            raise self.fail(f"[{name}] {key}", "a password needs a user: set user too")
        folders = {
            key: value
            for key in sorted(_IMAP_FOLDERS)
            if (value := self.string(table, name, key)) is not None
        }
        return ServerSettings(
            host=host,
            port=port,
            user=user,
            tls=tls,
            ca_file=self.ca_file(table, name),
            password_env=password_env,
            password_command=password_command,
            give_up_after=self.span(table, name, "give_up_after", GIVE_UP_AFTER),
            table=name,
            source=self.path,
            **folders,
        )

    def tls(self, table: dict[str, Any], name: str) -> Tls:
        if "tls" not in table:
            return "tls"
        value = table["tls"]
        if value == "tls":
            return "tls"
        if value == "starttls":
            return "starttls"
        if value == "none":
            return "none"
        raise self.fail(
            f"[{name}] tls",
            f'must be "tls" or "starttls", not {_shown(value)} ("none" only for a server on '
            "this machine): mail never goes in plain text over a network",
        )

    def span(self, table: dict[str, Any], name: str, key: str, default: str) -> timedelta:
        """A duration setting (``3d``, ``1h``), longer than nothing."""
        value = self.string(table, name, key)
        try:
            span = duration(default if value is None else value)
        except ScheduleError as error:
            raise self.fail(f"[{name}] {key}", str(error)) from None
        if span <= timedelta(0):
            raise self.fail(f"[{name}] {key}", "must be longer than 0m")
        return span

    def port(self, table: dict[str, Any], name: str, tls: str) -> int:
        if "port" not in table:
            return DEFAULT_PORTS[name][tls]
        value = table["port"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"[{name}] port", f"must be a whole number, not a {_kind(value)}")
        if not 1 <= value <= 65535:
            raise self.fail(f"[{name}] port", f"must be between 1 and 65535, not {value}")
        return value

    def ca_file(self, table: dict[str, Any], name: str) -> Path | None:
        value = self.string(table, name, "ca_file")
        if value is None:
            return None
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = self.path.parent / path
        if not path.is_file():
            raise self.fail(f"[{name}] ca_file", f"no such file: {path}")
        return path


def _kind(value: object) -> str:
    names = {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "list",
        dict: "table",
    }
    return names.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return f"a {_kind(value)}"
