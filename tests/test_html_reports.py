"""Reports as HTML: what mail clients can show (no scripts, nothing fetched, pictures as parts),
the same things as the text, in every language."""

from __future__ import annotations

import base64
import email
import email.policy
import re
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest

from adjudicator.engine import open_game, queries
from adjudicator.present.html import render_page
from adjudicator.rules.lang import LANGUAGES
from adjudicator.store.registry import game_names
from tests.helpers import Table, run

PNG = b"\x89PNG\r\n\x1a\n"
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "source", "wbr", "area"}


class Page(HTMLParser):
    """Every tag and attribute of a page, and whether its tags close in order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.open: list[str] = []
        self.errors: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
            return
        self.open.pop()

    def sources(self) -> list[str]:
        return [str(attrs.get("src")) for tag, attrs in self.tags if tag == "img"]


def check_page(text: str, picture: str) -> Page:
    """A page a mail client shows as it is: well nested, no script, no style sheet or picture
    fetched from anywhere, every picture with its words (alt) and of the kind ``picture``."""
    page = Page(text)
    assert page.errors == [] and page.open == []
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "iframe", "object", "embed", "form", "link", "base"}
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), tag
        for name in ("href", "src", "background", "action"):
            value = attrs.get(name)
            assert value is None or not re.match(r"(?i)\s*(https?:|//|javascript:)", value)
        if tag == "img":
            assert attrs.get("alt"), "every picture has its words"
            assert str(attrs.get("src")).startswith(picture)
    assert "url(" not in text.lower()
    return page


@pytest.mark.parametrize("game", sorted(game_names()))
def test_report_format_html_is_a_page_with_its_pictures_inside(tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    result = run("report", table.gamedir, "--player", table.names[1], "--format", "html")
    assert result.exit_code == 0, result.output
    page = check_page(result.output, "data:image/png;base64,")
    for source in page.sources():
        assert base64.b64decode(source.split(",", 1)[1]).startswith(PNG)
    text = run("report", table.gamedir, "--player", table.names[1]).output
    assert text and result.output != text
    gm = run("report", table.gamedir, "--gm", "--format", "html")
    assert gm.exit_code == 0 and gm.output != result.output


@pytest.mark.seconds
@pytest.mark.parametrize("game", sorted(game_names()))
def test_the_report_mail_carries_the_page_and_its_pictures(tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    assert run("send", table.gamedir).exit_code == 0
    mails = sorted((table.gamedir / "outbox").glob("*.eml"))
    reports = [m for m in map(_parsed, mails) if "report for" in str(m["Subject"])]
    assert reports
    for message in reports:
        body = message.get_body(("html",))
        assert body is not None and body.get_content_type() == "text/html"
        page = check_page(str(body.get_content()), "cid:")
        wanted = {source.removeprefix("cid:") for source in page.sources()}
        parts = {
            str(part["Content-ID"]).strip("<>"): part
            for part in message.walk()
            if part.get_content_type() == "image/png"
        }
        assert set(parts) == wanted
        assert all(part.get_content().startswith(PNG) for part in parts.values())
        plain = message.get_body(("plain",))
        assert plain is not None and "report for" in str(plain.get_content())


def _parsed(path: Path) -> EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", sorted(game_names()))
def test_pages_are_the_same_for_the_same_view(tmp_path: Path, game: str, lang: str) -> None:
    """The same view gives the same bytes, pictures included (deterministic PNG)."""
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    handle = open_game.OpenGame(table.gamedir)
    doc = queries.stored_view(handle, table.names[0])
    first = render_page(handle.game, handle.meta, doc, lang, embed="cid")
    second = render_page(handle.game, handle.meta, doc, lang, embed="cid")
    assert first == second
    check_page(first.html, "cid:")
    assert f'<html lang="{lang}">' in first.html
