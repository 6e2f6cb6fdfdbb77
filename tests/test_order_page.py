"""The order page attached to each report mail, in a real Chromium: a player fills it in, signs
with their OpenSSH key file, and the signed text pasted into a reply is taken by ``ingest`` and
verifies with ``ssh-keygen -Y verify`` (docs/order-page.md)."""

from __future__ import annotations

import base64
import email.policy
import json
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
import yaml

from tests.browser import PAGE_WAIT, Browser
from tests.helpers import Table, run
from tests.ssh import make_key, ssh_keygen

pytestmark = pytest.mark.slow

BEGIN = "-----BEGIN SSH SIGNATURE-----"


def write_config(root: Path) -> Path:
    path = root / "mail.toml"
    path.write_text('[mail]\nfrom = "Cairo <gm-bot@example.org>"\ngm = "gm@example.org"\n')
    return path


def pages(table: Table, config: Path) -> dict[str, Path]:
    """``send`` the reports; each player's order page as attached to their mail, saved."""
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    parser = BytesParser(policy=email.policy.default)
    turn = table.status()["turn"]
    found = {}
    for path in sorted((table.gamedir / "outbox").glob("*.eml")):
        mail = parser.parsebytes(path.read_bytes())
        assert isinstance(mail, EmailMessage)
        for part in mail.iter_attachments():
            name = part.get_filename() or ""
            if name.endswith(".html") and f"-turn{turn}-" in name:
                player = name.rsplit("-", 1)[1].removesuffix(".html")
                names = [a.get_filename() for a in mail.iter_attachments()]
                assert name.removesuffix(".html") + ".yaml" in names  # beside its form
                saved = table.root / "pages" / name
                saved.parent.mkdir(exist_ok=True)
                saved.write_bytes(part.get_payload(decode=True))
                found[player] = saved
                REPORT_IDS[saved] = str(mail["Message-ID"])
    return found


REPORT_IDS: dict[Path, str] = {}
"""Each saved page's report mail's Message-ID."""


def controls(body: dict[str, Any]) -> dict[str, Any]:
    """The page's control names and values for an order body (pardons by their vizir's row)."""
    chosen: dict[str, Any] = {}
    for key, value in body.items():
        if key == "pardon":
            for item in value:
                kind = item["vizir"].split(".")[-1]
                chosen[f"pardon.{['fat', 'small', 'big'].index(kind)}.city"] = item["city"]
        elif isinstance(value, dict):
            chosen.update({f"{key}.{k}": v for k, v in value.items()})
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    chosen.update({f"{key}.{i}.{k}": v for k, v in item.items()})
                else:
                    chosen[f"{key}.{i}"] = item
        else:
            chosen[key] = "none" if value is None else value  # accuse: null is none
    return chosen


