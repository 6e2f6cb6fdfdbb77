"""A real headless Chromium (Debian's ``chromium`` and ``chromedriver``, driven by Selenium with
explicit paths: never a downloaded browser or driver) to open the pages players and spectators
see, with what the tests need to check them: the console's errors, whether every picture was
drawn, and a screenshot kept as an artefact in ``test-artefacts/`` (ignored by git).

The fixture ``browser`` is registered for every test module by tests/conftest.py: one Chromium
for the whole run of a test process (a test module names it as an argument, and does not import
it: a module that did would start a browser of its own)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.tools import require_tool

PAGE_WAIT = 60
"""Seconds a test waits for a page to show what it computes (a signature, its problems): it
takes milliseconds, but a loaded machine may starve the browser for seconds."""

ARTEFACTS = Path(__file__).resolve().parent.parent / "test-artefacts"


class Browser:
    """One headless Chromium session."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def open(self, path: Path) -> None:
        self.driver.get(path.resolve().as_uri())

    def choose(self, name: str, value: str) -> None:
        """Choose ``value`` in the ``<select>`` named ``name`` by clicking its option, as
        Selenium's ``Select.select_by_value`` does (an option chosen already is not clicked
        again), in two calls to the browser instead of its seven (an order page has a dozen
        controls): the script finds the option and tells whether it is chosen already."""
        option = self.driver.execute_script(
            "const control = document.getElementsByName(arguments[0])[0];"
            "if (!control || control.tagName !== 'SELECT') return null;"
            "const found = Array.from(control.options).find("
            "  (o) => o.value === arguments[1] && !o.disabled);"
            "return found ? (found.selected ? 'chosen' : found) : null;",
            name,
            value,
        )
        assert option is not None, f"no choice {value!r} to make in {name!r}"
        if option != "chosen":
            option.click()

    def errors(self) -> list[str]:
        """The console's errors and warnings since the last call (failed loads among them)."""
        return [
            str(entry["message"])
            for entry in self.driver.get_log("browser")
            if entry["level"] in ("SEVERE", "WARNING")
        ]

    def pictures(self) -> list[dict[str, Any]]:
        """Each ``<img>``: its source (shortened), whether it loaded, and its drawn size."""
        found: list[dict[str, Any]] = self.driver.execute_script(
            "return Array.from(document.images).map(function (img) {"
            "  return {src: img.getAttribute('src').slice(0, 60), complete: img.complete,"
            "          width: img.naturalWidth, height: img.naturalHeight, alt: img.alt}; });"
        )
        return found

    def text(self) -> str:
        return str(self.driver.execute_script("return document.body.innerText;"))

    def screenshot(self, name: str) -> Path:
        """A screenshot of the whole page, kept as an artefact of the run."""
        ARTEFACTS.mkdir(exist_ok=True)
        path = ARTEFACTS / f"{name}.png"
        height = int(self.driver.execute_script("return document.body.scrollHeight;"))
        self.driver.set_window_size(900, min(max(height + 40, 600), 8000))
        self.driver.save_screenshot(str(path))
        return path


@contextmanager
def running_chromium() -> Iterator[Browser]:
    """A headless Chromium, ended on leaving; it and its driver keep their temporary files (the
    folder of Chromium's lock, which a Chromium ended by its driver leaves behind) in a folder
    of their own, removed with them."""
    chromium = require_tool("chromium", "the HTML pages are opened in a real browser")
    driver_path = require_tool("chromedriver", "Selenium drives Chromium through it")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument("--window-size=900,1200")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with tempfile.TemporaryDirectory(prefix="chromium-", ignore_cleanup_errors=True) as own:
        service = Service(executable_path=driver_path, env={**os.environ, "TMPDIR": own})
        driver = webdriver.Chrome(service=service, options=options)
        try:
            yield Browser(driver)
        finally:
            driver.quit()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with running_chromium() as found:
        yield found
