"""A report, view or form shown again comes from the rendered-report cache
(adjudicator/present/rendered.py), and says exactly what rendering it afresh says: for every
reader, turn and language, with the chain head as it stands now. A change to what renders it,
or a damaged entry, renders afresh."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from adjudicator import demo
from adjudicator.present import rendered
from adjudicator.store import registry, usercache
from adjudicator.store.gamedir import GameDir
from tests.helpers import Table, run

GAMES = {"sultan": "de", "sultans_court": "fr"}
"""Each game in another language than English (the cache keys the catalogs too)."""


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("games")
    return {
        f"{name}-{lang}": demo.run(
            name, None, 3, tmp / f"{name}-{lang}", lambda _: None, lang, site=False
        )
        for name, lang in GAMES.items()
    }


@pytest.mark.seconds
@pytest.mark.parametrize("game", [f"{name}-{lang}" for name, lang in GAMES.items()])
def test_every_report_shown_again_is_the_report_rendered_afresh(
    games: dict[str, Path], game: str
) -> None:
    gamedir = games[game]
    store = GameDir(gamedir)
    head = store.head()
    last = len(list((gamedir / "turns").iterdir()))
    for reader in ["alice", "bob", "gm", "public"]:
        for turn in (1, last // 2, last):
            fresh = rendered.report(gamedir, reader, turn, head, cache=False)
            args = ["--gm"] if reader == "gm" else ["--public"] if reader == "public" else []
            args = args or ["--player", reader]
            for _ in ("rendered", "from the cache"):
                result = run("report", gamedir, *args, "--turn", str(turn))
                assert result.exit_code == 0, result.output
                assert result.output == fresh
    assert head[:32] in fresh


def test_a_form_and_view_shown_again_carry_the_head_as_it_stands_now(tmp_path: Path) -> None:
    table = Table(tmp_path, players=4, game="sultans_court")
    owed, other = list(table.status()["owed"])[:2]
    first = run("form", table.gamedir, "--player", owed).output
    view_first = run("view", table.gamedir, "--player", owed).output
    head = GameDir(table.gamedir).head()
    assert first == rendered.form(table.gamedir, owed, head, cache=False)
    assert view_first == rendered.report(table.gamedir, owed, None, head, cache=False)
    # A step that changes nothing a form shows moves the head: an order from another player.
    path = table.signed(other, table.legal(other), "other.yaml")
    assert run("submit", table.gamedir, path).exit_code == 0
    new_head = GameDir(table.gamedir).head()
    assert new_head != head
    again = run("form", table.gamedir, "--player", owed).output
    assert again == rendered.form(table.gamedir, owed, new_head, cache=False)
    assert again == first.replace(head[:32], new_head[:32])
    fresh = rendered.report(table.gamedir, owed, None, new_head, cache=False)
    assert run("view", table.gamedir, "--player", owed).output == fresh


def _not_loaded() -> object:
    raise AssertionError("a built-in game's folders are found without loading it")


def test_a_built_in_games_templates_are_in_the_key() -> None:
    """A built-in game's templates are keyed as part of adjudicator.templates (the game not
    loaded for it)."""
    for name in registry.BUILT_IN:
        folders = rendered.program(name, _not_loaded)
        game = registry.load_game(name)
        assert any(Path(str(game.templates())).resolve().is_relative_to(f) for f in folders)


def _counting(calls: list[str | None]) -> object:
    def render(head: str | None) -> str:
        calls.append(head)
        return f"chain head #{(head or '-')[:32]}\nfull {head}\n"

    return render


def test_the_cache_renders_once_and_again_when_what_renders_changes(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.mkdir()
    (program / "report.j2").write_text("one")
    calls: list[str | None] = []
    render = _counting(calls)
    head = "ab" * 32
    parts = {"view": {"turn": 1}, "lang": "en"}
    first = rendered.shown("report-text", parts, head, render, [program])  # type: ignore[arg-type]
    assert first == f"chain head #{head[:32]}\nfull {head}\n"
    assert len(calls) == 1
    other = "cd" * 32
    again = rendered.shown("report-text", parts, other, render, [program])  # type: ignore[arg-type]
    assert again == f"chain head #{other[:32]}\nfull {other}\n"
    assert len(calls) == 1
    # Another view, another language: rendered afresh.
    rendered.shown("report-text", {**parts, "lang": "de"}, head, render, [program])  # type: ignore[arg-type]
    assert len(calls) == 2
    # A template edited (its size and time change): rendered afresh.
    (program / "report.j2").write_text("one, and more")
    usercache.fingerprint.cache_clear()
    rendered.shown("report-text", parts, head, render, [program])  # type: ignore[arg-type]
    assert len(calls) == 3


def test_a_text_that_holds_hex_of_its_own_keeps_it(tmp_path: Path) -> None:
    """What a player wrote (a name, an order, a message) may hold any hex digits: only the head
    the text was rendered with is replaced, and that is drawn afresh for each entry."""
    written = "0123456789abcdef" * 4
    calls: list[str | None] = []

    def render(head: str | None) -> str:
        calls.append(head)
        return f"#{(head or '')[:32]} {head}\nalice wrote {written} and {written[:32]}\n"

    head, other = "ab" * 32, "cd" * 32
    for now in (head, other):
        said = rendered.shown("form", {"x": 2}, now, render, [])
        assert said == f"#{now[:32]} {now}\nalice wrote {written} and {written[:32]}\n"
    assert len(calls) == 1 and calls[0] not in (head, other)


def test_a_damaged_entry_is_rendered_afresh(tmp_path: Path) -> None:
    calls: list[str | None] = []
    render = _counting(calls)
    head = "ab" * 32
    parts = {"view": {"turn": 2}}
    rendered.shown("form", parts, head, render, [])  # type: ignore[arg-type]
    entries = [p for p in rendered._folder().rglob("*.txt")]
    assert len(entries) == 1
    data = entries[0].read_bytes()
    entries[0].write_bytes(data.replace(b"full", b"fake"))
    said = rendered.shown("form", parts, head, render, [])  # type: ignore[arg-type]
    assert said == f"chain head #{head[:32]}\nfull {head}\n"
    assert len(calls) == 2


def test_a_cache_folder_that_cannot_be_written_only_renders_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    calls: list[str | None] = []
    render = _counting(calls)
    head = "ab" * 32
    for _ in range(2):
        said = rendered.shown("form", {"x": 1}, head, render, [])  # type: ignore[arg-type]
        assert said == f"chain head #{head[:32]}\nfull {head}\n"
    assert len(calls) == 2


def test_no_more_than_the_kept_number_of_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of the cache's folders keeps the entries used last: shown by one command each, 600
    reports leave at most that many in each folder, the last one shown among them."""
    monkeypatch.setattr(rendered, "KEPT_IN_EACH", 1)
    render = _counting([])
    for n in range(600):
        usercache._PRUNED.clear()  # each shown by a command of its own
        rendered.shown("form", {"n": n}, "ab" * 32, render, [])  # type: ignore[arg-type]
    folders = list(rendered._folder().iterdir())
    assert len(folders) > 200
    assert all(len(list(folder.iterdir())) == 1 for folder in folders)
    calls: list[str | None] = []
    rendered.shown("form", {"n": 599}, "ab" * 32, _counting(calls), [])  # type: ignore[arg-type]
    assert calls == [], "the last one shown is kept"


