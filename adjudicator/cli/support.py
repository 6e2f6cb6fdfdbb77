"""What every command module shares: failures with their exit codes, printing, JSON output, and
reading a private key. The command table (:mod:`adjudicator.cli`) imports it as ``--help`` and
``--version`` start, so it imports no more than click: the types of the commands' path
arguments are in :mod:`adjudicator.cli.arguments`."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from pathlib import Path

EXIT_REFUSED = 3
EXIT_NOT_NOW = 4
EXIT_TEMPFAIL = 75


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """Print ``message``: every line a command prints goes through here, its control characters
    escaped (:func:`adjudicator.present.quoting.terminal`), since it may hold what came from a
    file, an archive or a mail."""
    from adjudicator.present.quoting import terminal

    click.echo(terminal(message), err=err, nl=nl)


class Failure(click.ClickException):
    """A domain error shown to the user, its control characters escaped as :func:`echo` does;
    subclasses carry the exit code."""

    def format_message(self) -> str:
        from adjudicator.present.quoting import terminal

        return terminal(self.message)


class UsageFailure(Failure):
    exit_code = 2


class RefusedFailure(Failure):
    exit_code = EXIT_REFUSED


class NotNowFailure(Failure):
    exit_code = EXIT_NOT_NOW


class TempFailure(Failure):
    exit_code = EXIT_TEMPFAIL


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Within: what the system refuses of writing at ``path``, a place the user named (no such
    folder, a name too long, a file where a folder goes, a place that takes no files), ends
    the command as a usage error naming it (exit 2), not a traceback; a full disk is no fault of
    the place and is let through (the command line says it, exit 4). A ``path`` that is there
    but is no regular file or folder (a pipe, a device) is refused before anything is written:
    a file written beside it and renamed onto it would replace it."""
    try:
        if path.exists() and not (path.is_file() or path.is_dir()):
            raise UsageFailure(
                f"{path}: not a regular file (a pipe or a device, say); name a file or folder "
                "to write"
            )
        yield
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise  # a full disk: not the place's fault (the command line says so, exit 4)
        said = error.strerror or str(error)
        where = f"{error.filename}: " if error.filename and str(error.filename) != str(path) else ""
        raise UsageFailure(f"{path}: cannot be written there ({where}{said})") from None


FAILURES: dict[int, type[Failure]] = {
    2: UsageFailure,
    3: RefusedFailure,
    4: NotNowFailure,
    EXIT_TEMPFAIL: TempFailure,
}


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON, every character that does not print as a JSON escape."""
    import json

    from adjudicator.present.quoting import terminal_json

    click.echo(terminal_json(json.dumps(data, indent=2, ensure_ascii=False)))


def fail(message: str, code: int) -> NoReturn:
    raise FAILURES.get(code, Failure)(message)


def private_key(keyfile: Path) -> Any:
    """The private key in ``keyfile``, asking for its passphrase when it has one (exit 2 when
    it cannot be read)."""
    from adjudicator.present.words import say
    from adjudicator.signing import keys

    try:
        try:
            return keys.load_private(keyfile)
        except keys.PassphraseNeeded:
            passphrase = click.prompt(f"Passphrase for {keyfile}", hide_input=True)
            return keys.load_private(keyfile, passphrase.encode())
    except keys.KeyProblem as error:
        fail(f"{keyfile}: {say(error.reason)}", 2)
