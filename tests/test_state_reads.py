"""A turn's state is parsed once per process for the same bytes (journal.parse_again): each
reader still gets its own copy, and a state changed by hand after a read is still refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from adjudicator.store import journal
from tests.helpers import Table, run

STATE = "turns/0001/state.json"


def test_each_read_is_its_own_copy_of_the_same_parse() -> None:
    plain = {"turn": 3, "hands": {"alice": [1, 2]}, "big": 10**30, "x": 0.1, "lone": "\ud800"}
    data = json.dumps({**plain, "minus": -0.0}).encode()
    first = journal.parse_again(data)
    assert first == journal.parse(data)
    assert repr(journal.parse_again(data)) == repr(journal.parse(data))  # -0.0 stays -0.0
    first["hands"]["alice"].append(99)
    first["turn"] = 4
    second = journal.parse_again(data)
    assert second == journal.parse(data)
    assert second["hands"] is not journal.parse_again(data)["hands"]


def test_no_more_than_a_few_documents_are_kept() -> None:
    for turn in range(3 * journal._PARSED_KEPT):
        assert journal.parse_again(json.dumps({"turn": turn}).encode()) == {"turn": turn}
    assert len(journal._PARSED) <= journal._PARSED_KEPT


def test_what_is_not_json_is_refused_as_parse_refuses_it() -> None:
    for data in (b'{"turn": NaN}', b'{"turn": 1, \xff', b""):
        for reader in (journal.parse, journal.parse_again):
            try:
                reader(data)
            except ValueError:
                continue
            raise AssertionError(f"{reader.__name__} read {data!r}")


def test_a_state_changed_by_hand_after_the_process_read_it_is_refused(tmp_path: Path) -> None:
    gamedir = tmp_path / "game"
    shutil.copytree(Table(tmp_path / "table").gamedir, gamedir)
    shown = run("view", gamedir, "--player", "alice", "--json")
    assert shown.exit_code == 0, shown.output
    path = gamedir / STATE
    path.write_text(path.read_text("utf-8").replace("{", '{"edited": true, ', 1), "utf-8")
    result = run("view", gamedir, "--player", "alice", "--json")
    assert result.exit_code == 4, result.output
    assert STATE in result.output and "edited" not in result.output
