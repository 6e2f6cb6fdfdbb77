"""`adjudicator verify` of a finished 5-player Sultan game against `python -c "import click"`.

The target (benchmarks/README.md: one second counts as 30x): the whole check, journal, files,
signatures and the replay of every adjudication, within 30 times the bare click import. The game is
a bot game played through the signed-order path (`adjudicator demo`), archived whole with mail as
sent. Prints the medians and exits 1 when the target is missed.

    .venv/bin/python benchmarks/verify.py [--runs 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import adjudicator, median_seconds

TARGET = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        quiet = {"check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([script, "demo", "sultan", "--players", "5", "--dir", folder / "d"], **quiet)
        (folder / "no-mail.toml").write_text("")  # no [smtp]: the mail goes to outbox/
        subprocess.run(
            [script, "send", folder / "d/game", "--config", folder / "no-mail.toml"], **quiet
        )
        archive = folder / "game.json"
        subprocess.run([script, "archive", folder / "d/game", "-o", archive], **quiet)
        baseline = median_seconds([sys.executable, "-c", "import click"], max(args.runs, 10))
        took = median_seconds([script, "verify", str(archive)], args.runs)
    ratio = took / baseline
    print(f"python -c 'import click': {baseline * 1000:.1f} ms")
    print(f"adjudicator verify (5-player Sultan, finished): {took * 1000:.0f} ms ({ratio:.1f}x)")
    print(f"target: within {TARGET:.0f}x -> {'met' if ratio <= TARGET else 'MISSED'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