def fill(
    browser: Browser, page: Path, body: dict[str, Any], key: Path | None, reopen: bool = True
) -> dict[str, str]:
    """Open ``page`` (unless not ``reopen``: the page as it stands), choose ``body``, give
    ``key`` and press sign: what the page then shows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    if reopen:
        browser.open(page)
    driver = browser.driver
    for name, value in controls(body).items():
        browser.choose(name, json.dumps(value))
    if key is not None and reopen:
        driver.find_element(By.NAME, "key").send_keys(str(key.resolve()))
    driver.find_element(By.NAME, "sign").click()

    def settled(d: Any) -> bool:
        return bool(
            d.find_element(By.NAME, "signed").get_property("value")
            or d.find_element(By.NAME, "problems").text
            or d.find_element(By.ID, "key-message").text
        )

    WebDriverWait(driver, PAGE_WAIT).until(settled)
    shown = {
        "signed": driver.find_element(By.NAME, "signed").get_property("value"),
        "problems": driver.find_element(By.NAME, "problems").text,
        "key": driver.find_element(By.ID, "key-message").text,
        "mailto": driver.find_element(By.NAME, "mailto").get_attribute("href") or "",
        "download": driver.find_element(By.NAME, "download").get_attribute("href") or "",
    }
    for name in ("order", "signature"):  # the pair as two files: what the links download
        href = driver.find_element(By.NAME, f"download-{name}").get_attribute("href") or ","
        shown[name] = unquote(href.split(",", 1)[1])
    assert browser.errors() == []
    return shown


def verifies(table: Table, player: str, signed: str, work: Path) -> None:
    """``ssh-keygen -Y verify`` accepts the signed text's signature for its order."""
    order, signature = signed.split(BEGIN)
    work.mkdir(parents=True, exist_ok=True)
    (work / "order.yaml").write_text(order)
    (work / "order.yaml.sig").write_text(BEGIN + signature)
    pub = Path(f"{table.keys[player]}.pub").read_text()
    (work / "allowed").write_text(f"{player} {pub}")
    done = ssh_keygen(
        "-Y", "verify", "-f", work / "allowed", "-I", player, "-n", "adjudicator-orders",
        "-s", work / "order.yaml.sig", stdin=order.encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def pasted_reply(table: Table, player: str, signed: str) -> bytes:
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = f"Re: [{table.setup['id']}] turn {table.status()['turn']} order"
    message["Message-ID"] = f"<{player}.{abs(hash(signed))}@mail>"
    message.set_content(f"Hello,\n\nhere is my order:\n\n{signed}\n-- \n{player}\n")
    return message.as_bytes(policy=email.policy.SMTP)


def play_from_pages(browser: Browser, table: Table, config: Path, tmp: Path) -> list[str]:
    """Every owed order of this turn made in its page, verified and ingested; the keys they
    gave a value (not empty, not none)."""
    kinds = []
    found = pages(table, config)
    owed = table.status()["owed"]
    assert sorted(found) == sorted(owed)
    for player in owed:
        body = table.legal(player)
        if table.setup["game"] == "sultans_court" and player == next(iter(owed)):
            other = next(p for p in table.names if p != player)
            body["demand"] = [{"from": other, "card": "Ships"}]
            body["pardon"] = [{"vizir": f"{player}.small", "city": "Tabriz"}]
            body["trades"] = [{"with": other, "give": "Gold", "get": "Horses"}]
        shown = fill(browser, found[player], body, table.keys[player])
        assert shown["problems"] == "" and shown["key"] == "", shown
        signed = shown["signed"]
        assert signed.startswith(f"id: {table.setup['id']}\nplayer: {player}\n")
        verifies(table, player, signed, tmp / player)
        assert shown["mailto"].startswith("mailto:gm-bot@example.org?subject=")
        assert "%5Bcairo-2026%5D%20turn%20" in shown["mailto"]
        answered = quote(REPORT_IDS[found[player]], safe="")  # a reply to the report mail
        assert f"&In-Reply-To={answered}&" in shown["mailto"]
        assert unquote(shown["download"].split(",", 1)[1]) == signed
        assert shown["order"] + shown["signature"] == signed
        reply = pasted_reply(table, player, signed)
        result = run("ingest", table.gamedir, "--config", config, input=reply)
        assert result.exit_code == 0, result.output
        assert "accepted" in result.output, result.output
        kinds += [k for k, v in body.items() if v not in ([], {}, None, "none")]
    return kinds


def test_sultan_orders_signed_in_the_page_are_taken_by_ingest(
    browser: Browser, tmp_path: Path
) -> None:
    """Every kind of Sultan order: the start player's return and bids (three players), and a
    two-player sealed game's two bids."""
    kinds: set[str] = set()
    three = Table(tmp_path / "three", players=3)
    config = write_config(tmp_path)
    for turn in range(2):
        kinds |= set(play_from_pages(browser, three, config, tmp_path / f"three-{turn}"))
        result = run("adjudicate", three.gamedir)
        assert result.exit_code == 0, result.output
    two = Table(tmp_path / "two", players=2)
    for turn in range(2):
        kinds |= set(play_from_pages(browser, two, config, tmp_path / f"two-{turn}"))
        run("adjudicate", two.gamedir)
    assert kinds == {"return", "bid", "bids"}


def test_court_orders_signed_in_the_page_are_taken_by_ingest(
    browser: Browser, tmp_path: Path
) -> None:
    table = Table(tmp_path, players=4, game="sultans_court", game_id="cairo-2026")
    config = write_config(tmp_path)
    kinds: set[str] = set()
    for turn in range(3):
        kinds |= set(play_from_pages(browser, table, config, tmp_path / f"t{turn}"))
        result = run("adjudicate", table.gamedir)
        assert result.exit_code == 0, result.output
    assert kinds == {"travel", "accuse", "kaffa", "demand", "pardon", "trades"}


def says_what_check_says(
    browser: Browser,
    table: Table,
    player: str,
    body: dict[str, Any],
    named: dict[str, str] | None = None,
) -> str:
    """The page refuses ``body`` (its keys in the page's order) with the reasons ``check``
    gives for it (without their lines), each as ``named`` says the page names it (where the
    page names a value left out by its control, or a row's reason by its row), and signs
    nothing; the reasons."""
    found = pages(table, write_config(table.root))
    shown = fill(browser, found[player], body, table.keys[player])
    assert shown["signed"] == ""
    order = table.write("refused.yaml", table.order_text(player, body))
    form = table.write("form.yaml", run("form", table.gamedir, "--player", player).output)
    checked = run("check", order, "--form", form)
    assert checked.exit_code == 3, checked.output
    reasons = [re.sub(r"^.*?line \d+: ", "", line).strip() for line in checked.output.splitlines()]
    assert shown["problems"].splitlines() == [(named or {}).get(r, r) for r in reasons]
    return str(shown["problems"])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_page_says_what_check_says(browser: Browser, tmp_path: Path, lang: str) -> None:
    """A refused order gets check's reasons in the page, in the player's language; nothing is
    signed."""
    table = Table(tmp_path, players=2, schedule={"lang": lang})
    table.play_turn()  # the start player's return
    player = next(iter(table.status()["owed"]))
    hand = sorted(table.view(player)["hand"])
    body = {"bids": [{"cushion": 1, "card": hand[0]}, {"cushion": 1, "card": hand[1]}]}
    said = says_what_check_says(browser, table, player, body)
    assert ("cushion 1" in said) == (lang == "en") and ("coussin 1" in said) == (lang == "fr")


def test_the_court_page_says_what_check_says(browser: Browser, tmp_path: Path) -> None:
    """Two vizirs sent to one seat, a trade that gives what it gets, and a demand left half
    filled in below another (whose place in the order file check names)."""
    table = Table(tmp_path, players=4, game="sultans_court")
    table.play_turn()  # round 1: every vizir travels to a city
    player = next(iter(table.status()["owed"]))
    view = table.view(player)
    cities = ("Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan")
    travel: dict[str, Any] = {}
    for kind, mine in view["my_vizirs"].items():
        if isinstance(mine["place"], int):
            travel[kind] = "stay"
        elif mine["place"] in cities or mine["place"] == "reserve":
            travel[kind] = 5
    assert list(travel.values()).count(5) > 1
    others = [p for p in table.names if p != player]
    body: dict[str, Any] = {
        "travel": travel,
        "demand": [{"from": others[0], "card": "Ships"}, {"from": others[1]}],
        "trades": [{"with": others[0], "give": "Gold", "get": "Gold"}],
    }
    swap = "you give and get Gold: a trade swaps two types"
    named = {
        "nothing is given for 'demand[2].card'": "Demand 2, card: choose one",
        swap: f"Trades 1: {swap}",
    }
    said = says_what_check_says(browser, table, player, body, named)
    assert "Demand 2, card: choose one" in said and f"Trades 1: {swap}" in said


def test_the_court_page_notes_what_check_notes(browser: Browser, tmp_path: Path) -> None:
    """A pardon that cannot apply as things stand is legal: the page signs the order and shows
    check's notes on it."""
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=4, game="sultans_court")
    player = next(iter(table.status()["owed"]))
    found = pages(table, write_config(tmp_path))
    body = table.legal(player)
    body["pardon"] = [{"vizir": "small", "city": "Tabriz"}]
    shown = fill(browser, found[player], body, table.keys[player])
    assert shown["problems"] == "" and shown["signed"]
    notes = browser.driver.find_element(By.NAME, "notes").text.splitlines()
    order = table.write("noted.yaml", shown["signed"].split(BEGIN)[0])
    form = table.write("form.yaml", run("form", table.gamedir, "--player", player).output)
    checked = run("check", order, "--form", form)
    assert checked.exit_code == 0, checked.output
    told = [
        re.sub(r"^\s*note: (line \d+: )?", "", line) for line in checked.output.splitlines()[1:]
    ]
    assert notes == told and len(told) == 2


