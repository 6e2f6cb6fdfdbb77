"""The whole 5-player Sultan demo against `python -c "import click"`.

`adjudicator demo sultan --players 5` makes five keys with ssh-keygen, signs and submits every
order (some 90), adjudicates every turn (some 30), writes every reader's view, and writes the
game's static site with its pictures. The target (issue 13): within 8 times the bare click
import. Prints the medians and exits 1 when the target is missed. The user's cache folder is a
temporary one, kept between runs (as a user's is).

    .venv/bin/python benchmarks/demo.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from timing import adjudicator, median_seconds

TARGET = 8.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")
        target = folder / "demo"

        def fresh() -> None:
            shutil.rmtree(target, ignore_errors=True)

        command = [script, "demo", "sultan", "--players", "5", "--dir", str(target)]
        baseline = median_seconds([sys.executable, "-c", "import click"], 10)
        took = median_seconds(command, args.runs, fresh)
    ratio = took / baseline
    print(f"python -c 'import click': {baseline * 1000:.1f} ms")
    print(f"adjudicator demo sultan --players 5: {took * 1000:.0f} ms ({ratio:.1f}x)")
    print(f"target: within {TARGET:g}x -> {'met' if ratio <= TARGET else 'MISSED'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