def test_a_form_of_a_finished_game_says_the_game_is_over(games: dict[str, Path]) -> None:
    gamedir = games["sultan-de"]
    result = run("form", gamedir, "--player", "alice")
    assert result.exit_code == 4
    assert "is over; it takes no more orders" in result.output


@pytest.mark.seconds
def test_no_environment_gains_a_global_once_a_template_is_loaded(
    games: dict[str, Path],
) -> None:
    """Each template keeps a copy of its environment's globals, made as it is loaded
    (adjudicator/present/catalogs.py): so every global must be set before the first template
    is. Every environment this process has made, after HTML and text reports, forms, an order
    page, a site and a mail were rendered with it, still holds exactly the globals its
    templates hold."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import stored_view
    from adjudicator.present import mail, reports, site
    from adjudicator.present.html import report_page
    from adjudicator.present.order_page import render_order_page
    from adjudicator.rules.lang import LANGUAGES

    for name, lang in GAMES.items():
        gamedir = games[f"{name}-{lang}"]
        for reader in ["alice", "gm", "public"]:
            assert report_page(gamedir, reader, 2).html
            assert rendered.report(gamedir, reader, 2, None, cache=False)
        assert run("form", gamedir, "--player", "bob", "--turn", "2").output
        handle = OpenGame(gamedir)
        owing = [doc for p in handle.players if "to_do" in (doc := stored_view(handle, p, 2))]
        assert render_order_page(handle.game, handle.meta, owing[0], lang, "gm@example.org")
        assert "index.html" in site.build(gamedir)
        assert mail.body("reminder.txt.j2", lang, game_id=name, turn="2", due="soon")
    environments = [*reports._ENVIRONMENTS.values(), *map(mail._environment, LANGUAGES)]
    loaded = [(env, t) for env in environments for t in env.cache.values()]  # type: ignore[union-attr]
    assert len(loaded) > 20
    for env, template in loaded:
        assert dict(template.globals) == dict(env.globals), template.name


@pytest.mark.parametrize("gone", ["removed", "blocked"])
def test_compiled_templates_that_cannot_be_kept_cost_the_command_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gone: str
) -> None:
    """The folder of compiled templates, removed while a long command runs (a user clearing
    the cache folder), or a file in its place: each template is compiled and rendered as if
    there were no cache."""
    import gettext
    import shutil

    import jinja2

    from adjudicator.present.catalogs import environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = environment(
        jinja2.DictLoader({"a.j2": "{{ x }} a", "b.j2": "{{ x }} b"}), gettext.NullTranslations()
    )
    assert env.get_template("a.j2").render(x=1) == "1 a"
    folder = tmp_path / "cache" / "adjudicator" / "templates"
    assert len(list(folder.iterdir())) == 1  # kept
    shutil.rmtree(folder)
    if gone == "blocked":
        folder.write_text("a file where the folder was")
    assert env.get_template("b.j2").render(x=2) == "2 b"


@pytest.mark.parametrize("damage", ["cut short", "scrambled", "a pipe", "a link to a device"])
def test_a_damaged_compiled_template_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """A compiled template kept in the cache folder that cannot be read back (cut short by a
    full disk or a crash of another program, scrambled, a pipe or a device in its place) is
    compiled again, in this command and the next: no traceback, no wait."""
    import gettext

    import jinja2

    from adjudicator.present.catalogs import environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    loader = jinja2.DictLoader({"a.j2": "{{ x }} a"})
    assert environment(loader, gettext.NullTranslations()).get_template("a.j2").render(x=1)
    (kept,) = (tmp_path / "cache" / "adjudicator" / "templates").iterdir()
    magic = len(jinja2.bccache.bc_magic)
    if damage == "cut short":  # the header whole, what follows it not
        kept.write_bytes(kept.read_bytes()[: magic + 2])
    elif damage == "scrambled":
        kept.write_bytes(kept.read_bytes()[:magic] + os.urandom(200))
    elif damage == "a pipe":
        kept.unlink()
        os.mkfifo(kept)
    else:
        kept.unlink()
        kept.symlink_to("/dev/zero")

    def render(shown: list[str]) -> None:  # each time in a new environment, as a new command
        shown.append(
            environment(loader, gettext.NullTranslations()).get_template("a.j2").render(x=2)
        )

    for _ in range(2):
        shown: list[str] = []
        # in a thread of its own: a pipe read whole would hold the test for ever
        reading = threading.Thread(target=render, args=(shown,), daemon=True)
        reading.start()
        reading.join(30)
        assert shown == ["2 a"]


def test_a_compiled_template_changed_on_the_disk_is_compiled_again(tmp_path: Path) -> None:
    """A compiled template whose kept code was changed (a bit flipped on the disk, another
    program's write) is not run: Jinja checks only the template's source, so the report would
    say what the changed code says, and be kept so in the rendered reports' cache. Each report
    in a process of its own, as a user's commands."""
    table = Table(tmp_path, players=3)
    command = [sys.executable, "-m", "adjudicator", "report", table.gamedir, "--player", "alice"]

    def report() -> tuple[int, str]:
        done = subprocess.run(  # not from the source tree, which -m would put first
            command, capture_output=True, text=True, timeout=60, cwd=tmp_path
        )
        return done.returncode, done.stdout

    first = report()
    assert first[0] == 0 and "YOUR HAND" in first[1]
    changed = 0
    for kept in usercache.folder("templates").iterdir():
        data = kept.read_bytes()
        if b"YOUR HAND" in data:
            kept.write_bytes(data.replace(b"YOUR HAND", b"YOUR HANX"))
            changed += 1
    assert changed
    shutil.rmtree(rendered._folder())  # rendered again, from the compiled templates
    assert report() == first
    assert report() == first  # and kept so


def test_a_template_compiled_one_way_is_not_run_where_it_compiles_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same template compiled where output is escaped and where it is not, or by another
    release of Jinja (which keeps the magic number of its code while its compiler changes):
    each compiles its own code, never runs the other's."""
    import gettext

    import jinja2

    from adjudicator.present.catalogs import environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    loader = jinja2.DictLoader({"a.j2": "{{ x }} a"})

    def shown(autoescape: bool) -> str:  # each time in a new environment, as a new command
        env = environment(loader, gettext.NullTranslations(), autoescape=autoescape)
        return env.get_template("a.j2").render(x="<b>")

    assert shown(False) == "<b> a"
    assert shown(True) == "&lt;b&gt; a"
    assert shown(False) == "<b> a"
    folder = tmp_path / "cache" / "adjudicator" / "templates"
    assert len(list(folder.iterdir())) == 2
    monkeypatch.setattr(jinja2, "__version__", "99.0")
    assert shown(True) == "&lt;b&gt; a"
    assert len(list(folder.iterdir())) == 3


def test_a_report_rendered_by_another_version_of_a_library_is_rendered_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key of a kept report holds each rendering library as it is installed: another
    version of Jinja (its files written anew by an upgrade) renders the report afresh."""
    import sys

    for name in rendered.RENDERING:
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text("__version__ = '1'\n")
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    parts = {"view": "0" * 64, "lang": "en"}
    before = rendered._key("report-text", parts, [])
    assert str(tmp_path / "jinja2" / "__init__.py") in rendered.libraries()
    (tmp_path / "jinja2" / "__init__.py").write_text("__version__ = '2.0'\n")  # upgraded
    assert rendered._key("report-text", parts, []) != before
