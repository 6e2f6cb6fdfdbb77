"""Start-up of `adjudicator --version` and `--help` against `python -c "import click"`.

The target: both within 1.5 times the bare click import (the CLI imports nothing heavy before a
command runs). Prints the medians and exits 1 when the target is missed.

    .venv/bin/python benchmarks/startup.py [--runs 30]
"""

from __future__ import annotations

import argparse
import sys

from timing import adjudicator, median_seconds

TARGET = 1.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    script = adjudicator()
    baseline = median_seconds([sys.executable, "-c", "import click"], args.runs)
    worst = 0.0
    print(f"python -c 'import click': {baseline * 1000:.1f} ms")
    for flag in ("--version", "--help"):
        took = median_seconds([script, flag], args.runs)
        ratio = took / baseline
        worst = max(worst, ratio)
        print(f"adjudicator {flag}: {took * 1000:.1f} ms ({ratio:.2f}x)")
    print(f"target: within {TARGET}x -> {'met' if worst <= TARGET else 'MISSED'}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