def test_the_court_page_notes_a_trade_of_a_card_not_held_and_a_demand_for_one_held(
    browser: Browser, tmp_path: Path
) -> None:
    """Both are legal standing instructions that may come true by their moment: the page
    signs the order and shows check's notes on them, as check does."""
    from selenium.webdriver.common.by import By

    power = ("Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships")
    table = Table(tmp_path, players=4, game="sultans_court")
    owed = list(table.status()["owed"])
    hands = {p: table.view(p)["hands"][p] for p in owed}
    player = next(p for p in owed if set(hands[p]) & set(power))
    held = next(card for card in power if card in hands[player])
    lacking = [card for card in power if card not in hands[player]]
    other = next(p for p in table.names if p != player)
    found = pages(table, write_config(tmp_path))
    body = table.legal(player)
    body["demand"] = [{"from": other, "card": held}]
    body["trades"] = [{"with": other, "give": lacking[0], "get": lacking[1]}]
    shown = fill(browser, found[player], body, table.keys[player])
    assert shown["problems"] == "" and shown["signed"], shown
    notes = browser.driver.find_element(By.NAME, "notes").text.splitlines()
    order = table.write("noted.yaml", shown["signed"].split(BEGIN)[0])
    form = table.write("form.yaml", run("form", table.gamedir, "--player", player).output)
    checked = run("check", order, "--form", form)
    assert checked.exit_code == 0, checked.output
    told = [
        re.sub(r"^\s*note: (line \d+: )?", "", line) for line in checked.output.splitlines()[1:]
    ]
    assert notes == told and len(told) == 2
    assert notes[0].startswith(f"you hold {held} now: this demand applies only if")
    assert notes[1].startswith(f"you hold no {lacking[0]} now: this trade applies only if")


