"""No test, and no fixture shared by many tests, reads or writes the real user's folders: the
cache (summaries, rendered reports, compiled templates), the settings and the data are the
run's own, also for a fixture of wide scope, which is set up before any test's own folders."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from adjudicator.store import usercache

FOLDERS = {
    "cache": lambda: usercache.folder("summary"),
    "settings": lambda: Path(platformdirs.user_config_dir("adjudicator")),
    "data": lambda: Path(platformdirs.user_data_dir("adjudicator")),
}


@pytest.fixture(scope="module")
def seen_by_a_wide_fixture() -> dict[str, Path]:
    """The user's folders as a fixture shared by a module's tests finds them."""
    return {name: where() for name, where in FOLDERS.items()}


def test_a_fixture_of_wide_scope_never_sees_the_users_own_folders(
    seen_by_a_wide_fixture: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = tmp_path_factory.getbasetemp().resolve()
    for name, where in seen_by_a_wide_fixture.items():
        assert where.resolve().is_relative_to(run), f"the {name} folder: {where}"
    assert "ADJUDICATOR_CONFIG" not in os.environ


def test_a_test_has_folders_of_its_own(tmp_path: Path) -> None:
    for name, where in FOLDERS.items():
        assert where().resolve().is_relative_to(tmp_path.resolve()), name
