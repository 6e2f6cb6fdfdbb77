"""What a real (non-editable) install gets: a wheel built from the repository carries every
module and every template, under ``adjudicator`` only.

An editable install reads the source folders and hides a package or a template left out of the
wheel; so this test builds the wheel itself, from a copy of the repository's files.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.seconds  # a wheel built and installed (`make quick` leaves it out)

ROOT = Path(__file__).parent.parent
MAPPED = {
    "adjudicator": "adjudicator",
    "games": "adjudicator/games",
    "templates": "adjudicator/templates",
    "docs": "adjudicator/docs",
}
"""Each repository folder and where it lives in the installed package (docs/architecture.md)."""
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def source_files() -> set[str]:
    """Every file of the mapped folders, named as the wheel should name it."""
    expected = set()
    for folder, installed in MAPPED.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                expected.add(f"{installed}/{path.relative_to(ROOT / folder).as_posix()}")
    return expected


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for folder in MAPPED:
        shutil.copytree(ROOT / folder, source / folder, ignore=SKIP)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(work)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (built,) = work.glob("adjudicator-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_carries_every_module_and_template(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    expected = source_files()
    assert "adjudicator/mail/ingest.py" in expected
    assert "adjudicator/templates/common/_form.txt.j2" in expected
    for lang in ("en", "de", "nl", "fr"):  # each game's rules summary (package data *.md)
        assert f"adjudicator/templates/sultan/rules/{lang}.md" in expected
        assert f"adjudicator/templates/sultans_court/rules/{lang}.md" in expected
    assert "adjudicator/docs/players.de.md" in expected  # the guide the welcome attaches
    assert expected - names == set(), "left out of the wheel"
    dist_info = {n for n in names if n.split("/")[0].endswith(".dist-info")}
    assert names - dist_info - expected == set(), "in the wheel but not in the repository"


def test_the_wheel_installs_nothing_outside_adjudicator(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"adjudicator"}


def test_every_registered_game_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    parser = configparser.ConfigParser()
    parser.read_string(wheel.read(entry_points).decode())
    games = dict(parser["adjudicator.games"])
    assert set(games) == {
        p.name for p in (ROOT / "games").iterdir() if (p / "__init__.py").is_file()
    }, "every game folder is registered, and nothing else"
    names = set(wheel.namelist())
    for target in games.values():
        module = target.split(":")[0].replace(".", "/")
        assert f"{module}/__init__.py" in names or f"{module}.py" in names, target


def test_the_built_in_games_are_named_as_their_entry_points_say() -> None:
    """adjudicator.store.registry knows its own games without scanning: the names must be the ones
    pyproject.toml registers."""
    import tomllib

    from adjudicator.store.registry import BUILT_IN

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["adjudicator.games"] == BUILT_IN


def test_the_package_says_it_is_typed(wheel: zipfile.ZipFile) -> None:
    """PEP 561: with ``py.typed`` installed, mypy checks a game of another package against
    ``adjudicator.rules.contract`` instead of taking every name from adjudicator as ``Any``."""
    from importlib.resources import files

    assert "adjudicator/py.typed" in wheel.namelist()
    assert (files("adjudicator") / "py.typed").is_file(), "and the editable install has it"
