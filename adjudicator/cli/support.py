"""What every command module shares: failures with their exit codes, printing, JSON output, and
reading a private key. The command table (:mod:`adjudicator.cli`) imports it as ``--help`` and
``--version`` start, so it imports no more than click: the types of the commands' path
arguments are in :mod:`adjudicator.cli.arguments`."""

from __future__ import annotations

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
