"""The join page ``open`` writes beside the announcement, in a real Chromium: a player fills in
their name and address, chooses their ssh-keygen key file (or makes a key in the page) and signs;
the signed join pasted into a mail is taken by ``ingest`` and verifies with ``ssh-keygen -Y
verify`` (docs/join-page.md)."""

from __future__ import annotations

import email.policy
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import yaml

from tests.browser import PAGE_WAIT, Browser
from tests.helpers import SEED, run
from tests.ssh import pub_line, ssh_keygen
from tests.test_order_page import BEGIN
from tests.test_signup import OpenTable, lines

CSP_META = (
    '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; '
    "script-src &#39;unsafe-inline&#39;; style-src &#39;unsafe-inline&#39;; "
    'img-src data:">'
)
JOIN = re.compile(
    r'id: bazaar\njoin:\n  name: (\S+)\n  email: "([^"]+)"\n  lang: (en|de|nl|fr)\n'
    r'(?:  tz: "[^"]+"\n)?  key: "(ssh-ed25519 [A-Za-z0-9+/=]+(?: [^"]*)?)"\n'
    r'  share: "([0-9a-f]{32})"\n\Z'
)


def page_of(table: OpenTable) -> Path:
    """The join page ``open`` wrote beside the game's folder."""
    page = table.gamedir.parent / "bazaar-join.html"
    assert page.is_file()
    return page


