"""The HTML reports opened in a real headless Chromium: no console errors, every picture drawn,
a screenshot of each kept in test-artefacts/."""

from __future__ import annotations

import base64
import email
import email.policy
import re
import tempfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from adjudicator.engine import open_game
from adjudicator.store.registry import game_names
from tests.browser import Browser, running_chromium
from tests.helpers import DEMO_NO_SITE, Table, run

pytestmark = pytest.mark.slow  # a real Chromium (`make quick` leaves it out)


def look(browser: Browser, page: Path, name: str) -> str:
    """Open ``page``; no errors, every picture loaded and drawn; a screenshot; its text."""
    browser.errors()  # what an earlier page left
    browser.open(page)
    pictures = browser.pictures()
    assert pictures, "a report shows its pictures"
    for picture in pictures:
        assert picture["complete"] and picture["width"] > 0 and picture["height"] > 0, picture
        assert picture["alt"]
    assert browser.errors() == []
    assert browser.screenshot(name).stat().st_size > 0
    return browser.text()


@pytest.mark.parametrize("game", sorted(game_names()))
def test_report_format_html_in_chromium(browser: Browser, tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    page = tmp_path / "report.html"
    result = run("report", table.gamedir, "--player", table.names[0], "--format", "html")
    assert result.exit_code == 0, result.output
    page.write_text(result.output, encoding="utf-8")
    text = look(browser, page, f"report-{game}")
    assert table.names[0] in text


@pytest.mark.parametrize("game", sorted(game_names()))
def test_the_report_mails_page_in_chromium(browser: Browser, tmp_path: Path, game: str) -> None:
    """The mail's HTML part, its cid: pictures replaced by data: URIs of the mail's parts (a
    browser opening a file cannot follow cid:, a mail client does)."""
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    assert run("send", table.gamedir).exit_code == 0
    for path in sorted((table.gamedir / "outbox").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        if "report for" not in str(message["Subject"]):
            continue
        body = message.get_body(("html",))
        assert body is not None
        html = str(body.get_content())
        parts = {
            str(part["Content-ID"]).strip("<>"): part.get_content()
            for part in message.walk()
            if part.get_content_type() == "image/png"
        }

        def inline(match: re.Match[str], parts: dict[str, bytes] = parts) -> str:
            data = base64.b64encode(parts[match.group(1)]).decode("ascii")
            return f'src="data:image/png;base64,{data}"'

        page = tmp_path / "mail.html"
        page.write_text(re.sub(r'src="cid:([^"]+)"', inline, html), encoding="utf-8")
        look(browser, page, f"mail-{game}")
        return
    pytest.fail("no report mail was sent")


@pytest.mark.parametrize(("game", "lang"), [("sultan", "de"), ("sultans_court", "fr")])
def test_the_final_report_in_another_language(
    browser: Browser, tmp_path: Path, game: str, lang: str
) -> None:
    folder = tmp_path / "demo"
    result = run(*DEMO_NO_SITE, game, "--seed", "3", "--dir", folder, "--lang", lang)
    assert result.exit_code == 0, result.output
    page = tmp_path / "final.html"
    report = run("report", folder / "game", "--public", "--format", "html")
    assert report.exit_code == 0, report.output
    page.write_text(report.output, encoding="utf-8")
    look(browser, page, f"final-{game}-{lang}")


@pytest.mark.parametrize("game", sorted(game_names()))
def test_the_site_in_chromium(browser: Browser, tmp_path: Path, game: str) -> None:
    folder = tmp_path / "demo"
    assert run(*DEMO_NO_SITE, game, "--seed", "4", "--dir", folder).exit_code == 0
    site = tmp_path / "site"
    result = run("site", folder / "game", "-o", site)
    assert result.exit_code == 0, result.output
    browser.errors()
    browser.open(site / "index.html")
    assert browser.errors() == []
    charts = browser.driver.execute_script("return document.querySelectorAll('svg').length;")
    lines = browser.driver.execute_script(
        "return document.querySelectorAll('svg polyline.series').length;"
    )
    assert charts >= 1 and lines == charts * len(open_game.OpenGame(folder / "game").players)
    browser.screenshot(f"site-{game}-index")
    look(browser, site / "turn-0003.html", f"site-{game}-turn-0003")


@pytest.mark.seconds  # a Chromium of its own
def test_chromium_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium ended by its driver leaves the folder of its lock behind in the temporary
    folder (a run's worth of them in the suite's folder in memory): the browser of the tests
    keeps its temporary files in a folder of its own, removed with it."""
    # beside the suite's own temporary folders, not inside one: the path of Chromium's lock
    # socket must stay short (108 bytes at most)
    with tempfile.TemporaryDirectory(prefix="t-") as folder:
        outer = Path(folder)
        monkeypatch.setenv("TMPDIR", folder)
        monkeypatch.setattr(tempfile, "tempdir", folder)
        page = tmp_path / "page.html"
        page.write_text("<!DOCTYPE html><title>t</title><p>here</p>", encoding="utf-8")
        with running_chromium() as browser:
            browser.open(page)
            assert browser.text() == "here"
            assert list(outer.iterdir()) != []  # its own folder, while it runs
        assert list(outer.iterdir()) == []
