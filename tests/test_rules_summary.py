"""Each game's rules summary, shipped beside its templates (``templates/<game>/rules/<lang>.md``)
and read by :mod:`adjudicator.present.rules_summary`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from adjudicator.present.rules_summary import summary, summary_of
from adjudicator.rules.errors import UsageProblem


def game_with(folder: Path) -> Any:
    """A game whose templates folder is ``folder`` (all a summary reads of a game)."""
    return SimpleNamespace(name="made-up", templates=lambda: folder)


def test_a_language_without_its_own_file_gets_the_english_one(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "en.md").write_text("# The rules\n", encoding="utf-8")
    (tmp_path / "rules" / "de.md").write_text("# Die Regeln\n", encoding="utf-8")
    game = game_with(tmp_path)
    assert summary_of(game, "de") == "# Die Regeln\n"
    assert summary_of(game, "en") == "# The rules\n"
    assert summary_of(game, "nl") == "# The rules\n"
    assert summary_of(game, "../rules/de") == "# The rules\n", "only a language names a file"


def test_a_game_that_ships_no_summary_has_none(tmp_path: Path) -> None:
    assert summary_of(game_with(tmp_path), "en") is None
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "de.md").write_text("# Die Regeln\n", encoding="utf-8")
    assert summary_of(game_with(tmp_path), "fr") is None, "no English file: nothing to fall to"


def test_a_game_that_is_not_installed_is_named_as_such() -> None:
    with pytest.raises(UsageProblem, match="no game named 'no-such-game'"):
        summary("no-such-game", "en")
