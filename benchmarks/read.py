"""Every read command on a finished 5-player Sultan game against `python -c "import click"`.

The target: each of `status`, `view`, `report`, `log` and `form` within 2
times the bare click import (`check` is timed with the commands an order runs, in
benchmarks/commands.py): a command imports only what it needs. A text report or form shown
before comes from the rendered-report cache (adjudicator/present/rendered.py); the time of its
first showing, rendered by Jinja, is printed too, for information, and again with a cache that
has filled as a user's does (each of its folders holding as many as it keeps), where the new
entry makes room. Prints each median as a ratio and exits 1 when any misses the target. The
user's cache folder is a temporary one.

    .venv/bin/python benchmarks/read.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import adjudicator, median_seconds, paired

TARGET = 2.0


def _output(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


FILLED = 8
"""The rendered reports each of the cache's 256 folders holds once a user's cache has filled
(adjudicator/present/rendered.py keeps eight in each: 2,048 in all)."""


def _fill(folder: Path) -> None:
    """Stand-ins for rendered reports in ``folder`` until each of its 256 folders holds
    :data:`FILLED`, each written a minute ago (before any the command writes), and nothing else:
    a cache that has filled, where a new entry makes room."""
    for entry in folder.glob("*/*.txt"):
        if entry.name[2:10] != "f" * 8:  # not a stand-in
            entry.unlink()
    for shard in range(256):
        for n in range(FILLED):
            key = f"{shard:02x}{'f' * 8}{n:054x}"
            entry = folder / key[:2] / f"{key}.txt"
            if not entry.exists():
                entry.parent.mkdir(parents=True, exist_ok=True)
                entry.write_bytes(key.encode() + b"\n" + b"a report of some 2 kB\n" * 100)
                os.utime(entry, (time.time() - 60,) * 2)


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
            took, beside = paired(
                [script, *commands[name]], click, args.runs, lambda: _fill(rendered)
            )
            ratio = took / beside
            print(
                f"adjudicator {name}, first showing, the cache filled: {took * 1000:.0f} ms "
                f"({ratio:.2f}x)"
            )
    print(f"target: within {TARGET}x -> {'met' if not missed else 'MISSED: ' + ', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
