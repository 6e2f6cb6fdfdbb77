"""Start-up of `adjudicator --version` and `--help` against `python -c "import click"`.

The target: both within 1.5 times the bare click import (the CLI imports nothing heavy before a
command runs). Each is timed in turns with the import (as the other benchmarks time their
commands), so that a machine that grows busier or quieter meanwhile weighs on both alike.
Prints the medians and exits 1 when the target is missed.

    .venv/bin/python benchmarks/startup.py [--runs 30]
"""

from __future__ import annotations

import argparse
import sys

from timing import adjudicator, paired

TARGET = 1.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    script = adjudicator()
    click = [sys.executable, "-c", "import click"]
    worst = 0.0
    for flag in ("--version", "--help"):
        took, baseline = paired([script, flag], click, args.runs)
        ratio = took / baseline
        worst = max(worst, ratio)
        print(f"adjudicator {flag}: {took * 1000:.1f} ms ({ratio:.2f}x; the import beside it")
        print(f"  took {baseline * 1000:.1f} ms)")
    print(f"target: within {TARGET}x -> {'met' if worst <= TARGET else 'MISSED'}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
