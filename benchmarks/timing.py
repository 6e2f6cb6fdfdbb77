"""What the benchmarks share: timing a command, and finding the installed `adjudicator`."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_seconds(command: list[str], runs: int) -> float:
    """The median wall time of ``command`` over ``runs`` runs (its output thrown away)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def adjudicator() -> str:
    """The `adjudicator` command of this Python's environment."""
    return shutil.which("adjudicator") or str(Path(sys.executable).parent / "adjudicator")