def unchecked(private: str) -> bytes:
    """An unencrypted Ed25519 key file's bytes with its two random check integers zeroed."""
    lines = private.strip().splitlines()
    data = bytearray(base64.b64decode("".join(lines[1:-1])))
    at = 15 + 8 + 8 + 4 + 4 + 4 + 51 + 4  # magic, none, none, no kdf, one key, public, length
    data[at : at + 8] = bytes(8)
    return bytes(data)


def test_a_key_made_in_the_page_is_openssh_and_signs(browser: Browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = Table(tmp_path, players=3)
    config = write_config(tmp_path)
    found = pages(table, config)
    player = next(iter(table.status()["owed"]))
    browser.open(found[player])
    driver = browser.driver
    driver.find_element(By.NAME, "make-key").click()
    WebDriverWait(driver, PAGE_WAIT).until(
        lambda d: d.find_element(By.NAME, "private-key").get_property("value")
    )
    private = driver.find_element(By.NAME, "private-key").get_property("value")
    public = driver.find_element(By.NAME, "public-key").get_property("value")
    key = tmp_path / "made"
    key.write_text(private)
    key.chmod(0o600)
    derived = ssh_keygen("-y", "-f", key)
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.decode().split()[:2] == public.split()[:2]
    assert public.endswith(f" {player}@cairo-2026\n")
    # the same file, as ssh-keygen would write it for that key (all but the random check ints)
    assert private.startswith("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    assert all(len(line) <= 70 for line in private.splitlines())
    rewritten = tmp_path / "rewritten"
    rewritten.write_text(private)
    rewritten.chmod(0o600)
    done = ssh_keygen("-c", "-C", f"{player}@cairo-2026", "-f", rewritten)
    assert done.returncode == 0, done.stderr
    assert unchecked(rewritten.read_text()) == unchecked(private)
    # a key the game master does not have yet signs nothing that would count
    shown = fill(browser, found[player], table.legal(player), key)
    assert shown["signed"] == "" and "not the key the game master has" in shown["key"]
    replaced = run("replace", table.gamedir, "--player", player, "--key", public.strip())
    assert replaced.exit_code == 0, replaced.output
    page = tmp_path / "new-page.html"
    made = run("form", table.gamedir, "--player", player, "--html", page, "--config", config)
    assert made.exit_code == 0, made.output
    shown = fill(browser, page, table.legal(player), key)
    order, signature = shown["signed"].split(BEGIN)
    (tmp_path / "allowed").write_text(f"{player} {public}")
    (tmp_path / "sig").write_text(BEGIN + signature)
    done = ssh_keygen(
        "-Y", "verify", "-f", tmp_path / "allowed", "-I", player, "-n", "adjudicator-orders",
        "-s", tmp_path / "sig", stdin=order.encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_key_with_a_passphrase_is_met_with_the_ssh_keygen_line(
    browser: Browser, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=3)
    found = pages(table, write_config(tmp_path))
    player = next(iter(table.status()["owed"]))
    locked = tmp_path / "locked"  # the player's own key, with a passphrase
    locked.write_bytes(table.keys[player].read_bytes())
    locked.chmod(0o600)
    done = ssh_keygen("-p", "-f", locked, "-P", "", "-N", "secret words")
    assert done.returncode == 0, done.stderr
    shown = fill(browser, found[player], table.legal(player), locked)
    assert shown["signed"] == ""
    assert "passphrase" in shown["key"]
    hint = browser.driver.find_element(By.ID, "key-passphrase").text
    assert hint.endswith("delete it once you have signed. ssh-keygen -p -f KEY-copy"), hint
    copy = tmp_path / "KEY-copy"  # the hint followed, its answers given as flags
    copy.write_bytes(locked.read_bytes())
    copy.chmod(0o600)
    done = ssh_keygen("-p", "-f", copy, "-P", "secret words", "-N", "")
    assert done.returncode == 0, done.stderr
    shown = fill(browser, found[player], table.legal(player), copy)
    assert shown["signed"] and shown["key"] == "", shown
    public = Path(f"{table.keys[player]}.pub")  # the .pub file chosen by mistake
    shown = fill(browser, found[player], table.legal(player), public)
    assert shown["signed"] == "" and shown["key"].startswith("This is your public key"), shown
    rsa = make_key(tmp_path / "rsa", "rsa", ["-t", "rsa", "-b", "2048"])
    shown = fill(browser, found[player], table.legal(player), rsa)
    assert shown["signed"] == "" and "not an Ed25519 key" in shown["key"]
    assert not browser.driver.find_element(By.ID, "key-passphrase").is_displayed()
    text = tmp_path / "not-a-key"
    text.write_text("hello\n")
    shown = fill(browser, found[player], table.legal(player), text)
    assert shown["signed"] == "" and "not an OpenSSH private key" in shown["key"]


def test_the_page_allows_no_connection(browser: Browser, tmp_path: Path) -> None:
    """The page's policy is in force: a connection it tried would be refused by the browser
    itself, not merely fail."""
    table = Table(tmp_path, players=3)
    found = pages(table, write_config(tmp_path))
    browser.open(next(iter(found.values())))
    refused = browser.driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "document.addEventListener('securitypolicyviolation', function (e) {"
        "  done(e.effectiveDirective); });"
        "fetch('http://127.0.0.1:9/').catch(function () {});"
    )
    assert refused == "connect-src"
    browser.errors()  # the refusal is logged: nothing else to see
    for page in found.values():
        html = page.read_text()
        assert (
            '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; '
            "script-src &#39;unsafe-inline&#39;; style-src &#39;unsafe-inline&#39;; "
            'img-src data:">'
        ) in html
        assert not re.search(r"(src|href)=\"(https?:|//)", html)


def unheaded(page: str) -> str:
    """The page but for the chain head and the Message-ID its mailto: answers (a mail's own)."""
    page = re.sub(r'"answers": (null|"[^"]*")', '"answers": ID', page)
    return re.sub(r'<code class="hash">[0-9a-f]{64}</code>', "HEAD", page)


def test_form_writes_the_page_the_mail_attaches(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    config = write_config(tmp_path)
    found = pages(table, config)
    player = next(iter(table.status()["owed"]))
    out = tmp_path / "page.html"
    result = run("form", table.gamedir, "--player", player, "--html", out, "--config", config)
    assert result.exit_code == 0, result.output
    # the same page, but for the chain head: the mail's is the head before its queuing line
    assert unheaded(out.read_text()) == unheaded(found[player].read_text())
    assert out.read_text() != found[player].read_text()
    other = tmp_path / "other.html"
    result = run("form", table.gamedir, "--player", player, "--html", other, "--address", "x@y.z")
    assert result.exit_code == 0, result.output
    assert '"address": "x@y.z"' in other.read_text()
    idle = next(p for p in table.names if p not in table.status()["owed"])
    result = run("form", table.gamedir, "--player", idle, "--html", tmp_path / "none.html")
    assert result.exit_code != 0 and not (tmp_path / "none.html").exists()


def test_in_a_round_where_every_vizir_travels_the_page_chooses_no_city_for_the_player(
    browser: Browser, tmp_path: Path
) -> None:
    """Round 1 (every vizir travels): a travel list that began on the first city sent all three
    vizirs to Bukhara when the player signed without looking. Now each starts on no city, and
    signing without choosing is refused with check's reasons."""
    table = Table(tmp_path, players=4, game="sultans_court")
    player = next(iter(table.status()["owed"]))
    found = pages(table, write_config(table.root))
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.open(found[player])
    for kind in ("fat", "small", "big"):
        control = browser.driver.find_element(By.NAME, f"travel.{kind}")
        chosen = Select(control).first_selected_option
        assert chosen.get_attribute("value") == "", kind
    said = says_what_check_says(browser, table, player, {"travel": {}, "kaffa": []})
    assert "travel" in said


def problems_shown(browser: Browser, page: Path, chosen: dict[str, Any], key: Path) -> list[str]:
    """The page's reasons after choosing ``chosen`` (control name: value) and pressing sign."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.open(page)
    driver = browser.driver
    for name, value in chosen.items():
        browser.choose(name, json.dumps(value))
    driver.find_element(By.NAME, "key").send_keys(str(key.resolve()))
    driver.find_element(By.NAME, "sign").click()
    WebDriverWait(driver, PAGE_WAIT).until(lambda d: d.find_element(By.NAME, "problems").text)
    assert driver.find_element(By.ID, "problems-heading").is_displayed()
    return list(driver.find_element(By.NAME, "problems").text.splitlines())


def test_the_page_names_a_choice_left_out_by_its_control(browser: Browser, tmp_path: Path) -> None:
    """check names the start player's missing return by its key in the order file; the page
    names the control the player did not choose ("the key 'return' is missing" read as a key
    file)."""
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    found = pages(table, write_config(tmp_path))
    said = problems_shown(browser, found[player], {}, table.keys[player])
    assert said == ["Jewel to return: choose one"]


def test_the_court_page_names_a_row_by_its_place_on_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    """A trade in the page's second row with the first left empty is the first entry of the
    order file: the page names the row the player filled in, not the entry."""
    table = Table(tmp_path, players=4, game="sultans_court")
    table.play_turn()  # round 1: every vizir travels
    player = next(iter(table.status()["owed"]))
    other = next(p for p in table.names if p != player)
    found = pages(table, write_config(tmp_path))
    chosen = {"trades.1.with": other, "trades.1.give": "Gold", "trades.1.get": "Gold"}
    said = problems_shown(browser, found[player], chosen, table.keys[player])
    assert said == ["Trades 2: you give and get Gold: a trade swaps two types"]


def test_the_court_page_takes_more_than_two_demands_and_trades(
    browser: Browser, tmp_path: Path
) -> None:
    """The page offered two demands and two trades, while an order file takes any number: a
    third of each is chosen, signed, and taken by check as it was chosen."""
    table = Table(tmp_path, players=4, game="sultans_court")
    player = next(iter(table.status()["owed"]))
    others = [p for p in table.names if p != player]
    body = table.legal(player)
    body["demand"] = [
        {"from": o, "card": c} for o, c in zip(others, ["Ships", "Gold", "Troops"], strict=True)
    ]
    body["trades"] = [
        {"with": o, "give": give, "get": get}
        for o, (give, get) in zip(
            others, [("Gold", "Horses"), ("Ships", "Cannons"), ("Troops", "Supplies")], strict=True
        )
    ]
    found = pages(table, write_config(tmp_path))
    shown = fill(browser, found[player], body, table.keys[player])
    assert shown["problems"] == "" and shown["signed"], shown
    order = table.write("more.yaml", shown["signed"].split(BEGIN)[0])
    written = yaml.safe_load(order.read_text())
    assert written["demand"] == body["demand"] and written["trades"] == body["trades"]
    form = table.write("form.yaml", run("form", table.gamedir, "--player", player).output)
    checked = run("check", order, "--form", form)
    assert checked.exit_code == 0, checked.output


def test_a_sealed_game_commits_in_the_page_and_reveals_what_it_kept(
    browser: Browser, tmp_path: Path
) -> None:
    """Under commit-reveal the page signs the commitment to send now and the salted order to
    keep: ingest takes the commitment, then, once the reveal opens, the kept order, which
    matches it; the turn is adjudicated."""
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=3, sealing="commit-reveal")
    config = write_config(tmp_path)
    player = next(iter(table.status()["owed"]))
    found = pages(table, config)
    shown = fill(browser, found[player], table.legal(player), table.keys[player])
    commitment = shown["signed"]
    from selenium.webdriver.support.ui import WebDriverWait

    browser.driver.find_element(By.NAME, "sign").click()  # signing again: the same commitment
    WebDriverWait(browser.driver, PAGE_WAIT).until(
        lambda d: d.find_element(By.NAME, "signed").get_property("value")
    )
    assert browser.driver.find_element(By.NAME, "signed").get_property("value") == commitment
    assert re.match(
        rf"id: cairo-2026\nplayer: {player}\nturn: 1\ncommit: [0-9a-f]{{64}}\n", commitment
    )
    assert browser.driver.find_element(By.ID, "reveal-part").is_displayed()
    reveal = browser.driver.find_element(By.NAME, "reveal").get_property("value")
    order, signature = reveal.split(BEGIN)
    assert re.search(r"\nsalt: [0-9a-f]{64}\n$", order)
    assert (shown["order"], shown["signature"]) == (order, BEGIN + signature)  # the pair to keep
    verifies(table, player, commitment, tmp_path / "commit")
    verifies(table, player, reveal, tmp_path / "reveal")
    result = run(
        "ingest", table.gamedir, "--config", config, input=pasted_reply(table, player, commitment)
    )  # type: ignore[arg-type]
    assert "accepted" in result.output, result.output
    assert table.status()["phase"] == "reveal"
    result = run(
        "ingest", table.gamedir, "--config", config, input=pasted_reply(table, player, reveal)
    )  # type: ignore[arg-type]
    assert "accepted" in result.output, result.output
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert table.status()["turn"] == 2


def test_the_page_signs_only_with_the_players_registered_key(
    browser: Browser, tmp_path: Path
) -> None:
    """Another player's key (or a key the game master does not have) would sign an order that
    counts for its owner, or for nobody: the page refuses it and says which key it needs."""
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    other = next(p for p in table.names if p != player)
    found = pages(table, write_config(tmp_path))
    shown = fill(browser, found[player], table.legal(player), table.keys[other])
    assert shown["signed"] == ""
    assert shown["key"].startswith("This is not the key the game master has for you")


def forged_key(path: Path, public_line: str) -> Path:
    """An OpenSSH key file carrying ``public_line``'s key beside a seed that is not its own."""
    import os
    import struct

    def string(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    pub = base64.b64decode(public_line.split()[1])[-32:]
    seed = os.urandom(32)
    secret = struct.pack(">II", 7, 7) + string(b"ssh-ed25519") + string(pub)
    secret += string(seed + pub) + string(b"forged")
    secret += bytes(range(1, 8 - len(secret) % 8 + 1)) if len(secret) % 8 else b""
    blob = string(b"ssh-ed25519") + string(pub)
    raw = b"openssh-key-v1\0" + string(b"none") + string(b"none") + string(b"")
    raw += struct.pack(">I", 1) + string(blob) + string(secret)
    text = base64.b64encode(raw).decode()
    lines = "\n".join(text[i : i + 70] for i in range(0, len(text), 70))
    path.write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{lines}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    return path


def test_a_key_file_whose_seed_is_not_its_keys_signs_nothing(
    browser: Browser, tmp_path: Path
) -> None:
    """A file that carries the registered public key beside another seed passed the page's key
    check and gave a signed text that could never verify (and mail set it aside unanswered)."""
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    found = pages(table, write_config(tmp_path))
    public = Path(f"{table.keys[player]}.pub").read_text()
    shown = fill(browser, found[player], table.legal(player), forged_key(tmp_path / "f", public))
    assert shown["signed"] == "" and shown["key"] == "This is not an OpenSSH private key file."


def two_orders(table: Table, player: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two legal orders of the start player of a new game: two jewels to return."""
    drawn = sorted(set(table.view(player)["drawn"]))
    assert len(drawn) >= 2, drawn
    return {"return": drawn[0]}, {"return": drawn[1]}


def test_an_order_signed_again_after_another_is_taken_not_refused_as_a_replay(
    browser: Browser, tmp_path: Path
) -> None:
    """A, then B, then A again from the same page: the last is new bytes (the page dates each
    signing), so it is taken, where the same bytes as the first would be refused as a replay
    and leave B standing."""
    table = Table(tmp_path, players=3)
    config = write_config(tmp_path)
    player = next(iter(table.status()["owed"]))
    first, second = two_orders(table, player)
    page = pages(table, config)[player]
    signed = []
    for number, body in enumerate([first, second, first]):
        shown = fill(browser, page, body, table.keys[player], reopen=number == 0)
        assert re.search(r"\n# signed \d{4}-\d\d-\d\dT[\d:.]+Z\n$", shown["order"]), shown
        signed.append(shown["signed"])
        result = run(
            "ingest",
            table.gamedir,
            "--config",
            config,
            input=pasted_reply(table, player, shown["signed"]),
        )  # type: ignore[arg-type]
        assert result.exit_code == 0 and "accepted" in result.output, result.output
    assert signed[0] != signed[2]
    stored = sorted((table.gamedir / "turns" / "0001" / "orders").glob(f"{player}-*.yaml"))
    assert yaml.safe_load(stored[-1].read_text())["return"] == first["return"]


def sealed_by_commit(table: Table, player: str, body: dict[str, Any], name: str) -> Path:
    """``body`` committed with `adjudicator commit` and the commitment submitted: the salted
    order to reveal."""
    path = table.write(name, table.order_text(player, body))
    assert run("commit", path, "--key", table.keys[player]).exit_code == 0
    result = run("submit", table.gamedir, path.with_name(path.name + ".commit"))
    assert result.exit_code == 0, result.output
    return path


def test_a_sealed_order_signed_again_after_another_commits_anew(
    browser: Browser, tmp_path: Path
) -> None:
    """Under commit-reveal, a bid A, then A, then B, then A again in one page: A signed twice
    in a row gives the same commitment (one sent stays good); after B, A is committed anew,
    not as a replay of the first, and the reveal the page keeps matches it."""
    from selenium.webdriver.common.by import By

    table = Table(tmp_path, players=3, sealing="commit-reveal")
    config = write_config(tmp_path)
    start = next(iter(table.status()["owed"]))
    order = sealed_by_commit(table, start, table.legal(start), "start.yaml")
    assert run("submit", table.gamedir, order).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    player, *others = table.status()["owed"]
    first = table.legal(player)
    cards = sorted(set(table.view(player)["hand"]) - {first["bid"]["card"]})
    second = {"bid": {**first["bid"], "card": cards[0]}}
    page = pages(table, config)[player]
    commitments = []
    for number, body in enumerate([first, first, second, first]):
        shown = fill(browser, page, body, table.keys[player], reopen=number == 0)
        commitments.append(shown["signed"])
    assert commitments[0] == commitments[1], "signed again as it was: the same commitment"
    assert len({commitments[0], commitments[2], commitments[3]}) == 3
    reveal = browser.driver.find_element(By.NAME, "reveal").get_property("value")
    for number in (0, 2, 3):
        reply = pasted_reply(table, player, commitments[number])
        result = run("ingest", table.gamedir, "--config", config, input=reply)  # type: ignore[arg-type]
        assert "accepted" in result.output, result.output
    kept = [sealed_by_commit(table, p, table.legal(p), f"{p}.yaml") for p in others]
    assert table.status()["phase"] == "reveal"
    reply = pasted_reply(table, player, reveal)
    result = run("ingest", table.gamedir, "--config", config, input=reply)  # type: ignore[arg-type]
    assert "accepted" in result.output, result.output
    assert yaml.safe_load(reveal.split(BEGIN)[0])["bid"] == first["bid"]
    assert run("submit", table.gamedir, *kept).exit_code == 0
    assert run("adjudicate", table.gamedir).exit_code == 0


def test_a_choice_changed_while_the_page_signs_shows_no_signed_order(
    browser: Browser, tmp_path: Path
) -> None:
    """Signing is done in the background: a choice changed before it ends must not leave the
    order signed before the change on show, with links that send it."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    first, second = two_orders(table, player)
    page = pages(table, write_config(tmp_path))[player]
    shown = fill(browser, page, first, table.keys[player])
    assert shown["signed"], shown
    browser.driver.execute_script(
        "document.getElementsByName('sign')[0].click();"
        "const control = document.getElementsByName('return')[0];"
        "control.value = arguments[0];"
        "control.dispatchEvent(new Event('change', {bubbles: true}));",
        json.dumps(second["return"]),
    )
    with pytest.raises(TimeoutException):
        WebDriverWait(browser.driver, 2).until(
            lambda d: d.find_element(By.NAME, "signed").get_property("value")
        )
    assert not browser.driver.find_element(By.ID, "signed-links").is_displayed()


def test_without_javascript_each_page_says_so_and_shows_no_dead_link(tmp_path: Path) -> None:
    """A mail program's preview runs no script: each signing page says what to do instead, and
    its links to send or download, which only the script fills in, are hidden until then."""
    from tests.test_join_page import page_of
    from tests.test_signup import OpenTable

    table = Table(tmp_path / "game", players=3)
    pages(table, write_config(tmp_path))
    parser = BytesParser(policy=email.policy.default)
    found = [
        part.get_payload(decode=True).decode()
        for path in sorted((table.gamedir / "outbox").glob("*.eml"))
        for part in parser.parsebytes(path.read_bytes()).iter_attachments()  # type: ignore[attr-defined]
        if (part.get_filename() or "").endswith(".html")
    ]
    found.append(page_of(OpenTable(tmp_path / "open", seats=2)).read_text())
    kinds = {re.search(r'<form id="(\w+)"', page).group(1) for page in found}  # type: ignore[union-attr]
    assert kinds == {"order", "notice", "join"}
    for page in found:
        assert '<noscript><p class="message">This page needs JavaScript to check and sign' in page
        links = re.findall(r'<p id="signed-links"[^>]*>', page)
        assert links and all(" hidden" in tag for tag in links), links


def test_a_page_fits_a_narrow_window(browser: Browser, tmp_path: Path) -> None:
    """A phone's window: nothing on the page is wider than the window (the key file's button
    kept its own width and the page scrolled sideways)."""
    from tests.test_join_page import page_of
    from tests.test_signup import OpenTable

    table = Table(tmp_path / "game", players=3)
    player = next(iter(table.status()["owed"]))
    shown = [pages(table, write_config(tmp_path))[player]]
    parser = BytesParser(policy=email.policy.default)
    for path in sorted((table.gamedir / "outbox").glob(f"*-welcome-{player}.eml")):
        for part in parser.parsebytes(path.read_bytes()).iter_attachments():  # type: ignore[attr-defined]
            if (part.get_filename() or "").endswith(".html"):
                shown.append(tmp_path / "notices.html")
                shown[-1].write_bytes(part.get_payload(decode=True))
    shown.append(page_of(OpenTable(tmp_path / "open", seats=2)))
    assert len(shown) == 3
    driver = browser.driver
    size = driver.get_window_size()
    try:
        driver.set_window_size(320, 700)
        for page in shown:
            browser.open(page)
            inner, wide = driver.execute_script(
                "return [window.innerWidth, document.documentElement.scrollWidth]"
            )
            widest = driver.execute_script(
                "return Array.from(document.querySelectorAll('body *'))"
                ".filter(e => e.getBoundingClientRect().right > window.innerWidth)"
                ".map(e => e.tagName + '.' + (e.name || e.id || '') + ':' +"
                " Math.round(e.getBoundingClientRect().right)).slice(0, 8)"
            )
            assert wide <= inner, (page.name, wide, inner, widest)
    finally:
        driver.set_window_size(size["width"], size["height"])
