"""The command line: click only. It parses arguments, calls the layer below, prints what it
returns; nothing here decides anything about a game.

Start-up stays light: one lazy command table (:data:`COMMANDS`) names the module of each
command, which is imported only when that command runs or ``--help`` lists it, and each command
imports what it needs when it runs, so ``--help`` and ``--version`` are fast. Exit codes: 0
done, 1 a bug, 2 usage error, 3 input refused, 4 not now, 75 (mail commands) left for a later
run, 130 interrupted.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, NoReturn

import click

from adjudicator import __version__
from adjudicator.cli.support import FAILURES, Failure, echo

EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT), as shells report a command it stopped."""

COMMANDS = {
    **dict.fromkeys(("keygen", "sign", "check", "commit", "share"), "player"),
    **dict.fromkeys(("new", "submit", "status", "adjudicate", "doctor", "demo"), "game"),
    **dict.fromkeys(("games", "schema", "report", "site", "form", "view", "log"), "show"),
    **dict.fromkeys(("press", "absence"), "notices"),
    **dict.fromkeys(("extend", "pause", "resume", "replace", "resign", "rollback"), "gm"),
    **dict.fromkeys(("ingest", "send", "tick"), "mail"),
    **dict.fromkeys(("archive", "verify"), "audit"),
    **dict.fromkeys(("open", "join", "seat", "refuse", "start"), "signup"),
}
"""Each command and the module of ``adjudicator.cli`` that defines it (under the same name, but
for those :data:`DEFINED_AS` names)."""
DEFINED_AS = {"open": "open_game"}
"""The commands whose function has another name (``open`` is Python's own)."""


class Group(click.Group):
    """The command table, loaded lazily; turns the library's domain errors into messages and
    exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        defined = DEFINED_AS.get(cmd_name, cmd_name)
        command = getattr(importlib.import_module(f"adjudicator.cli.{module}"), defined)
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        from adjudicator.rules.errors import AdjudicatorError

        try:
            return super().invoke(ctx)
        except AdjudicatorError as error:
            from adjudicator.present.verdict_lines import error_text

            raise FAILURES.get(error.exit_code, Failure)(error_text(error)) from None
        except KeyboardInterrupt:  # Ctrl-C: the shell's 128 + SIGINT, not click's exit 1 (a bug)
            _interrupted()
        except OSError as error:
            from adjudicator.present.verdict_lines import system_refusal

            refused = system_refusal(error)  # this user's rights, a read-only mount, a full disk
            if refused is None:
                raise
            from adjudicator.cli.support import NotNowFailure

            raise NotNowFailure(refused) from None
        finally:
            _end_threads()
            _write_summaries()


def _end_threads() -> None:
    """End the fsync threads the command's steps kept (none unless a step wrote, so the module
    that keeps them is not loaded for this), and forget the games it found locked."""
    gamedir = sys.modules.get("adjudicator.store.gamedir")
    if gamedir is not None:
        gamedir.end_fsync_threads()
        gamedir.forget_locked()


def _write_summaries() -> None:
    """Keep in the cache folder the journals' summaries the command read on (none unless it
    read a game, so the module that keeps them is not loaded for this)."""
    summary = sys.modules.get("adjudicator.store.summary")
    if summary is not None:
        summary.write_kept()


def _interrupted() -> NoReturn:
    echo("\ninterrupted; a step cut short is finished or undone by the next command", err=True)
    sys.exit(EXIT_INTERRUPTED)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="adjudicator")
def cli() -> None:
    """Run moderated play-by-email board games with signed order files.

    \b
    Example, a whole game played by bots:
      adjudicator demo sultan --players 4 --seed 7 --dir my-demo
    """


def main() -> None:
    from adjudicator.store import interrupts

    with interrupts.noting():
        try:
            cli(prog_name="adjudicator")
        except SystemExit as ended:
            # a Ctrl-C before a command began is click's "Aborted!" (exit 1): an interruption;
            # a command that got its work done keeps its exit code
            if interrupts.noted() and ended.code == 1:
                _interrupted()
            raise
