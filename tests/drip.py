"""A server on loopback that answers a byte at a time: each read's timeout never expires."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def dripping(first: bytes, every: float = 0.1, count: int = 200) -> Iterator[int]:
    """A server that accepts one connection and sends ``first``, then ``count`` more bytes, one
    each ``every`` seconds (at most some 20 s: it ends by itself); its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def drip() -> None:
        listener.settimeout(10)
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                for byte in first + b"x" * count:
                    if stop.wait(every):
                        break
                    conn.sendall(bytes([byte]))

    server = threading.Thread(target=drip, daemon=True)
    server.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        server.join(15)
        listener.close()
