"""The signing pages in a real Firefox (Debian's firefox-esr): an order of each game, a notice
and a join, signed in the page from a key file, verify with ``ssh-keygen -Y verify`` and are
taken by ``ingest`` from a pasted mail, as in Chromium (tests/test_order_page.py)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.firefox import Firefox, firefox
from tests.helpers import Table, run
from tests.test_notice_page import notice_pages
from tests.test_order_page import (
    BEGIN,
    REPORT_IDS,
    controls,
    pages,
    pasted_reply,
    verifies,
    write_config,
)

__all__ = ["firefox"]

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_an_order_signed_in_firefox_is_taken(firefox: Firefox, tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, players=3 if game == "sultan" else 4, game=game)
    config = write_config(tmp_path)
    found = pages(table, config)
    player = next(iter(table.status()["owed"]))
    firefox.open(found[player])
    for name, value in controls(table.legal(player)).items():
        firefox.choose(name, json.dumps(value))
    firefox.key(table.keys[player])
    signed = firefox.sign()
    assert signed.startswith(f"id: cairo-2026\nplayer: {player}\n") and BEGIN in signed, signed
    verifies(table, player, signed, tmp_path / "check")
    answered = quote(REPORT_IDS[found[player]], safe="")
    assert f"&In-Reply-To={answered}&" in firefox.attribute("a[name=mailto]", "href")
    reply = pasted_reply(table, player, signed)
    result = run("ingest", table.gamedir, "--config", config, input=reply)  # type: ignore[arg-type]
    assert "accepted" in result.output, result.output


def test_a_refused_order_in_firefox_gets_the_pages_reasons(
    firefox: Firefox, tmp_path: Path
) -> None:
    table = Table(tmp_path, players=3)
    player = next(iter(table.status()["owed"]))
    firefox.open(pages(table, write_config(tmp_path))[player])
    firefox.key(table.keys[player])
    assert firefox.sign() == "Jewel to return: choose one"


def test_a_vote_signed_in_firefox_is_taken(firefox: Firefox, tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    config = write_config(tmp_path)
    page, _ = notice_pages(table, config)["bob"]
    firefox.open(page)
    firefox.choose("kind", "vote")
    firefox.choose("vote", "draw")
    firefox.key(table.keys["bob"])
    signed = firefox.sign()
    assert signed.startswith("id: cairo-2026\nplayer: bob\nvote: draw\n"), signed
    verifies(table, "bob", signed, tmp_path / "check")
    reply = pasted_reply(table, "bob", signed)
    result = run("ingest", table.gamedir, "--config", config, input=reply)  # type: ignore[arg-type]
    assert "accepted" in result.output, result.output


def test_a_join_signed_in_firefox_is_taken(firefox: Firefox, tmp_path: Path) -> None:
    from tests.ssh import pub_line
    from tests.test_join_page import JOIN, pasted
    from tests.test_join_page import verifies as join_verifies
    from tests.test_signup import OpenTable

    table = OpenTable(tmp_path, seats=2)
    firefox.open(tmp_path / "bazaar-join.html")
    firefox.element("input[name=name]").send_keys("alice")
    firefox.element("input[name=email]").send_keys("alice@example.org")
    firefox.choose("lang", "fr")
    firefox.key(table.keys["alice"])
    signed = firefox.sign()
    found = JOIN.match(signed.split(BEGIN)[0])
    assert found, signed
    assert found.groups()[:4] == ("alice", "alice@example.org", "fr", pub_line(table.keys["alice"]))
    join_verifies(signed, "alice", pub_line(table.keys["alice"]), tmp_path / "check")
    assert pasted(table, "alice@example.org", signed).endswith(" alice - accepted\n")
