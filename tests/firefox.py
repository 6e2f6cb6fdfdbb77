"""A real headless Firefox (Debian's ``firefox-esr``), driven through its own Marionette
protocol by Mozilla's ``marionette-driver``: the signing pages must work in Firefox as in
Chromium, and Debian ships no geckodriver for Selenium. Never a downloaded browser."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import PAGE_WAIT
from tests.tools import require_tool


class Firefox:
    """One headless Firefox session, with what the page tests do in it."""

    def __init__(self, marionette: Any) -> None:
        self.m = marionette

    def open(self, path: Path) -> None:
        self.m.navigate(path.resolve().as_uri())

    def element(self, css: str) -> Any:
        from marionette_driver.by import By

        return self.m.find_element(By.CSS_SELECTOR, css)

    def choose(self, name: str, value: str) -> None:
        """Choose the option whose value is ``value`` in the select ``name``."""
        self.m.execute_script(
            "var s = document.querySelector('select[name=\"' + arguments[0] + '\"]');"
            "s.value = arguments[1]; s.dispatchEvent(new Event('change', {bubbles: true}));",
            script_args=[name, value],
        )

    def key(self, path: Path) -> None:
        self.element("input[name=key]").send_keys(str(path.resolve()))

    def sign(self) -> str:
        """Press sign; the signed text, or the page's problems or key message."""
        self.element("button[name=sign]").click()
        script = (
            "return document.querySelector('textarea[name=signed]').value ||"
            " document.querySelector('output[name=problems]').textContent ||"
            " document.getElementById('key-message').textContent;"
        )
        deadline = time.monotonic() + PAGE_WAIT
        while time.monotonic() < deadline:
            shown = str(self.m.execute_script(script))
            if shown:
                return shown
            time.sleep(0.1)
        raise AssertionError("the page showed nothing")

    def attribute(self, css: str, name: str) -> str:
        return str(self.element(css).get_attribute(name) or "")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until Firefox listens on ``port`` (a minute at most)."""
    for _ in range(600):
        if process.poll() is not None:
            raise AssertionError(f"firefox-esr ended at its start ({process.returncode})")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("firefox-esr did not listen for Marionette within a minute")


@pytest.fixture(scope="module")
def firefox() -> Iterator[Firefox]:
    binary = require_tool("firefox-esr", "the signing pages must work in Firefox too")
    from marionette_driver.marionette import Marionette

    port = _free_port()
    with tempfile.TemporaryDirectory() as profile:
        Path(profile, "user.js").write_text(f'user_pref("marionette.port", {port});\n')
        process = subprocess.Popen(
            [binary, "--headless", "--marionette", "--no-remote", "--profile", profile],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(port, process)  # marionette-driver's own wait leaks a socket a try
            marionette = Marionette(host="127.0.0.1", port=port, startup_timeout=60)
            marionette.start_session()
            yield Firefox(marionette)
            marionette.delete_session()
        finally:
            process.terminate()
            process.wait(timeout=30)
