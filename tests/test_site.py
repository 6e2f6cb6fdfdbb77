"""`adjudicator site`: a static HTML viewer of a game that shows the public while the game runs
and everything once it is over, with every link resolving and every page a safe page."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from adjudicator.store.registry import game_names
from tests.helpers import DEMO_NO_SITE, Table, run
from tests.test_html_reports import PNG, check_page

GAMES = sorted(game_names())


def site_files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def check_site(folder: Path) -> dict[str, bytes]:
    """Every page is a safe page whose links and pictures are files of the site."""
    files = site_files(folder)
    assert "index.html" in files
    for name, content in files.items():
        if name.startswith("pictures/"):
            assert name.endswith(".png") and content.startswith(PNG), name
            continue
        assert name.endswith(".html"), name
        text = content.decode("utf-8")
        page = check_page(text, "pictures/")
        for tag, attrs in page.tags:
            target = attrs.get("href") if tag == "a" else attrs.get("src") if tag == "img" else None
            if target is None:
                continue
            assert not re.match(r"(?i)[a-z]+:|/", target), (name, target)
            assert unquote(target) in files, (name, target)
    return files


def played(tmp_path: Path, game: str) -> Table:
    table = Table(tmp_path, players=4, game=game)
    table.play_turn()
    return table


@pytest.mark.parametrize("game", GAMES)
def test_the_site_of_a_running_game_shows_only_the_public(tmp_path: Path, game: str) -> None:
    table = played(tmp_path, game)
    out = tmp_path / "site"
    result = run("site", table.gamedir, "-o", out)
    assert result.exit_code == 0, result.output
    files = check_site(out)
    pages = {name for name in files if not name.startswith("pictures/")}
    rules = {f"rules.{lang}.html" for lang in ("en", "de", "nl", "fr")}
    assert pages == {"index.html", "turn-0001.html", "turn-0002.html", *rules}
    index = files["index.html"].decode("utf-8")
    assert "gm.html" not in index and "player-" not in index

    # The same game without any player's or the game master's views: the same site, byte for byte.
    other = tmp_path / "other"
    shutil.copytree(table.gamedir, other)
    for view in other.glob("turns/*/views/*.json"):
        if view.stem != "public":
            view.unlink()
    assert run("site", other, "-o", tmp_path / "site2").exit_code == 0
    assert site_files(tmp_path / "site2") == files


def test_no_hand_from_the_game_masters_view_appears_in_a_running_games_site(
    tmp_path: Path,
) -> None:
    table = played(tmp_path, "sultan")
    gm = json.loads((table.gamedir / "turns/0002/views/gm.json").read_text())
    hands = [", ".join(str(card) for card in hand) for hand in gm["view"]["hands"].values()]
    report = run("report", table.gamedir, "--gm", "--format", "html").output
    assert all(hand in report for hand in hands)  # how a hand is shown on a page
    assert run("site", table.gamedir, "-o", tmp_path / "site").exit_code == 0
    for name, content in site_files(tmp_path / "site").items():
        if name.endswith(".html"):
            text = content.decode("utf-8")
            assert not any(hand in text for hand in hands), name


@pytest.mark.seconds
@pytest.mark.parametrize("game", GAMES)
def test_the_site_of_a_finished_game_shows_everything(tmp_path: Path, game: str) -> None:
    result = run("demo", game, "--dir", tmp_path / "demo")
    assert result.exit_code == 0, result.output
    gamedir = tmp_path / "demo" / "game"
    record = json.loads(run("log", gamedir, "--json").output)
    assert record["over"]
    players = record["players"]
    out = tmp_path / "site"
    result = run("site", gamedir, "-o", out)
    assert result.exit_code == 0, result.output
    files = check_site(out)
    assert site_files(tmp_path / "demo" / "site") == files  # the demo's own site is this one
    turns = len([name for name in files if re.fullmatch(r"turn-\d{4}\.html", name)])
    assert turns > 1
    for reader in [*(f"player-{p}" for p in players), "gm"]:
        assert f"{reader}.html" in files
        assert all(f"{reader}.turn-{t:04d}.html" in files for t in range(1, turns + 1))
    index = files["index.html"].decode("utf-8")
    assert f'href="turn-{turns:04d}.html"' in index  # the final result
    svgs = re.findall(r"<svg\b.*?</svg>", index, re.S)
    assert len(svgs) == (2 if game == "sultans_court" else 1)  # the Court: types and votes
    for svg in svgs:
        lines = re.findall(r'<polyline class="series" data-player="([^"]+)"', svg)
        assert sorted(lines) == sorted(players)
    # Nothing was written into the game.
    assert not any(path.suffix == ".html" for path in gamedir.rglob("*"))


@pytest.mark.seconds
def test_the_site_in_the_games_language(tmp_path: Path) -> None:
    result = run(*DEMO_NO_SITE, "sultan", "--players", "2", "--dir", tmp_path / "d", "--lang", "de")
    assert result.exit_code == 0, result.output
    gamedir = tmp_path / "d" / "game"
    said = f"viewer:  none made (--no-site); adjudicator site {gamedir} -o DIR makes it"
    assert said in result.output.splitlines()
    assert not (tmp_path / "d" / "site").exists()
    assert run("site", gamedir, "-o", tmp_path / "site").exit_code == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<html lang="de">' in index and "Spieler:" in index and "Zug 1" in index


def test_site_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    table = played(tmp_path, "sultan")
    out = tmp_path / "site"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    result = run("site", table.gamedir, "-o", out)
    assert result.exit_code == 2
    assert "must not exist or must be empty" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site")) == []
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run("site", table.gamedir, "-o", empty).exit_code == 0
    assert (empty / "index.html").is_file()


def test_site_help_has_an_example() -> None:
    result = run("site", "--help")
    assert result.exit_code == 0
    assert "Example:" in result.output and "adjudicator site " in result.output


def test_no_player_name_makes_a_page_anothers() -> None:
    """A name may hold '-' but no '.', so one reader's pages never take another's names."""
    from adjudicator.present.site import reader_page, turn_page

    names = ["x", "x-turn-0001", "x_turn", "gm-x"]
    pages = [reader_page(n) for n in names] + [turn_page(1, n) for n in [*names, "gm", "public"]]
    pages.append(reader_page("gm"))
    assert len(set(pages)) == len(pages)


def test_the_courts_votes_at_court_are_its_seat_numbers() -> None:
    from adjudicator.present.site import court_votes

    record = {
        "game": "sultans_court",
        "players": ["a", "b"],
        "deal": {"markers": [7, 12, 3], "vizirs": {"a.fat": 0, "a.big": 2, "b.fat": "Kaffa"}},
        "rounds": [{"after": {"vizirs": {"a.fat": "dungeon1", "a.big": 2, "b.fat": 1}}}],
    }
    assert court_votes(record) == ("votes", {"a": [10, 3], "b": [0, 12]})


def test_the_courts_chart_counts_power_types_only() -> None:
    from adjudicator.present.site import series
    from adjudicator.store.registry import load_game

    record = {
        "players": ["a", "b"],
        "deal": {"hands": {"a": ["Gold", "Pardon"], "b": [None, "Ships"]}},
        "rounds": [{"after": {"hands": {"a": ["Gold", "Gold", "Pardon", "Ships"], "b": []}}}],
    }
    assert series(load_game("sultans_court"), record) == ("types", {"a": [1, 2], "b": [1, 0]})


@pytest.mark.seconds
def test_the_site_has_the_rules_in_every_language_linked_from_every_page(tmp_path: Path) -> None:
    """The rules pages hold the game's summary (adjudicator.present.rules_summary), rendered;
    every other page links to the one in the game's language, and they link each other."""
    from adjudicator.present.rules_summary import summary_of
    from adjudicator.store.registry import load_game

    result = run("demo", "sultan", "--players", "2", "--dir", tmp_path / "d", "--lang", "nl")
    assert result.exit_code == 0, result.output
    files = check_site(tmp_path / "d" / "site")  # the demo's own
    game = load_game("sultan")
    for lang in ("en", "de", "nl", "fr"):
        page = files[f"rules.{lang}.html"].decode("utf-8")
        assert f'<html lang="{lang}">' in page
        summary = summary_of(game, lang)
        assert summary is not None
        title = summary.splitlines()[0].removeprefix("# ")
        assert f"<h1>{title}</h1>" in page.replace("&#x27;", "'"), "the summary, rendered"
        assert "<h2>" in page and "<code>bid</code>" in page and "<strong>" in page
        others = {f"rules.{o}.html" for o in ("en", "de", "nl", "fr")} - {f"rules.{lang}.html"}
        assert all(f'href="{other}"' in page for other in others)
    assert "De regels</title>" in files["rules.nl.html"].decode("utf-8"), "each in its language"
    assert "Les règles</title>" in files["rules.fr.html"].decode("utf-8")
    assert "<h1>Sultan : les règles en bref</h1>" in files["rules.fr.html"].decode("utf-8")
    assert ">De regels in het kort</a>" in files["index.html"].decode("utf-8")
    for name, content in files.items():
        if name.endswith(".html") and not name.startswith("rules."):
            assert 'href="rules.nl.html"' in content.decode("utf-8"), name


