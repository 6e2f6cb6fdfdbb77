"""Time per verdict of `submit`: every order file must be judged within a second.

Plays a 5-player Sultan game in a temporary folder and times `intake.submit` for an accepted
order, a refused one (bad signature), an order just under 64 KiB and one over it, and one with
many YAML problems. Prints the slowest verdict and exits 1 when it took a second or more.

    .venv/bin/python benchmarks/submit.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from timing import NAMES, sultan_setup

from adjudicator.engine import create, intake, queries
from adjudicator.signing import keys, sshsig

TARGET = 1.0


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="adjudicator-bench-"))
    setup = sultan_setup(root)
    gamedir = root / "game"
    create.new(gamedir, setup)
    player = NAMES[0]
    hand = queries.view(gamedir, player)["hand"]
    body = f"id: bench\nplayer: {player}\nturn: 1\nbid:\n  cushion: 1\n  card: {hand[0]}\n"
    samples = {
        "accepted": body,
        "just under 64 KiB": body + ("# " + "x" * 98 + "\n") * 640,
        "over 64 KiB": body + ("# " + "x" * 98 + "\n") * 660,
        "many problems": "id: bench\nplayer: alice\nturn: 1\n"
        + "".join(f"k{i}: &a{i} v\n" for i in range(2000)),
    }
    worst = 0.0
    private = keys.load_private(root / player)
    for label, text in samples.items():
        path = root / f"{label.replace(' ', '-')}.yaml"
        path.write_text(text)
        path.with_name(path.name + ".sig").write_bytes(sshsig.sign(path.read_bytes(), private))
        start = time.perf_counter()
        (verdict,) = intake.submit(gamedir, [path])
        took = time.perf_counter() - start
        worst = max(worst, took)
        print(f"{label}: {'accepted' if verdict.accepted else 'refused'} in {took * 1000:.1f} ms")
    tampered = root / "tampered.yaml"
    tampered.write_text(body.replace("cushion: 1", "cushion: 2"))
    tampered.with_name("tampered.yaml.sig").write_bytes(sshsig.sign(body.encode(), private))
    start = time.perf_counter()
    intake.submit(gamedir, [tampered])
    took = time.perf_counter() - start
    worst = max(worst, took)
    print(f"tampered: refused in {took * 1000:.1f} ms")
    print(
        f"slowest verdict: {worst * 1000:.1f} ms; target under {TARGET * 1000:.0f} ms -> "
        f"{'met' if worst < TARGET else 'MISSED'}"
    )
    return 0 if worst < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
