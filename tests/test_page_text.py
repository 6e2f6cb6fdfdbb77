"""A report page is given the text report (``text``), made only when a template shows it: a
game's own pages never make it, the page a game without HTML templates falls back to does."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest
from markupsafe import escape

from adjudicator.engine.open_game import OpenGame
from adjudicator.engine.queries import stored_view
from adjudicator.games.sultan import SultanGame
from adjudicator.present import html
from adjudicator.present.deferred import Deferred, DeferringContext
from adjudicator.present.reports import render_view
from tests.helpers import Table


def counted(value: str, calls: list[int]) -> Deferred:
    def make() -> str:
        calls.append(1)
        return value

    return Deferred(make)


def test_a_deferred_value_is_made_once_and_only_when_looked_up() -> None:
    env = jinja2.Environment(
        loader=jinja2.DictLoader(
            {
                "shows.j2": "{{ text }}",
                "macro.j2": "{% macro show() %}[{{ text }}]{% endmacro %}",
                "page.j2": (
                    '{% from "macro.j2" import show with context %}'
                    '{{ text }}|{% include "shows.j2" %}|{{ show() }}'
                ),
                "none.j2": "nothing",
            }
        ),
        undefined=jinja2.StrictUndefined,
    )
    env.context_class = DeferringContext
    calls: list[int] = []
    assert env.get_template("page.j2").render(text=counted("x", calls)) == "x|x|[x]"
    assert calls == [1]
    assert env.get_template("none.j2").render(text=counted("x", calls)) == "nothing"
    assert calls == [1]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    table = Table(tmp_path, players=3, game="sultan")
    table.play_turn()
    return table


def page_of(game: Any, table: Table, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """alice's page from ``game``'s templates, and each text report made for it."""
    handle = OpenGame(table.gamedir)
    doc = stored_view(handle, "alice")
    made: list[str] = []

    def rendering(*args: Any, **kwargs: Any) -> str:
        made.append(render_view(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(html, "render_view", rendering)
    return html.render_page(game, handle.meta, doc, head="0" * 64).html, made


def test_a_games_own_page_makes_no_text_report(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    page, made = page_of(SultanGame(), table, monkeypatch)
    assert "alice" in page
    assert made == []


def test_the_page_without_html_templates_shows_the_text_report(
    table: Table, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "templates"
    shutil.copytree(Path(str(SultanGame().templates())), folder)
    for name in ("player.html.j2", "public.html.j2", "gm.html.j2"):
        (folder / name).unlink()

    class PlainSultan(SultanGame):
        name = "plain_sultan"

        def templates(self) -> Any:
            return folder

    page, made = page_of(PlainSultan(), table, monkeypatch)
    assert len(made) == 1
    assert str(escape(made[0])) in page
