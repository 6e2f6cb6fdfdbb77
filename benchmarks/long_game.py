"""`status`, `view`, `report` and `submit` on a game whose journal holds 5,000 lines, against the
same commands on the same game fresh.

The target: each within 1.5 times its figure on the fresh game, whatever the journal's length
(nothing reads the whole journal to answer a question about the current turn). Builds a
5-player Sultan game in which one player sends their order again 4,999 times (in-process, through
`intake.submit`: each revision a step and a journal line), and a fresh game of the same setup;
each command is run once on both before the timing (what a game master's earlier commands
leave in the user's cache folder, a temporary one here), then timed in turns on the two. A
submit sends the player's order again, its bytes new at each run. Prints each median as a ratio
and exits 1 when any misses the target.

    .venv/bin/python benchmarks/long_game.py [--lines 5000] [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from timing import adjudicator, median_seconds, sultan_setup

TARGET = 1.5


class Game:
    """A game of the benchmark: its folder and a way to sign the player's order again."""

    def __init__(self, root: Path, name: str) -> None:
        from adjudicator.engine import create, queries
        from adjudicator.signing import keys

        self.root, self.dir = root, root / name
        create.new(self.dir, root / "setup.yaml")
        self.player = next(iter(queries.status(self.dir)["owed"]))
        self.card = queries.view(self.dir, self.player)["hand"][0]
        self.private = keys.load_private(root / self.player)
        self.revision = 0

    def order(self) -> Path:
        """The player's order, its bytes new (a comment counts the revisions), and its .sig."""
        from adjudicator.signing import sshsig

        self.revision += 1
        path = self.root / f"{self.dir.name}-order.yaml"
        path.write_text(
            f"id: bench\nplayer: {self.player}\nturn: 1\nbid:\n  cushion: 1\n"
            f"  card: {self.card}\n# revision {self.revision}\n"
        )
        path.with_name(path.name + ".sig").write_bytes(sshsig.sign(path.read_bytes(), self.private))
        return path

    def revise(self) -> None:
        from adjudicator.engine import intake

        (verdict,) = intake.submit(self.dir, [self.order()])
        assert verdict.accepted, verdict


def lines(game: Game) -> int:
    return (game.dir / "log.jsonl").read_bytes().count(b"\n")


def build(root: Path, wanted: int) -> tuple[Game, Game]:
    sultan_setup(root)
    fresh, long = Game(root, "fresh"), Game(root, "long")
    start = time.perf_counter()
    while lines(long) < wanted:
        long.revise()
        if long.revision % 1000 == 0:
            took = time.perf_counter() - start
            print(f"  {lines(long)} lines ({took / long.revision * 1000:.0f} ms a revision)")
    return fresh, long


def filled(command: list[str], game: Game) -> list[str]:
    """``command`` on ``game``: ``{game}`` its folder, ``{order}`` the player's order made anew."""
    args = [adjudicator(), *(str(game.dir) if a == "{game}" else a for a in command)]
    if "{order}" in args:
        args[args.index("{order}")] = str(game.order())
    return args


def paired(command: list[str], long: Game, fresh: Game, runs: int) -> tuple[float, float]:
    """The median times of ``command`` on the long game and on the fresh one, run in turns
    (a new order is made and signed before each run, untimed)."""
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(median_seconds(filled(command, long), 1))
        theirs.append(median_seconds(filled(command, fresh), 1))
    return statistics.median(mine), statistics.median(theirs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(root / "cache")
        print(f"building a game whose journal holds {args.lines} lines ...")
        fresh, long = build(root, args.lines)
        commands = {
            "status": ["status", "{game}"],
            "view": ["view", "{game}", "--player", long.player],
            "report": ["report", "{game}", "--player", long.player],
            "submit": ["submit", "{game}", "{order}"],
        }
        missed = []
        for name, command in commands.items():
            paired(command, long, fresh, 1)  # what the game master's earlier commands leave
            took_long, took_fresh = paired(command, long, fresh, args.runs)
            ratio = took_long / took_fresh
            if ratio > TARGET:
                missed.append(name)
            print(
                f"adjudicator {name}: {took_long * 1000:.0f} ms at {lines(long)} lines, "
                f"{took_fresh * 1000:.0f} ms fresh ({ratio:.2f}x)"
            )
    print(f"target: within {TARGET}x -> {'met' if not missed else 'MISSED: ' + ', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
