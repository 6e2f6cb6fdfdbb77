"""Crash points for the kill tests: the process kills itself at the N-th durable operation.

With ``ADJUDICATOR_KILL_AT=N`` set, the N-th call of :func:`reached` (counted over the whole
process: every file write, rename, move and journal append calls it) sends the process SIGKILL,
so a test can stop a command at each instant where the disk changes. ``ADJUDICATOR_KILL_AT=count``
instead makes each call print nothing and count; :func:`calls` tells how many there were. Unset
(as always outside the tests), :func:`reached` does nothing.
"""

from __future__ import annotations

import os
import signal

ENV_VAR = "ADJUDICATOR_KILL_AT"

_calls = 0


def reached(where: str) -> None:
    """One durable operation (``where`` names its kind, for a reader of this code)."""
    global _calls
    target = os.environ.get(ENV_VAR)
    if not target:
        return
    _calls += 1
    if target.isdigit() and _calls == int(target):
        os.kill(os.getpid(), signal.SIGKILL)


def calls() -> int:
    """How many durable operations this process reached while ``ADJUDICATOR_KILL_AT`` was set."""
    return _calls


def reset() -> None:
    global _calls
    _calls = 0
