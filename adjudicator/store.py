"""The game directory: everything accepted, kept byte for byte, written atomically under a lock.

Layout (docs/game-directory.md says more)::

    GAMEDIR/
      game.json                      the game: id, game, players and keys, options, seed, deadline
      setup.yaml                     the setup file as given
      log.jsonl                      one JSON line per action (created, accepted, adjudicated)
      .lock                          the lock that serialises commands
      turns/0001/state.json          the state as turn 1 opens
      turns/0001/orders/alice-1.yaml the exact bytes each accepted order file signed ...
      turns/0001/orders/alice-1.yaml.sig   ... and its signature (ssh-keygen -Y verify works)
      turns/0001/orders.json         which accepted order of each player is in effect
      turns/0001/resolution.json     after adjudication: the orders used, defaults, events
      turns/0001/reports/…           the reports written as the turn opened
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from adjudicator.errors import Locked, UsageProblem

LOCK_TIMEOUT = 30.0


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


class GameDir:
    """One game's directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # -- locking -----------------------------------------------------------------------------
    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the game's lock: commands on one game directory run one at a time."""
        wait = LOCK_TIMEOUT if timeout is None else timeout
        lock = FileLock(str(self.root / ".lock"), timeout=wait)
        try:
            lock.acquire()
        except Timeout:
            raise Locked(f"{self.root}: the game is locked by another command; try again") from None
        try:
            yield
        finally:
            lock.release()

    # -- files -------------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.root / "game.json").is_file()

    def require(self) -> None:
        if not self.exists():
            raise UsageProblem(f"{self.root}: not a game directory (no game.json)")

    def read_json(self, rel: str) -> Any:
        return json.loads((self.root / rel).read_text(encoding="utf-8"))

    def write_json(self, rel: str, data: Any) -> None:
        atomic_write(self.root / rel, dump_json(data))

    def write_bytes(self, rel: str, data: bytes) -> None:
        atomic_write(self.root / rel, data)

    def write_text(self, rel: str, text: str) -> None:
        atomic_write(self.root / rel, text.encode("utf-8"))

    def append_log(self, entry: dict[str, Any]) -> None:
        """Append one line to log.jsonl and fsync it."""
        line = json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n"
        with open(self.root / "log.jsonl", "ab") as handle:
            handle.write(line.encode())
            handle.flush()
            os.fsync(handle.fileno())

    def log(self) -> list[dict[str, Any]]:
        path = self.root / "log.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    # -- the game ----------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        data: dict[str, Any] = self.read_json("game.json")
        return data

    @staticmethod
    def turn_dir(turn: int) -> str:
        return f"turns/{turn:04d}"

    def turns(self) -> list[int]:
        folder = self.root / "turns"
        if not folder.is_dir():
            return []
        return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit())

    def current_turn(self) -> int:
        turns = self.turns()
        if not turns:
            raise UsageProblem(f"{self.root}: the game directory has no turns")
        return turns[-1]

    def state(self, turn: int) -> dict[str, Any]:
        data: dict[str, Any] = self.read_json(f"{self.turn_dir(turn)}/state.json")
        return data

    def orders_in_effect(self, turn: int) -> dict[str, dict[str, Any]]:
        path = self.root / self.turn_dir(turn) / "orders.json"
        if not path.exists():
            return {}
        data: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def resolution(self, turn: int) -> dict[str, Any] | None:
        path = self.root / self.turn_dir(turn) / "resolution.json"
        if not path.exists():
            return None
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
