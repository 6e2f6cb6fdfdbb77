"""How long a run waits on a mail server in all, not only for each read.

A socket's timeout bounds each read, and a server that answers a byte at a time never lets it
expire: a ``send`` holding a game's lock, or a ``tick``, waited on it for ever. :func:`at_most`
bounds a whole exchange (a session's opening, one message's transaction, one IMAP command).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class TooSlow(TimeoutError):
    """An exchange with a mail server took longer than :func:`at_most` allows."""


def too_slow(error: BaseException) -> TooSlow | None:
    """The TooSlow behind ``error`` (itself, or what it was raised while handling), or None."""
    for seen in (error, error.__context__, error.__cause__):
        if isinstance(seen, TooSlow):
            return seen
    return None


@contextmanager
def at_most(seconds: float, what: str) -> Iterator[None]:
    """Raise TooSlow (a TimeoutError) in the block once it has taken ``seconds`` (``what``: the
    server, as the message names it). It uses the process's interval timer, which only the
    main thread may set and which Windows lacks: there, each read's own timeout alone bounds
    the wait."""
    import signal
    import threading

    main = threading.current_thread() is threading.main_thread()
    if not hasattr(signal, "setitimer") or not main or signal.getitimer(signal.ITIMER_REAL)[0]:
        yield  # (a block within another: the outer limit bounds it)
        return

    def expired(signum: int, frame: object) -> None:
        raise TooSlow(f"{what} took more than {seconds:g} seconds to answer in all")

    before = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
