"""docs/games.md builds a game from an empty folder; this builds it from the page.

The blocks titled with a file name are put into a folder (a file's blocks in order), its catalog
compiled and its wheel built and unpacked onto the path, as installing it would; then what the
page says to do is done: the package's own tests (``adjudicator.testing``), mypy against the
contract, the demo (printing what the page shows), a report in German, a page with its picture,
a refused bid in the game's words, ``archive`` and ``verify``. Those are marked slow (the wheel
built, the commands and mypy run: some thirty seconds); that the page shows a whole package is
not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import Table, run
from tests.test_engine_runtime import installed_command
from tests.wheels import unpacked_wheel

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "games.md"
BLOCK = re.compile(r'^```\w+ (title|output)="([^"]+)"\n(.*?)^```$', re.DOTALL | re.MULTILINE)


def blocks(kind: str) -> list[tuple[str, str]]:
    """``(name, text)`` of each block of the page marked ``title="..."`` or ``output="..."``."""
    return [(name, text) for found, name, text in BLOCK.findall(PAGE.read_text()) if found == kind]


def files() -> dict[str, str]:
    """Each file the page shows, its blocks joined in order."""
    shown: dict[str, list[str]] = {}
    for name, text in blocks("title"):
        shown.setdefault(name, []).append(text)
    return {name: "\n".join(parts) for name, parts in shown.items()}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the page builds, its German catalog compiled as the page says."""
    folder = tmp_path_factory.mktemp("tutorial") / "lots"
    for name, text in files().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    pybabel = Path(sys.executable).parent / "pybabel"
    done = subprocess.run(
        [str(pybabel), "compile", "-d", "lots_game/templates/locale"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def site(package: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as installed: its wheel, unpacked."""
    site, names = unpacked_wheel(package, tmp_path_factory.mktemp("lots-wheel"))
    for shipped in (
        "lots_game/pictures.py",
        "lots_game/templates/form.yaml.j2",
        "lots_game/templates/texts/problems.yaml",
        "lots_game/templates/locale/de/LC_MESSAGES/messages.mo",
        "lots_game/templates/rules/en.md",
    ):
        assert shipped in names
    return site


@pytest.fixture
def lots(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Lots installed for this test only."""
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in ("lots_game", "lots_game.pictures"):
        sys.modules.pop(name, None)


def installed(site: Path) -> dict[str, str]:
    """The environment of a command run with the package installed."""
    return {**os.environ, "PYTHONPATH": str(site)}


def test_the_page_shows_a_small_whole_package() -> None:
    shown = files()
    assert {"pyproject.toml", "lots_game/__init__.py", "tests/test_lots.py"} <= set(shown)
    assert {"player.txt.j2", "public.txt.j2", "gm.txt.j2", "final.txt.j2", "form.yaml.j2"} <= {
        Path(name).name for name in shown
    }
    assert sum(text.count("\n") for text in shown.values()) < 320  # a couple of hundred lines
    assert not [name for name in shown if name.startswith("/") or ".." in name]


@pytest.mark.slow
def test_the_packages_own_tests_pass(package: Path, site: Path, tmp_path: Path) -> None:
    """``pytest`` in the package, the game installed: its contract test, the engine's demo,
    archive and verify included."""
    # its own temporary folder: by default pytest would first clear the oldest of the user's
    # pytest-of-* folders, which on a developer's machine took up to half a minute
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*pytest, "--basetemp", str(tmp_path / "own"), str(package / "tests")],
        cwd=tmp_path,
        env=installed(site),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


@pytest.mark.slow
def test_mypy_checks_the_game_against_the_contract(package: Path, tmp_path: Path) -> None:
    """The adjudicator installed (here its package folder, with its ``py.typed``), ``mypy
    --strict`` passes the game as the page shows it and names a method that breaks the
    contract."""
    folder = tmp_path / "installed"
    folder.mkdir()
    (folder / "adjudicator").symlink_to(ROOT / "adjudicator", target_is_directory=True)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    environment = {**os.environ, "PYTHONPATH": str(folder)}

    def check(where: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*mypy, "lots_game"], cwd=where, env=environment, capture_output=True, text=True
        )

    done = check(package)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken"
    shutil.copytree(package / "lots_game", broken / "lots_game")
    module = broken / "lots_game" / "__init__.py"
    source = module.read_text()
    assert "def normalise(self, order: Order)" in source
    module.write_text(
        source.replace("normalise(self, order: Order)", "normalise(self, order: str)")
    )
    done = check(broken)
    assert done.returncode == 1
    assert 'Following member(s) of "LotsGame" have conflicts' in done.stdout
    assert "def normalise(self, order: str)" in done.stdout


@pytest.mark.slow
def test_babel_extracts_the_words_to_translate(package: Path, tmp_path: Path) -> None:
    """``pybabel extract`` with the page's babel.cfg finds the templates' strings and each
    problem code's text, the code as its context."""
    pybabel = Path(sys.executable).parent / "pybabel"
    pot = tmp_path / "messages.pot"
    done = subprocess.run(
        [str(pybabel), "extract", "-F", "babel.cfg", "-o", str(pot), "lots_game/templates"],
        cwd=package,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    extracted = pot.read_text()
    assert 'msgid "Your bid cards: %(cards)s"' in extracted
    assert 'msgctxt "lots-not-in-hand"\nmsgid "you hold no bid card {bid}: you hold {hand}"' in (
        extracted
    )


@pytest.mark.slow
def test_the_commands_the_page_shows(site: Path, tmp_path: Path) -> None:
    """The demo prints what the page shows; a report in German and a page with its picture;
    the archive verifies."""
    command = installed_command()

    def adjudicator(*args: str) -> str:
        done = subprocess.run(
            [command, *args], cwd=tmp_path, env=installed(site), capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "lots\t2-4 players\tLots\n" in adjudicator("games")
    ((shown_command, shown),) = blocks("output")
    program, *args = shown_command.split()
    assert program == "adjudicator"
    assert adjudicator(*args).startswith(shown)
    page = adjudicator("report", "demo/game", "--player", "alice", "--format", "html")
    assert '<img src="data:image/png;base64,' in page
    adjudicator("archive", "demo/game", "-o", "lots.archive.json")
    assert "everything this archive holds agrees" in adjudicator("verify", "lots.archive.json")
    adjudicator("demo", "lots", "--seed", "4", "--lang", "de", "--dir", "demo-de")
    report = adjudicator("report", "demo-de/game", "--player", "alice", "--turn", "1")
    assert report.startswith("LOSE: Partie demo-lots-4, Zug 1, Bericht für alice\n")
    assert "Deine Gebotskarten: 1, 2, 3, 4, 5\n" in report


@pytest.mark.slow
def test_a_wrong_bid_is_refused_in_the_games_words(lots: Path, tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, game="lots")
    refused = table.signed("bob", {"bid": 9})
    result = run("submit", table.gamedir, refused)
    assert result.exit_code == 3
    assert (
        result.output
        == f"{refused}: refused: line 4: you hold no bid card 9: you hold 1, 2, 3, 4, 5\n"
    )
