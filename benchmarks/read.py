"""Every read command on a finished 5-player Sultan game against `python -c "import click"`.

The target: each of `status`, `view`, `report`, `log` and `form` within 2
times the bare click import (`check` is timed with the commands an order runs, in
benchmarks/commands.py): a command imports only what it needs. A text report or form shown
before comes from the rendered-report cache (adjudicator/present/rendered.py); the time of its
first showing, rendered by Jinja, is printed too, for information, and again with a cache that
has filled as a user's does (2,000 entries kept before, spread over its folders as rendered
reports are), where the new entry makes room. Prints each median as a ratio and exits 1 when
any misses the target. The user's cache folder is a temporary one.

    .venv/bin/python benchmarks/read.py [--runs 10]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import adjudicator, median_seconds, paired

TARGET = 2.0


def _output(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


FILLED = 2000
"""The rendered reports a user's cache holds once it has filled."""


def _filled(folder: Path, count: int) -> set[Path]:
    """``count`` stand-ins for rendered reports in ``folder``, each in the folder its key names
    (its first two digits), as each rendered report is; their paths."""
    made = set()
    for n in range(count):
        key = hashlib.sha256(f"stand-in {n}".encode()).hexdigest()
        entry = folder / key[:2] / f"{key}.txt"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(key.encode() + b"\n" + b"a report of some 2 kB\n" * 100)
        made.add(entry)
    return made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")
        game = str(folder / "d" / "game")
        quiet = {"check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([script, "demo", "sultan", "--players", "5", "--dir", folder / "d"], **quiet)
        running = str(folder / "running")  # the same setup, turn 1: someone owes an order
        subprocess.run([script, "new", running, "--setup", folder / "d" / "setup.yaml"], **quiet)
        status = json.loads(_output(script, "status", running, "--json"))
        player = next(iter(status["owed"]))
        commands = {
            "status": ["status", game],
            "status --json": ["status", game, "--json"],
            "view --json": ["view", game, "--player", "alice", "--json"],
            "view": ["view", game, "--player", "alice"],
            "report": ["report", game, "--player", "alice"],
            "report --gm --turn 10": ["report", game, "--gm", "--turn", "10"],
            "log": ["log", game],
            "log --json": ["log", game, "--json"],
            "form": ["form", running, "--player", player],
        }
        click = [sys.executable, "-c", "import click"]
        baseline = median_seconds(click, args.runs)
        print(f"python -c 'import click': {baseline * 1000:.1f} ms (each command is timed in")
        print("turns with it, and its ratio is to the import timed beside it)")
        missed = []
        for name, command in commands.items():
            took, beside = paired([script, *command], click, args.runs)
            ratio = took / beside
            if ratio > TARGET:
                missed.append(name)
            print(f"adjudicator {name}: {took * 1000:.0f} ms ({ratio:.2f}x)")
        rendered = folder / "cache" / "adjudicator" / "rendered"
        for name in ("view", "report", "form"):

            def forget() -> None:
                shutil.rmtree(rendered, ignore_errors=True)

            took, beside = paired([script, *commands[name]], click, args.runs, forget)
            ratio = took / beside
            print(f"adjudicator {name}, first showing: {took * 1000:.0f} ms ({ratio:.2f}x)")
        for name in ("view", "report", "form"):
            shutil.rmtree(rendered, ignore_errors=True)
            kept = _filled(rendered, FILLED)

            def forget_but_the_rest(kept: set[Path] = kept) -> None:
                for entry in rendered.glob("*/*.txt"):
                    if entry not in kept:
                        entry.unlink()

            took, beside = paired([script, *commands[name]], click, args.runs, forget_but_the_rest)
            ratio = took / beside
            print(
                f"adjudicator {name}, first showing, the cache filled: {took * 1000:.0f} ms "
                f"({ratio:.2f}x)"
            )
    print(f"target: within {TARGET}x -> {'met' if not missed else 'MISSED: ' + ', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
