"""Ctrl-C that Python would lose: the command ends at its next step all the same.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives. Where that
is a ``__del__`` method, a weakref callback or the garbage collector (the import system runs
such callbacks often, and commands import lazily), Python prints it as "Exception ignored" and
goes on: the command would run to its end as if no key had been pressed. The command line
notes each Ctrl-C before raising it (:func:`noting`); :func:`check` raises one noted again. A
step calls it before it begins, and the site before each turn's pages. A ``KeyboardInterrupt``
always ends a command, so a Ctrl-C still noted while work goes on is one that was lost.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_noted = False


def on_sigint(signum: int, frame: FrameType | None) -> None:
    """Note the Ctrl-C, and raise it where Python is."""
    global _noted
    _noted = True
    raise KeyboardInterrupt


@contextmanager
def noting() -> Iterator[None]:
    """Within: Ctrl-C is noted (only where it raises ``KeyboardInterrupt``, Python's default:
    a process started with SIGINT ignored keeps ignoring it). Python's own handling comes back
    after, with nothing noted."""
    global _noted
    before = signal.getsignal(signal.SIGINT)
    if before is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        if before is signal.default_int_handler:
            signal.signal(signal.SIGINT, before)
        _noted = False


def noted() -> bool:
    """Whether Ctrl-C was pressed while this command ran."""
    return _noted


def check() -> None:
    """Raise a Ctrl-C noted (lost where it landed) again."""
    if _noted:
        raise KeyboardInterrupt


@contextmanager
def held() -> Iterator[None]:
    """Within: Ctrl-C waits until the end, then is taken as if pressed then (work that must
    not stop half-way, however short). Only the main thread handles signals: elsewhere, and
    where no handler of Python's is set, nothing changes."""
    import threading

    before = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or before is None:
        yield
        return
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if pressed:
            signal.raise_signal(signal.SIGINT)
