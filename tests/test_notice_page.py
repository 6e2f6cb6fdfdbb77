"""The notice page attached to each welcome mail, in a real Chromium: a player writes press, an
absence or a vote, signs it with their OpenSSH key file, and the signed text pasted into a mail
is taken by ``ingest`` and verifies with ``ssh-keygen -Y verify`` (docs/order-page.md)."""

from __future__ import annotations

import email.policy
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser import PAGE_WAIT, Browser
from tests.helpers import Table, run
from tests.test_order_page import BEGIN, verifies, write_config

pytestmark = pytest.mark.slow


def notice_pages(table: Table, config: Path) -> dict[str, tuple[Path, str]]:
    """``send`` the welcomes; each player's notice page as attached, saved, with its mail's
    Message-ID."""
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    parser = BytesParser(policy=email.policy.default)
    found = {}
    for path in sorted((table.gamedir / "outbox").glob("*welcome-*.eml")):
        mail = parser.parsebytes(path.read_bytes())
        assert isinstance(mail, EmailMessage)
        for part in mail.iter_attachments():
            name = part.get_filename() or ""
            if not name.endswith(".html"):  # the player's guide goes along
                continue
            player = name.removeprefix(f"{table.setup['id']}-notices-").removesuffix(".html")
            saved = table.root / "pages" / name
            saved.parent.mkdir(exist_ok=True)
            saved.write_bytes(part.get_payload(decode=True))
            found[player] = (saved, str(mail["Message-ID"]))
    return found


