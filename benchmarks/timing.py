"""What the benchmarks share: timing a command, finding the installed `adjudicator`, and the
5-player Sultan setup they play."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def median_seconds(
    command: list[str], runs: int, prepare: Callable[[], object] | None = None
) -> float:
    """The median wall time of ``command`` over ``runs`` runs (its output thrown away);
    ``prepare`` runs before each, untimed."""
    samples = []
    for _ in range(runs):
        if prepare is not None:
            prepare()
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def paired(
    command: list[str],
    yardstick: list[str],
    runs: int,
    prepare: Callable[[], object] | None = None,
) -> tuple[float, float]:
    """The median wall times of ``command`` and of ``yardstick``, run in turns (one, then the
    other, ``runs`` times), so that a machine that grows busier or quieter meanwhile weighs on
    both alike; ``prepare`` runs before each run of ``command``, untimed."""
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(median_seconds(command, 1, prepare))
        theirs.append(median_seconds(yardstick, 1))
    return statistics.median(mine), statistics.median(theirs)


def adjudicator() -> str:
    """The `adjudicator` command of this Python's environment."""
    return shutil.which("adjudicator") or str(Path(sys.executable).parent / "adjudicator")


NAMES = ["alice", "bob", "carol", "dave", "erin"]


def sultan_setup(root: Path) -> Path:
    """A 5-player Sultan setup in ``root`` (game id ``bench``), each player's key beside it."""
    import yaml

    from adjudicator.signing import keys

    for name in NAMES:
        keys.generate(root / name, name)
    setup = {
        "game": "sultan",
        "id": "bench",
        "seed": "0123456789abcdef0123456789abcdef",
        "players": [
            {"name": n, "email": f"{n}@example.org", "key_file": f"{n}.pub"} for n in NAMES
        ],
        "options": {"jewel_choice": "random"},
    }
    path = root / "setup.yaml"
    path.write_text(yaml.safe_dump(setup))
    return path
