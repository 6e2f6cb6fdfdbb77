"""Players need not trust the game master: ``archive`` writes one file with the game, ``verify``
checks one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from adjudicator.cli.arguments import FILE, GAMEDIR
from adjudicator.cli.support import echo, writing
from adjudicator.rules.lang import DEFAULT, LANGUAGES

if TYPE_CHECKING:
    from adjudicator.audit.findings import Seat


@click.command()
@click.argument("gamedir", type=GAMEDIR)
@click.option(
    "-o",
    "--output",
    "out",
    type=FILE,
    required=True,
    help="The archive file to write (in a folder that exists; a file there is replaced).",
)
@click.option(
    "--public",
    is_flag=True,
    help="Only what every player may see now (safe to hand out while the game runs).",
)
def archive(gamedir: Path, out: Path, public: bool) -> None:
    """Write the whole game to one file (docs/archive.md), for `adjudicator verify`.

    \b
    Examples:
      adjudicator archive games/cairo-2026 -o cairo-2026.archive.json
      adjudicator archive games/cairo-2026 --public -o cairo-2026.public.json
    """
    from adjudicator.audit import archive as archives

    if not out.parent.is_dir():
        raise click.UsageError(f"{out}: there is no folder {out.parent} to write the archive in")
    with writing(out):
        written = archives.write(gamedir, out, public)
    kind = "public archive" if public else "archive"
    echo(f"{out}: {kind} of {written['id']}, {len(written['files'])} files")


def _head(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    from adjudicator.audit.verify import HEAD

    if value is None:
        return None
    value = value.removeprefix("#")  # as a report prints it: "#3f2a…"
    if not HEAD.fullmatch(value):
        raise click.BadParameter("a chain head is 32 to 64 hex digits, as a report shows it")
    return value


@click.command()
@click.argument("file", type=FILE)
@click.option(
    "--head",
    default=None,
    callback=_head,
    help="A chain head from one of your reports: the journal must pass through it.",
)
@click.option("--player", default=None, help="With --key: your seat, whose every order you check.")
@click.option(
    "--key",
    "key_file",
    type=FILE,
    default=None,
    help="With --player: your public key file (.pub); every order and notice of your seat must "
    "have been accepted under it.",
)
@click.option(
    "--lang", type=click.Choice(LANGUAGES), default=DEFAULT, help="The language of the output."
)
def verify(
    file: Path, head: str | None, player: str | None, key_file: Path | None, lang: str
) -> None:
    """Check an archive on your own machine: the journal's chain, every file, the seed, every
    signature, and the whole game played again (docs/how-to-check.md).

    Exit 0 when everything the archive holds agrees; 3 when anything disagrees, the first line
    naming the turn and the file.

    \b
    Examples:
      adjudicator verify cairo-2026.archive.json
      adjudicator verify cairo-2026.public.json --head 3f2a9c0b5d1e47a8b6c2d9e0f1a2b3c4
      adjudicator verify cairo-2026.public.json --player alice --key ~/.ssh/cairo-2026.pub
    """
    from adjudicator.audit.verify import read
    from adjudicator.audit.verify import verify as check
    from adjudicator.present.audit import finding_lines, summary_lines

    if (player is None) != (key_file is None):
        raise click.UsageError("--player and --key go together: your seat and your public key")
    seat = None if key_file is None or player is None else _seat(player, key_file)
    summary = check(read(file), head, seat)
    if summary.findings:
        from adjudicator.cli.support import RefusedFailure

        raise RefusedFailure("\n".join(finding_lines(summary, lang)))
    for line in summary_lines(summary, head, lang):
        echo(line)


def _seat(player: str, key_file: Path) -> Seat:
    """The seat ``--player`` names, with the fingerprint of the key in ``--key`` (exit 3 when
    it holds no public key)."""
    from adjudicator.audit.findings import Seat
    from adjudicator.cli.support import fail
    from adjudicator.present.words import say
    from adjudicator.signing import keys

    try:
        line = keys.load_public(key_file)
    except keys.KeyProblem as error:
        fail(f"--key {key_file}: {say(error.reason)}", 3)
    return Seat(player, keys.fingerprint(line))
