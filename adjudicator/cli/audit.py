"""Players need not trust the game master: ``archive`` writes one file with the game, ``verify``
checks one, and ``commit`` seals an order from the game master too (``sealing: commit-reveal``)."""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.rules.lang import DEFAULT, LANGUAGES

GAMEDIR = click.Path(path_type=Path, file_okay=False)
FILE = click.Path(path_type=Path, dir_okay=False)


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
    written = archives.write(gamedir, out, public)
    kind = "public archive" if public else "archive"
    click.echo(f"{out}: {kind} of {written['id']}, {len(written['files'])} files")


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
@click.option(
    "--lang", type=click.Choice(LANGUAGES), default=DEFAULT, help="The language of the output."
)
def verify(file: Path, head: str | None, lang: str) -> None:
    """Check an archive on your own machine: the journal's chain, every file, the seed, every
    signature, and the whole game played again (docs/how-to-check.md).

    Exit 0 when everything the archive holds agrees; 3 when anything disagrees, the first line
    naming the turn and the file.

    \b
    Examples:
      adjudicator verify cairo-2026.archive.json
      adjudicator verify cairo-2026.public.json --head 3f2a9c0b5d1e47a8b6c2d9e0f1a2b3c4
    """
    from adjudicator.audit.verify import read
    from adjudicator.audit.verify import verify as check
    from adjudicator.present.audit import finding_lines, summary_lines

    summary = check(read(file), head)
    if summary.findings:
        from adjudicator.cli.support import RefusedFailure

        raise RefusedFailure("\n".join(finding_lines(summary, lang)))
    for line in summary_lines(summary, head, lang):
        click.echo(line)


@click.command()
@click.argument("orders", type=FILE)
@click.option("--key", "keyfile", type=FILE, required=True, help="Your private key file.")
def commit(orders: Path, keyfile: Path) -> None:
    """Seal an order for a game with `sealing: commit-reveal` (docs/commit-reveal.md).

    Adds a fresh salt to ORDERS and signs it (ORDERS.sig: send both when the reveal opens), and
    writes ORDERS.commit, the signed commitment to it: send that now. Run it again after any
    change to the order: each run makes a new salt and a new commitment.

    \b
    Example:
      adjudicator commit cairo-2026-turn4-alice.yaml --key ~/.ssh/cairo-2026
    """
    import re

    from adjudicator.cli.support import fail, private_key
    from adjudicator.engine.orders import MAX_ORDER_BYTES
    from adjudicator.present.words import say
    from adjudicator.rules import sealing
    from adjudicator.rules.strictyaml import StrictYamlError, load
    from adjudicator.signing import sshsig
    from adjudicator.store.gamedir import atomic_write
    from adjudicator.store.readfile import FileRefused, read_regular

    try:
        data = read_regular(orders, MAX_ORDER_BYTES)
        envelope = load(data, max_bytes=MAX_ORDER_BYTES).data
    except FileRefused as error:
        fail(f"{orders}: cannot read the order file ({say(error.why)})", 3)
    except StrictYamlError as error:
        fail(f"{orders}: {say(error.problems[0].reason.msg)}", 3)
    envelope_keys = {"id": str, "player": str, "turn": int}
    if not isinstance(envelope, dict) or any(
        type(envelope.get(key)) is not kind for key, kind in envelope_keys.items()
    ):
        fail(f"{orders}: an order file needs its id, player and turn, as the form gives them", 3)
    plain = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # what setup files allow
    if not (plain.fullmatch(envelope["id"]) and plain.fullmatch(envelope["player"])):
        fail(f"{orders}: its id and player must be written as the form gives them", 3)
    private = private_key(keyfile)
    reveal = sealing.salted(data)
    atomic_write(orders, reveal)
    atomic_write(orders.with_name(orders.name + ".sig"), sshsig.sign(reveal, private))
    promise = sealing.commitment_file(envelope, reveal)
    target = orders.with_name(orders.name + sealing.COMMIT_EXTENSION)
    atomic_write(target, promise + sshsig.sign(promise, private))
    click.echo(f"{target}: the signed commitment: send it now")
    click.echo(f"{orders}: salted and signed ({orders.name}.sig): send both when the reveal opens")
