"""`adjudicator tick` over a folder of 1,000 idle games against `python -c "import click"`.

The target (benchmarks/README.md: one second counts as 30x): `tick` over 1,000 games with nothing
due at most 30 times the bare click import beyond `tick` over an empty folder: it must not open
every game's states to learn that nothing is due (adjudicator/mail/idle.py). The games are copies of
one game with a 48-hour deadline, its first reports sent; a first `tick` notes them. Prints the
medians and exits 1 when the target is missed.

    .venv/bin/python benchmarks/tick.py [--runs 5] [--games 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import adjudicator, median_seconds

TARGET = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")  # the notes: not the user's
        quiet = {"check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([script, "keygen", folder / "alice"], **quiet)
        subprocess.run([script, "keygen", folder / "bob"], **quiet)
        (folder / "setup.yaml").write_text(
            "game: sultan\nid: idle\ndeadline: 48h\nplayers:\n"
            "  - {name: alice, email: alice@example.org, key_file: alice.pub}\n"
            "  - {name: bob, email: bob@example.org, key_file: bob.pub}\n"
        )
        config = folder / "no-mail.toml"
        config.write_text("")
        one = folder / "one"
        subprocess.run([script, "new", one, "--setup", folder / "setup.yaml"], **quiet)
        subprocess.run([script, "send", one, "--config", config], **quiet)
        games, empty = folder / "games", folder / "empty"
        empty.mkdir()
        for number in range(args.games):
            shutil.copytree(one, games / f"game{number:04d}")
        subprocess.run([script, "tick", games, "--config", config], **quiet)
        baseline = median_seconds([sys.executable, "-c", "import click"], max(args.runs, 10))
        nothing = median_seconds([script, "tick", str(empty), "--config", str(config)], args.runs)
        idle = median_seconds([script, "tick", str(games), "--config", str(config)], args.runs)
    ratio = (idle - nothing) / baseline
    print(f"python -c 'import click': {baseline * 1000:.1f} ms")
    print(f"adjudicator tick, an empty folder: {nothing * 1000:.0f} ms")
    print(f"adjudicator tick, {args.games} idle games: {idle * 1000:.0f} ms")
    print(
        f"beyond the empty folder: {ratio:.1f}x (target: within {TARGET:.0f}x) -> "
        f"{'met' if ratio <= TARGET else 'MISSED'}"
    )
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