def write(browser: Browser, page: Path, kind: str, values: dict[str, Any], key: Path) -> str:
    """Open ``page``, choose ``kind``, fill in ``values`` and sign: the signed text, or the
    problems shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.open(page)
    driver = browser.driver
    Select(driver.find_element(By.NAME, "kind")).select_by_value(kind)
    for name, value in values.items():
        if name == "press.to":
            for who in value:
                driver.find_element(By.CSS_SELECTOR, f"input[name='press.to'][value={who}]").click()
        elif name == "vote":
            Select(driver.find_element(By.NAME, "vote")).select_by_value(value)
        elif name.startswith("absence.") or name == "press.text":  # as given (no typing: a
            # date input takes the date in the page's locale, keys drop control characters)
            driver.execute_script(
                "arguments[0].value = arguments[1]", driver.find_element(By.NAME, name), value
            )
        else:
            driver.find_element(By.NAME, name).send_keys(value)
    driver.find_element(By.NAME, "key").send_keys(str(key.resolve()))
    driver.find_element(By.NAME, "sign").click()
    WebDriverWait(driver, PAGE_WAIT).until(
        lambda d: (
            d.find_element(By.NAME, "signed").get_property("value")
            or d.find_element(By.NAME, "problems").text
        )
    )
    assert browser.errors() == []
    signed = driver.find_element(By.NAME, "signed").get_property("value")
    return str(signed or driver.find_element(By.NAME, "problems").text)


def test_notices_signed_in_the_page_are_taken_by_ingest(browser: Browser, tmp_path: Path) -> None:
    """Press to chosen players (several lines, quotes and accents), an absence and a vote,
    each signed in the page, verify with ssh-keygen and are taken from a pasted mail."""
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=3, press="private", absence="extend")
    config = write_config(tmp_path)
    pages = notice_pages(table, config)
    assert sorted(pages) == sorted(table.names)
    page, welcome_id = pages["alice"]
    text = 'Shall we leave the "blue" jewel\nto carol? Très bien: #1'
    # lines a pasted mail would read as a signature's armor: they arrive as written
    armored = "Quoting:\n-----BEGIN SSH SIGNATURE-----\nnot one\n-----END SSH SIGNATURE-----"
    notices = [
        ("press", {"press.to": ["bob"], "press.text": text}),
        ("press", {"press.to": ["carol"], "press.text": armored}),
        ("absence", {"absence.from": "2099-12-24", "absence.to": "2100-01-02"}),
        ("vote", {"vote": "draw"}),
    ]
    for number, (kind, values) in enumerate(notices):
        signed = write(browser, page, kind, values, table.keys["alice"])
        assert signed.startswith("id: cairo-2026\nplayer: alice\n"), signed
        assert BEGIN in signed
        verifies(table, "alice", signed, tmp_path / kind)
        mailto = browser.driver.find_element(By.NAME, "mailto").get_attribute("href") or ""
        assert f"&In-Reply-To={quote(welcome_id, safe='')}&" in mailto
        message = EmailMessage()
        message["From"] = "alice@example.org"
        message["To"] = "gm-bot@example.org"
        message["Subject"] = "[cairo-2026] notice"
        message["Message-ID"] = f"<notice{number}@mail>"
        message.set_content(f"Hello,\n\n{signed}\n-- \nalice\n")
        raw = message.as_bytes(policy=email.policy.SMTP)
        result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
        assert result.output == f"<notice{number}@mail> cairo-2026 alice - accepted\n", kind
    kept = sorted((table.gamedir / "notices").rglob("*.yaml"))
    assert [p.parent.name for p in kept] == ["absence", "press", "press", "vote"]
    import yaml

    for number, (to, said) in enumerate([("bob", text), ("carol", armored)], 1):
        press = (table.gamedir / "notices" / "press" / f"{number:04d}.yaml").read_text()
        assert yaml.safe_load(press)["press"] == {"to": [to], "text": said}


def test_the_page_offers_only_what_the_game_takes(browser: Browser, tmp_path: Path) -> None:
    """No press and no absence where the game takes none; an unfinished notice is named."""
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=3, press="none", absence="none")
    page, _ = notice_pages(table, write_config(tmp_path))["bob"]
    browser.open(page)
    kinds = browser.driver.find_elements(By.CSS_SELECTOR, "select[name=kind] option")
    assert [k.get_attribute("value") for k in kinds] == ["vote"]
    open_game = Table(tmp_path / "open", players=3, press="public", absence="extend")
    page, _ = notice_pages(open_game, write_config(tmp_path / "open"))["bob"]
    said = write(browser, page, "press", {}, open_game.keys["bob"])
    assert said == "Write the text of your press."
    boxes = browser.driver.find_elements(By.CSS_SELECTOR, "input[name='press.to']")
    assert [b.get_attribute("value") for b in boxes] == ["all"]  # public press: to all alone
    said = write(browser, page, "absence", {"absence.from": "2099-12-24"}, open_game.keys["bob"])
    assert said == "Give the first and the last day of your absence."
    for refused in ("bell\u0007", "a\u2029b", "a\u2028b", "a\ufdd0b", "a\U0001fffeb"):
        said = write(browser, page, "press", {"press.text": refused}, open_game.keys["bob"])
        assert said.startswith("Your press holds a character the adjudicator refuses"), refused
    # the length as the adjudicator counts it: characters, not the browser's UTF-16 units
    said = write(browser, page, "press", {"press.text": "a" * 8001}, open_game.keys["bob"])
    assert said == "Your press is longer than 8000 characters: shorten it."
    longest = "\U0001f600" * 4000 + "a" * 4000
    signed = write(browser, page, "press", {"press.text": longest}, open_game.keys["bob"])
    assert BEGIN in signed, signed[:200]


def pasted_notice(signed: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = "alice@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "[cairo-2026] notice"
    message["Message-ID"] = f"<again{number}@mail>"
    message.set_content(f"Hello,\n\n{signed}\n-- \nalice\n")
    return message.as_bytes(policy=email.policy.SMTP)


def test_a_vote_changed_back_in_the_page_is_taken_not_refused_as_a_replay(
    browser: Browser, tmp_path: Path
) -> None:
    """Draw, then none, then draw again: the page dates each signing, so the last is new
    bytes; the same bytes as the first would be refused as a replay (so that nobody can send
    again a vote its player withdrew) and leave the vote withdrawn."""
    table = Table(tmp_path, players=3)
    config = write_config(tmp_path)
    page, _ = notice_pages(table, config)["alice"]
    votes = []
    for number, vote in enumerate(["draw", "none", "draw"]):
        signed = write(browser, page, "vote", {"vote": vote}, table.keys["alice"])
        assert re.search(r"\n# signed \d{4}-\d\d-\d\dT[\d:.]+Z\n-----BEGIN", signed), signed
        votes.append(signed)
        result = run(
            "ingest", table.gamedir, "--config", config, input=pasted_notice(signed, number)
        )  # type: ignore[arg-type]
        assert result.output == f"<again{number}@mail> cairo-2026 alice - accepted\n", vote
    assert votes[0] != votes[2]


def test_a_share_made_in_the_page_is_taken_and_the_last_deals(
    browser: Browser, tmp_path: Path
) -> None:
    """A game that asks for shares: the request mail attaches a page that draws the share and
    signs it; pasted into a mail, ingest takes it, and the last share deals."""
    import email.policy
    from email.parser import BytesParser

    table = Table(tmp_path, players=2, schedule={"shares": "ask"})
    config = write_config(tmp_path)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    for number, name in enumerate(table.names):
        raw = next((table.gamedir / "outbox").glob(f"*share-{name}.eml")).read_bytes()
        mail = parser.parsebytes(raw)
        [page] = [a for a in mail.iter_attachments() if str(a.get_filename()).endswith(".html")]
        saved = tmp_path / str(page.get_filename())
        saved.write_bytes(page.get_payload(decode=True))
        signed = write(browser, saved, "share", {}, table.keys[name])
        assert re.match(rf'id: cairo-2026\nplayer: {name}\nshare: "[0-9a-f]{{32}}"\n', signed)
        verifies(table, name, signed, tmp_path / name)
        message = EmailMessage()
        message["From"] = f"{name}@example.org"
        message["To"] = "gm-bot@example.org"
        message["Subject"] = "Re: share"
        message["Message-ID"] = f"<share{number}@mail>"
        message.set_content(f"Here:\n\n{signed}")
        result = run(
            "ingest",
            table.gamedir,
            "--config",
            config,
            input=message.as_bytes(policy=email.policy.SMTP),
        )  # type: ignore[arg-type]
        assert result.output.endswith("accepted\n"), result.output
    assert table.status()["turn"] == 1  # dealt
