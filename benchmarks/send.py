"""`adjudicator send` of a new game's first mails over TLS, against `python -c "import click"`.

A new 5-player Sultan game's `send` queues each player's welcome and first report (text, the
page with its pictures, the order form and the order page: 55 to 75 kB a mail, ten mails) and
delivers what it queued to an SMTP server on this machine (aiosmtpd, implicit TLS with a
throwaway CA, as the tests use).
The same `send` with no server writes the same mails to the outbox folder instead. The
difference of the two, a mail, is what handing one mail to a server costs (the connection, the
SMTP exchange, the mail's moves through the queue's folders); the target: within half the bare
click import. A mail of several TLS records whose last record waits on the server's delayed
acknowledgement takes 40 ms more on Linux, about the click import. Each run starts from a fresh
copy of the game (made untimed); the two `send`s and the click import are timed in turns.
Prints the medians and exits 1 when the target is missed.

    .venv/bin/python benchmarks/send.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import trustme
from aiosmtpd.controller import Controller
from timing import adjudicator, median_seconds, sultan_setup

TARGET = 0.5
HOST = "127.0.0.1"


class Counter:
    """The server's handler: takes every message, and counts them and their bytes."""

    def __init__(self) -> None:
        self.mails = 0
        self.size = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails += 1
        self.size += len(envelope.original_content)
        return "250 2.0.0 Message accepted"


class Loopback(Controller):
    """aiosmtpd's Controller on a port the system picks, read back once bound."""

    def _trigger_server(self) -> None:
        assert self.server is not None
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    script = adjudicator()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")
        ca = trustme.CA()
        ca_file = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert(HOST, "localhost").configure_cert(context)
        counter = Counter()
        server = Loopback(counter, hostname=HOST, port=0, ssl_context=context)
        server.start()
        try:
            port = server.port
            mail = '[mail]\nfrom = "gm@example.org"\n'
            by_smtp, to_outbox = folder / "smtp.toml", folder / "outbox.toml"
            by_smtp.write_text(
                mail + f'[smtp]\nhost = "{HOST}"\nport = {port}\ntls = "tls"\n'
                f'ca_file = "{ca_file}"\n'
            )
            to_outbox.write_text(mail)
            game, copy = folder / "game", folder / "copy"
            quiet = {"check": True, "stdout": subprocess.DEVNULL}
            subprocess.run([script, "new", game, "--setup", sultan_setup(folder)], **quiet)

            def fresh() -> None:
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(game, copy, symlinks=True)

            click = [sys.executable, "-c", "import click"]
            by_server = [script, "send", str(copy), "--config", str(by_smtp)]
            by_folder = [script, "send", str(copy), "--config", str(to_outbox)]
            sent, written, beside = [], [], []
            mails = 0
            for _ in range(max(args.runs, 1)):
                before = counter.mails
                sent.append(median_seconds(by_server, 1, fresh))
                mails = counter.mails - before
                written.append(median_seconds(by_folder, 1, fresh))
                beside.append(median_seconds(click, 1))
            size = counter.size // max(counter.mails, 1)
        finally:
            server.stop()
    if not mails:
        print("adjudicator send handed the server no mail: nothing to time")
        return 1
    took, wrote, base = (statistics.median(s) for s in (sent, written, beside))
    each = (took - wrote) / mails
    ratio = each / base
    print(f"python -c 'import click': {base * 1000:.1f} ms")
    print(
        f"adjudicator send, {mails} mails of some {size // 1000} kB to a server over TLS: "
        f"{took * 1000:.0f} ms ({took / base:.1f}x)"
    )
    print(
        f"adjudicator send, the same mails to the outbox folder: {wrote * 1000:.0f} ms "
        f"({wrote / base:.1f}x)"
    )
    print(
        f"a mail handed to the server: {each * 1000:.1f} ms ({ratio:.2f}x; target: within "
        f"{TARGET}x) -> {'met' if ratio <= TARGET else 'MISSED'}"
    )
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
