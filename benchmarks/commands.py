"""The commands a player's order runs, against `python -c "import click"`.

`check` of a valid order against its form, `submit` of the signed order, and `ingest` of one
mail holding it (read from standard input), on a new 5-player Sultan game whose start player
owes the jewel to return. The target: each within 2.5 times the bare click import. `submit`
and `ingest` change the game, so each of their runs starts from a fresh copy of it (made
untimed). Prints each median as a ratio and exits 1 when any misses the target.

Beside each command it prints its floor: Python started with the libraries that command cannot
do without (``FLOORS``: the command line; the order's YAML; the signature's Ed25519 key; the
game's lock; the mail's MIME parser), imported alone and timed in turns
with the click import as the command is. What the command takes beyond its floor is the
program's own; a floor over the target is said to be (no change to the program meets it).

    .venv/bin/python benchmarks/commands.py [--runs 10]
"""

from __future__ import annotations

import argparse
import email.policy
import json
import os
import shutil
import subprocess
import sys
import tempfile
from email.message import EmailMessage
from pathlib import Path

from timing import adjudicator, paired

TARGET = 2.5
_SIGNED = "import click, yaml, filelock, cryptography.hazmat.primitives.asymmetric.ed25519"
FLOORS = {
    "check": "import click, yaml",
    "submit": _SIGNED,
    "ingest": _SIGNED + ", email.parser, email.policy",
}


def _output(*command: str | Path) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def _order(script: str, folder: Path) -> tuple[Path, Path, Path, str]:
    """A new game, its start player's order form, and that player's valid signed order
    (the first jewel drawn goes back); and the player."""
    quiet = {"check": True, "stdout": subprocess.DEVNULL}
    demo = folder / "d"
    subprocess.run([script, "demo", "sultan", "--players", "5", "--dir", demo], **quiet)
    game = folder / "game"
    subprocess.run([script, "new", game, "--setup", demo / "setup.yaml"], **quiet)
    player = next(iter(json.loads(_output(script, "status", game, "--json"))["owed"]))
    form = folder / "form.yaml"
    form.write_text(_output(script, "form", game, "--player", player))
    view = json.loads(_output(script, "view", game, "--player", player, "--json"))
    order = folder / "order.yaml"
    order.write_text(form.read_text().replace("\nreturn:\n", f"\nreturn: {view['drawn'][0]}\n"))
    key = demo / "keys" / player
    subprocess.run(
        ["ssh-keygen", "-q", "-Y", "sign", "-n", "adjudicator-orders", "-f", key, order],
        check=True,
        capture_output=True,
    )
    return game, form, order, player


def _mail(order: Path, player: str) -> bytes:
    """The signed order as a mail client sends it: the file and its signature attached."""
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = "gm@example.org"
    message["Subject"] = "my order"
    message["Message-ID"] = f"<{player}.bench@example.org>"
    message.set_content("Here is my order.\n")
    message.add_attachment(order.read_bytes(), maintype="text", subtype="yaml", filename=order.name)
    message.add_attachment(
        Path(f"{order}.sig").read_bytes(),
        maintype="application",
        subtype="octet-stream",
        filename=f"{order.name}.sig",
    )
    return message.as_bytes(policy=email.policy.SMTP)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")
        os.environ["XDG_CONFIG_HOME"] = str(folder / "config")  # no mail settings of the user's
        game, form, order, player = _order(script, folder)
        message = folder / "message.eml"
        message.write_bytes(_mail(order, player))
        copy = folder / "copy"

        def fresh() -> None:
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(game, copy, symlinks=True)

        commands = {
            "check": (["check", str(order), "--form", str(form)], None),
            "submit": (["submit", str(copy), str(order)], fresh),
            "ingest": (["sh", "-c", 'exec "$0" ingest "$1" < "$2"', script, copy, message], fresh),
        }
        click = [sys.executable, "-c", "import click"]
        missed = []
        for name, (command, prepare) in commands.items():
            run = [str(part) for part in command] if command[0] == "sh" else [script, *command]
            took, beside = paired(run, click, args.runs, prepare)
            ratio = took / beside
            if ratio > TARGET:
                missed.append(name)
            print(f"adjudicator {name}: {took * 1000:.0f} ms ({ratio:.2f}x; the import beside it")
            print(f"  took {beside * 1000:.1f} ms)")
            floor, beside = paired([sys.executable, "-c", FLOORS[name]], click, args.runs)
            over = " (over the target by itself)" if floor / beside > TARGET else ""
            print(f"  its floor, the libraries it cannot do without: {floor / beside:.2f}x{over}")
    print(f"target: within {TARGET}x -> {'met' if not missed else 'MISSED: ' + ', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