def join(
    browser: Browser, page: Path, values: dict[str, str], key: Path | None = None
) -> dict[str, str]:
    """Open ``page``, fill in ``values`` (``lang`` chosen), choose the key file ``key`` (none:
    the page's own, made first if ``values`` say ``make-key``) and sign: what the page shows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.open(page)
    driver = browser.driver
    for name, value in values.items():
        if name == "lang":
            Select(driver.find_element(By.NAME, "lang")).select_by_value(value)
        elif name == "make-key":
            driver.find_element(By.NAME, "make-key").click()
            WebDriverWait(driver, PAGE_WAIT).until(
                lambda d: d.find_element(By.NAME, "private-key").get_property("value")
            )
        else:
            driver.find_element(By.NAME, name).send_keys(value)
    if key is not None:
        driver.find_element(By.NAME, "key").send_keys(str(key.resolve()))
    driver.find_element(By.NAME, "sign").click()
    WebDriverWait(driver, PAGE_WAIT).until(
        lambda d: (
            d.find_element(By.NAME, "signed").get_property("value")
            or d.find_element(By.NAME, "problems").text
            or d.find_element(By.ID, "key-message").text
        )
    )
    assert browser.errors() == []
    shown = {
        name: str(driver.find_element(By.NAME, name).get_property("value") or "")
        for name in ("signed", "private-key", "public-key")
    }
    shown["problems"] = driver.find_element(By.NAME, "problems").text
    shown["key"] = driver.find_element(By.ID, "key-message").text
    for link in ("mailto", "download"):
        shown[link] = str(driver.find_element(By.NAME, link).get_attribute("href") or "")
    return shown


def verifies(signed: str, name: str, public: str, work: Path) -> None:
    """``ssh-keygen -Y verify`` takes the join's signature by ``public`` (a .pub line)."""
    text, signature = signed.split(BEGIN)
    work.mkdir(parents=True, exist_ok=True)
    (work / "allowed").write_text(f"{name} {public}\n")
    (work / "join.yaml.sig").write_text(BEGIN + signature)
    done = ssh_keygen(
        "-Y", "verify", "-f", work / "allowed", "-I", name, "-n", "adjudicator-orders",
        "-s", work / "join.yaml.sig", stdin=text.encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def pasted(table: OpenTable, sender: str, signed: str, file: str | None = None) -> str:
    """``signed`` pasted into a mail from ``sender`` (or attached as the file ``file``, as the
    page's download gives it), ingested: the output."""
    table.mails += 1
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "[bazaar] join"
    message["Message-ID"] = f"<join{table.mails}@mail.example.org>"
    if file is None:
        message.set_content(f"Hello,\n\nhere is my join:\n\n{signed}\n-- \nme\n")
    else:
        message.set_content("Hello, my join is attached.\n")
        message.add_attachment(signed.encode(), "text", "plain", filename=file)
    raw = message.as_bytes(policy=email.policy.SMTP).decode()
    result = run("ingest", table.gamedir, "--config", table.config, input=raw)
    assert result.exit_code in (0, 75), result.output
    return result.output


@pytest.mark.slow
def test_a_join_signed_in_the_page_with_a_key_file_is_taken(
    browser: Browser, tmp_path: Path
) -> None:
    """A join from the page, with an ssh-keygen key file: the file ``adjudicator join`` writes,
    signed by the key it carries; pasted into a mail it is taken, and the address confirmed
    takes a seat in the language chosen."""
    table = OpenTable(tmp_path, seats=3)
    assert "bazaar-join.html" in table.announcement
    values = {"name": "alice", "email": "alice@example.org", "lang": "de", "tz": "Europe/Berlin"}
    shown = join(browser, page_of(table), values, table.keys["alice"])
    assert shown["problems"] == "" and shown["key"] == ""
    signed = shown["signed"]
    text = signed.split(BEGIN)[0]
    found = JOIN.match(text)
    assert found, signed
    assert found.groups()[:4] == ("alice", "alice@example.org", "de", pub_line(table.keys["alice"]))
    assert yaml.safe_load(text)["join"]["tz"] == "Europe/Berlin"
    verifies(signed, "alice", pub_line(table.keys["alice"]), tmp_path / "check")
    assert shown["mailto"].startswith("mailto:gm-bot@example.org?subject=%5Bbazaar%5D%20join&body=")
    assert unquote(shown["mailto"].split("&body=", 1)[1]) == signed
    assert unquote(shown["download"].split(",", 1)[1]) == signed
    assert pasted(table, "alice@example.org", signed) == (
        "<join1@mail.example.org> bazaar alice - accepted\n"
    )
    [joined] = [j for line in lines(table) for j in line.get("joins") or []]
    assert joined["share"] == found.group(5) and joined["lang"] == "de"
    assert joined["tz"] == "Europe/Berlin"
    assert "alice seated" in table.confirm("alice")
    assert table.status()["seats"]["taken"] == ["alice"]
    # the downloaded file, attached to a mail, is taken as well
    shown = join(
        browser,
        page_of(table),
        {"name": "carol", "email": "carol@example.org"},
        table.keys["carol"],
    )
    assert 'download="bazaar-join.yaml"' in browser.driver.page_source
    downloaded = unquote(shown["download"].split(",", 1)[1])
    said = pasted(table, "carol@example.org", downloaded, "bazaar-join.yaml")
    assert said.endswith(" bazaar carol - accepted\n"), said


@pytest.mark.slow
def test_a_key_made_in_the_page_signs_a_join_that_is_taken(
    browser: Browser, tmp_path: Path
) -> None:
    """No key file: the key made in the page signs, and is the one ssh-keygen reads from the
    private key file it shows to keep."""
    table = OpenTable(tmp_path, seats=2)
    values = {"name": "bob", "email": "bob@example.org", "make-key": ""}
    shown = join(browser, page_of(table), values)
    private, public = shown["private-key"], shown["public-key"].strip()
    assert private.startswith("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    kept = tmp_path / "bazaar-key"
    kept.write_text(private)
    kept.chmod(0o600)
    derived = ssh_keygen("-y", "-f", kept)
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.decode().split()[:2] == public.split()[:2]
    found = JOIN.match(shown["signed"].split(BEGIN)[0])
    assert found, shown["signed"]
    assert found.group(1) == "bob" and found.group(3) == "en"  # the game's language
    assert found.group(4) == public and public.endswith(" bob@bazaar")
    verifies(shown["signed"], "bob", public, tmp_path / "check")
    assert pasted(table, "bob@example.org", shown["signed"]).endswith(" bob - accepted\n")
    # the key kept signs what the game takes next: a second join from the same page refused
    # as a name taken, not as a bad signature
    again = join(browser, page_of(table), {"name": "bob", "email": "bob@example.org"}, kept)
    assert again["signed"] and again["signed"] != shown["signed"]  # a share of its own
    said = pasted(table, "bob@example.org", again["signed"])
    assert "bob - refused" in said, said


@pytest.mark.slow
def test_a_bad_join_is_named_and_not_signed(browser: Browser, tmp_path: Path) -> None:
    table = OpenTable(tmp_path, seats=2)
    page = page_of(table)
    key = table.keys["carol"]
    cases = [
        ({"name": "9lives", "email": "carol@example.org"}, key, ["Your name must be"]),
        ({"name": "carol.s", "email": "carol@example.org"}, key, ["Your name must be"]),
        ({"name": "GM", "email": "carol@example.org"}, key, ["The names gm, public and all"]),
        ({"name": "carol", "email": "carol.example.org"}, key, ["Give the mail address"]),
        ({"name": "carol", "email": "carol@example.org", "tz": "Mars/Olympus"}, key,
         ["This time zone is unknown"]),
        ({"name": "carol", "email": "carol@example.org"}, None, ["Choose your private key file"]),
        # what the adjudicator refuses, though a browser takes it
        ({"name": "jorg", "email": "jörg@example.org"}, key, ["Give the mail address"]),
        ({"name": "dave", "email": "dave@example..org"}, key, ["Give the mail address"]),
        ({"name": "erin", "email": "erin@exa_mple.org"}, key, ["Give the mail address"]),
        ({"name": "erin", "email": "a=?utf-8?q?x?=@example.org"}, key, ["Give the mail address"]),
        ({"name": "carol", "email": "carol@example.org", "tz": "utc"}, key,
         ["This time zone is unknown"]),
        ({"name": "carol", "email": "carol@example.org", "tz": "europe/berlin"}, key,
         ["This time zone is unknown"]),
        ({"name": "carol", "email": "carol@example.org", "tz": "+01:00"}, key,
         ["This time zone is unknown"]),
        ({"name": "all", "email": "nobody"}, None,
         ["The names gm, public and all", "Give the mail address", "Choose your private key"]),
    ]  # fmt: skip
    for values, file, said in cases:
        shown = join(browser, page, values, file)
        assert shown["signed"] == "" and shown["mailto"] == "", values
        problems = shown["problems"].splitlines()
        assert len(problems) == len(said), problems
        assert all(p.startswith(s) for p, s in zip(problems, said, strict=True)), problems
    text = tmp_path / "not-a-key"
    text.write_text("hello\n")
    shown = join(browser, page, {"name": "carol", "email": "carol@example.org"}, text)
    assert shown["signed"] == "" and "not an OpenSSH private key" in shown["key"]


@pytest.mark.slow
def test_the_page_allows_no_connection_and_holds_no_secret(
    browser: Browser, tmp_path: Path
) -> None:
    """The policy is in force (a connection is refused by the browser itself), the page holds
    the seed's commitment and never the seed, and shows the game as the announcement does."""
    table = OpenTable(tmp_path, seats={"min": 2, "max": 4}, seated=1)
    page = page_of(table)
    html = page.read_text()
    assert CSP_META in html
    assert not re.search(r"(src|href)=\"(https?:|//)", html)
    assert SEED not in html and SEED.upper() not in html
    assert "gm@example.org" not in html  # the game master's own address (the mail settings')
    [created] = lines(table)
    assert created["commitment"] in html
    browser.open(page)
    browser.screenshot("join-page")
    text = browser.text()
    assert "Sultan bazaar: join the game" in text
    assert "Seats: 2 to 4." in text and "Seated already: alice." in text
    refused = browser.driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "document.addEventListener('securitypolicyviolation', function (e) {"
        "  done(e.effectiveDirective); });"
        "fetch('http://127.0.0.1:9/').catch(function () {});"
    )
    assert refused == "connect-src"
    browser.errors()  # the refusal is logged: nothing else to see


def test_open_writes_the_page_where_page_says_in_the_games_language(tmp_path: Path) -> None:
    setup: dict[str, Any] = {
        "game": "sultan", "id": "bazaar", "seed": SEED, "players": [], "seats": 3, "lang": "de",
    }  # fmt: skip
    (tmp_path / "setup.yaml").write_text(yaml.safe_dump(setup))
    page = tmp_path / "posted" / "beitreten.html"
    page.parent.mkdir()
    result = run("open", tmp_path / "game", "--setup", tmp_path / "setup.yaml", "--page", page)
    assert result.exit_code == 0, result.output
    assert f"{page}: the join page" in result.stderr
    assert "beitreten.html" in result.stdout
    assert not (tmp_path / "bazaar-join.html").exists()
    html = page.read_text()
    assert '<html lang="de">' in html
    assert '<option value="de" selected>Deutsch</option>' in html
    assert "der Partie beitreten" in html and "Deine Mail-Adresse" in html
    # without --page: beside the game's folder, and said so
    result = run("open", tmp_path / "other" / "game", "--setup", tmp_path / "setup.yaml")
    assert result.exit_code == 0, result.output
    beside = tmp_path / "other" / "bazaar-join.html"
    assert f"{beside}: the join page" in result.stderr and beside.is_file()
    assert "bazaar-join.html" in result.stdout
    # a page that cannot be written: the game is open all the same, announced without it
    nowhere = tmp_path / "missing" / "page.html"
    result = run("open", tmp_path / "third", "--setup", tmp_path / "setup.yaml", "--page", nowhere)
    assert result.exit_code == 0, result.output
    assert f"{nowhere}: the join page could not be written" in result.stderr
    assert ".html" not in result.stdout and not nowhere.parent.exists()
    assert run("status", tmp_path / "third").exit_code == 0