def test_a_summary_can_put_no_html_of_its_own_into_a_page(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from adjudicator.present.rules_summary import summary_html

    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "en.md").write_text(
        '# Rules\n\n<script>alert(1)</script>\n\n<img src="https://example.org/x.png">\n\n'
        "[a link](javascript:alert(1))\n",
        encoding="utf-8",
    )
    game: Any = SimpleNamespace(name="made-up", templates=lambda: tmp_path)
    html = summary_html(game, "de")
    assert html is not None and html.startswith("<h1>Rules</h1>")
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html


def made_turns(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The turns of each run of pages this process makes itself (those made by another
    process are not seen here)."""
    from adjudicator.present import site

    runs: list[list[int]] = []
    real = site._Pages.made

    def made(self: Any, handle: Any, turns: list[int]) -> dict[str, bytes]:
        runs.append(list(turns))
        return real(self, handle, turns)

    monkeypatch.setattr(site._Pages, "made", made)
    return runs


def made_where(monkeypatch: pytest.MonkeyPatch, log: Path, processes: int) -> None:
    """Each process that makes a turn's pages appends its process id and the turn to ``log``;
    once the others are forked (after the first turn), each waits there until every one of
    the ``processes`` has a turn, so that each surely takes some however late it starts."""
    from adjudicator.present import site

    real = site._Pages.made
    deadline = time.monotonic() + 60  # one for every wait of every process: a failing run ends

    def made(self: Any, handle: Any, turns: list[int]) -> dict[str, bytes]:
        with log.open("a") as out:
            out.write(f"{os.getpid()} {' '.join(map(str, turns))}\n")
        while turns != [1] and time.monotonic() < deadline:
            if len({line.split()[0] for line in log.read_text().splitlines()}) >= processes:
                break
            time.sleep(0.01)
        return real(self, handle, turns)

    monkeypatch.setattr(site._Pages, "made", made)


@pytest.mark.seconds
@pytest.mark.parametrize("game", GAMES)
def test_a_site_made_by_several_processes_is_the_site_made_by_one(
    tmp_path: Path, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adjudicator import demo
    from adjudicator.present import site

    gamedir = demo.run(game, None, 2, tmp_path / "d", lambda _line: None, site=False)
    runs = made_turns(monkeypatch)
    monkeypatch.setattr(site, "PARALLEL", 10**9)
    alone = site.build(gamedir)
    turns = list(range(1, max(turn for run in runs for turn in run) + 1))
    assert runs == [turns], "one process made every page"
    monkeypatch.undo()
    log = tmp_path / "made.log"
    made_where(monkeypatch, log, 3)
    monkeypatch.setattr(site, "PARALLEL", 1)
    monkeypatch.setattr(site, "processors", lambda: 3)
    orders: list[list[int]] = []
    real_claims = site._claims
    monkeypatch.setattr(site, "_claims", lambda order: orders.append(order) or real_claims(order))
    shared = site.build(gamedir)
    assert orders == [[turns[-1], *turns[1:-1]]], "the last turn first, then from the second on"
    made = [line.split() for line in log.read_text().splitlines()]
    assert made[0] == [str(os.getpid()), "1"], "the first turn here, before the others fork"
    assert all(len(line) == 2 for line in made), "one turn at a time"
    assert sorted(int(turn) for _, turn in made) == turns, "each turn made once"
    assert len({pid for pid, _ in made}) == 3, "by three processes"
    assert shared == alone, "the same files, byte for byte"

    # A process that finds the game moved on takes no turn: this one makes them all.
    def made_elsewhere(self: Any) -> None:
        return None

    runs = made_turns(monkeypatch)
    monkeypatch.setattr(site._Pages, "made_elsewhere", made_elsewhere)
    assert site.build(gamedir) == alone
    assert sorted(t for run in runs for t in run) == turns

    # A process that fails after taking a turn leaves that turn to this one too.
    def failed(self: Any) -> None:
        (tmp_path / "taken").write_text(str(site._claim(site._CLAIMS)))
        raise RuntimeError("a process that failed")

    failed.__name__ = "made_elsewhere"  # as the other process finds it
    monkeypatch.setattr(site._Pages, "made_elsewhere", failed)
    monkeypatch.setattr(site, "processors", lambda: 2)
    runs.clear()
    assert site.build(gamedir) == alone
    assert sorted(turn for run in runs for turn in run) == turns
    taken = (tmp_path / "taken").read_text()
    assert taken == "None" or runs[-1] == [int(taken)], "the turn it took, made here last"
    # Where this process runs a thread, it makes every page itself.
    monkeypatch.undo()
    runs = made_turns(monkeypatch)
    monkeypatch.setattr(site, "PARALLEL", 1)
    monkeypatch.setattr(site, "processors", lambda: 3)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert site.build(gamedir) == alone
    finally:
        stop.set()
        other.join()
    assert runs == [turns]


def test_the_turns_are_taken_once_each_from_a_pipe_that_holds_them_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from adjudicator.present import site

    claims = site._claims([3, 1, 2])
    assert claims is not None
    try:
        assert [site._claim(claims) for _ in range(4)] == [3, 1, 2, None]
    finally:
        os.close(claims)
    claims = site._claims([1, 2, 3])
    assert claims is not None
    site._drain(claims)
    assert site._claim(claims) is None
    os.close(claims)
    before = len(os.listdir("/proc/self/fd"))
    assert site._claims(list(range(1, 100_001))) is None, "more than a pipe holds"
    assert len(os.listdir("/proc/self/fd")) == before, "and no pipe left open"


@pytest.mark.seconds
def test_a_game_too_long_for_the_pipe_is_made_here_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adjudicator.present import site

    table = played(tmp_path, "sultan")
    alone = site.build(table.gamedir)
    runs = made_turns(monkeypatch)
    monkeypatch.setattr(site, "PARALLEL", 1)
    monkeypatch.setattr(site, "processors", lambda: 3)
    monkeypatch.setattr(site, "_claims", lambda order: None)
    assert site.build(table.gamedir) == alone
    assert runs == [[1], [2]]


def test_a_game_moved_on_is_not_made_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adjudicator.present import site
    from adjudicator.store.gamedir import GameDir

    table = played(tmp_path, "sultan")
    head = GameDir(table.gamedir).head()
    pages = site._Pages(table.gamedir, head, ["public"], 2, False, None)
    claims = site._claims([2, 1])
    assert claims is not None
    monkeypatch.setattr(site, "_CLAIMS", claims)
    made = pages.made_elsewhere() or {}
    assert list(made) == [2, 1], "by turn, in the order taken"
    assert [n for n in made[1] if n.endswith(".html")] == ["turn-0001.html"]
    assert [n for n in made[2] if n.endswith(".html")] == ["turn-0002.html"]
    table.play_turn()  # the game moves on after its head was read
    claims = site._claims([2, 1])
    assert claims is not None
    monkeypatch.setattr(site, "_CLAIMS", claims)
    assert pages.made_elsewhere() is None
    assert site._claim(claims) == 2, "it took no turn"
    os.close(claims)


@pytest.mark.seconds
@pytest.mark.parametrize("command", ["report", "site"])
def test_a_view_gone_from_the_game_is_named_not_a_traceback(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored view removed by hand: the read commands and the site name it and exit 4 (the
    game is damaged, not the command), the site whether one process makes it or several."""
    from adjudicator import demo
    from adjudicator.present import site

    gamedir = demo.run("sultan", 3, 2, tmp_path / "d", lambda _line: None, site=False)
    gone = gamedir / "turns" / "0005" / "views" / "bob.json"
    gone.unlink()
    args = ["--player", "bob", "--turn", "5"] if command == "report" else ["-o", tmp_path / "s"]
    result = run(command, gamedir, *args)
    assert result.exit_code == 4, result.output
    assert "turns/0005/views/bob.json" in result.output and "adjudicator doctor" in result.output
    if command == "site":
        monkeypatch.setattr(site, "processors", lambda: 3)
        shared = run(command, gamedir, "-o", tmp_path / "s2")
        assert (shared.exit_code, shared.output) == (result.exit_code, result.output)
        assert not (tmp_path / "s").exists() and not (tmp_path / "s2").exists()


def test_a_second_ctrl_c_while_a_site_is_taken_away_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the site's files are written, then again as what was written is removed:
    the command still ends with nothing of the site left behind."""
    import pathlib

    from adjudicator.present import site

    table = played(tmp_path, "sultan")
    real_write, real_rmtree = pathlib.Path.write_bytes, shutil.rmtree
    written: list[Path] = []

    def write_bytes(path: Path, data: bytes) -> int:
        if len(written) == 3:
            raise KeyboardInterrupt  # the first press
        written.append(path)
        return real_write(path, data)

    def rmtree(path: Any, **kwargs: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the second, as the removing begins
        real_rmtree(path, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)
    monkeypatch.setattr(site.shutil, "rmtree", rmtree)
    with pytest.raises(KeyboardInterrupt):
        site.write(table.gamedir, tmp_path / "out" / "site")
    assert written and list((tmp_path / "out").iterdir()) == []


@pytest.mark.slow  # a site made slowly on purpose, its command killed
def test_the_processes_of_a_site_end_with_the_command_however_it_ends(tmp_path: Path) -> None:
    """The command killed (SIGKILL, no code of its own runs) while other processes make its
    pages: they end too, and none is left making pages for nobody."""
    from adjudicator import demo

    gamedir = demo.run("sultan", 3, 2, tmp_path / "d", lambda _line: None, site=False)
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_SITE, str(gamedir), "-o", str(tmp_path / "s")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=tmp_path,
    )
    with _ended(process):
        others = _making_pages(process)
        process.kill()
        process.wait(timeout=30)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(_alive(p) for p in others):
            time.sleep(0.05)
        assert not any(_alive(p) for p in others), "a process left making pages for nobody"


def _making_pages(process: subprocess.Popen[bytes], count: int = 2) -> list[int]:
    """The ``count`` other processes of a site's command, once they are all there and some
    time into their pages (a loaded machine may take seconds to start them, one by one)."""
    deadline = time.monotonic() + 60
    while len(others := _children(process.pid)) < count and time.monotonic() < deadline:
        assert process.poll() is None, "the command ended before it made pages"
        time.sleep(0.05)
    assert len(others) >= count, f"{count} other processes make pages: {others}"
    time.sleep(0.5)  # each is into its pages
    return others


@contextlib.contextmanager
def _ended(process: subprocess.Popen[bytes], only_if_failed: bool = False) -> Iterator[None]:
    """Whatever the test finds, no process of the command (started in a session of its own)
    outlives it (``only_if_failed``: when the block fails, else it runs on)."""
    try:
        yield
    except BaseException:
        _end(process)
        raise
    if not only_if_failed:
        _end(process)


def _end(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, reaped by init soon, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


SLOW_SITE = """
import sys, time
from adjudicator.present import site
real = site.render_page
def slow(*args, **kwargs):  # a large game's pages on a slow machine
    time.sleep(1)
    return real(*args, **kwargs)
site.render_page = slow
site.processors = lambda: 3
from adjudicator.cli import main
sys.argv = ["adjudicator", "site", *sys.argv[1:]]
main()
"""


@pytest.mark.slow  # a site made slowly on purpose, to be interrupted
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_a_site_made_by_several_processes_at_once(
    tmp_path: Path, presses: int
) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it), once or twice: the
    command stops at once with exit 130 and leaves no process and no half-made site behind;
    pressed once, it says nothing of the other processes."""
    from adjudicator import demo

    gamedir = demo.run("sultan", 3, 2, tmp_path / "d", lambda _line: None, site=False)
    out = tmp_path / "s"
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_SITE, str(gamedir), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        cwd=tmp_path,
    )
    with _ended(process, only_if_failed=True):
        _making_pages(process)  # each has some 35 s of them
        for _ in range(presses):
            os.killpg(process.pid, signal.SIGINT)
            time.sleep(0.05)
        pressed = time.monotonic()
        _, err = process.communicate(timeout=60)
        waited = time.monotonic() - pressed
        # 130, or killed by the second press while exiting, as in one process (a shell says 130)
        assert process.returncode in (130, -signal.SIGINT), err.decode()
        if presses == 1:  # a second press may land in Python's own exit, as in one process
            assert b"Traceback" not in err and b"Exception" not in err, err.decode()
        assert waited < 10, f"stopped {waited:.1f} s after Ctrl-C: it waited for the others"
        left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("user-"))
        assert left == ["d"], "no site, whole or half"
        deadline = time.monotonic() + 60
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _group_alive(process.pid), "a process of the command is left"


def _group_alive(group: int) -> bool:
    """Whether any process of process group ``group`` is left."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
