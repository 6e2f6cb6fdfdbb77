"""Player names: the readers the store and the mail use for others are never player names, and
no two names (or paths made from them) differ only in case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from adjudicator.rules.names import RESERVED_READERS
from tests.helpers import Table, run
from tests.ssh import make_key, ssh_sign


def write_setup(root: Path, names: list[str]) -> Path:
    """A setup with these player names, each quoted; player i's name is on line 4 + 3i."""
    lines = ["game: sultan", "id: cairo-2026", "players:"]
    for index, name in enumerate(names):
        make_key(root / "keys", f"k{index}")
        lines += [
            f"- name: {json.dumps(name)}",
            f"  email: p{index}@example.org",
            f"  key_file: keys/k{index}.pub",
        ]
    path = root / "setup.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_reserved_readers() -> None:
    assert {"gm", "public", "all"} <= set(RESERVED_READERS)
    assert all(name == name.casefold() for name in RESERVED_READERS)


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("gm", "the game master (report --gm, views/gm.json, the game master's mail)"),
        ("GM", "the game master (report --gm, views/gm.json, the game master's mail)"),
        ("Public", "the spectators (report --public, views/public.json)"),
        ("all", "every player (press to: all)"),
        ("ALL", "every player (press to: all)"),
    ],
)
def test_a_reserved_reader_is_no_player_name(tmp_path: Path, name: str, reader: str) -> None:
    setup = write_setup(tmp_path, ["alice", name, "carol"])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line 7: player name {name!r} stands for {reader}; no player may take 'all', 'gm', "
        "'public', in any case\n"
    )
    assert not (tmp_path / "g").exists()


def test_names_that_differ_only_in_case(tmp_path: Path) -> None:
    setup = write_setup(tmp_path, ["alice", "Bob", "bob", "ALICE"])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3
    assert result.output == (
        f"Error: {setup}: refused\n"
        "  line 10: 'bob' is the same name as 'Bob' (names are compared ignoring case)\n"
        "  line 13: 'ALICE' is the same name as 'alice' (names are compared ignoring case)\n"
    )
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("name", ["no", "Yes", "on", "OFF", "y", "n", "true", "False", "null"])
def test_a_name_yaml_reads_as_no_text(tmp_path: Path, name: str) -> None:
    """An order file says ``player: no``: YAML reads that as false, so no order could name it."""
    setup = write_setup(tmp_path, ["alice", name])
    result = run("new", tmp_path / "g", "--setup", setup)
    assert result.exit_code == 3
    assert result.output == (
        f"Error: {setup}: refused\n"
        f"  line 7: player name {name!r} reads as true, false or nothing in YAML, not as a "
        "name; choose another\n"
    )


class NamedTable(Table):
    """A Table whose players have the given names."""

    def __init__(self, root: Path, names: list[str]) -> None:
        self.root = root
        self.names = names
        self.keys = {n: make_key(root / "keys", f"key-{i}") for i, n in enumerate(names)}
        players = [
            {"name": n, "email": f"p{i}@example.org", "key_file": f"keys/key-{i}.pub"}
            for i, n in enumerate(names)
        ]
        self.setup = {"game": "sultan", "id": "cairo-2026", "players": players}
        self.setup_path = root / "setup.yaml"
        self.setup_path.write_text(yaml.safe_dump(self.setup, sort_keys=False))
        self.gamedir = root / "game"
        result = run("new", self.gamedir, "--setup", self.setup_path)
        assert result.exit_code == 0, result.output


@pytest.mark.seconds
def test_every_path_from_names_stays_distinct_ignoring_case(tmp_path: Path) -> None:
    """Case-insensitive file systems: every path the store writes (reports, forms, orders and
    their replacements, mail), for names as alike as the rules allow and for every reader,
    stays distinct under casefold()."""
    names = ["Ann", "ann-1", "ann_1", "Gm-", "b"]
    table = NamedTable(tmp_path, names)
    for _ in range(3):
        status = table.status()
        for player in status["owed"]:
            text = table.order_text(player, table.legal(player))
            for version, extra in enumerate(("", "# changed my mind\n")):
                path = table.write(f"t{status['turn']}-{version}-{player}.yaml", text + extra)
                ssh_sign(table.keys[player], path)
                result = run("submit", table.gamedir, path)
                assert result.exit_code == 0, result.output
        assert run("adjudicate", table.gamedir).exit_code == 0
    result = run("send", table.gamedir)
    assert result.exit_code == 0, result.output
    paths = [p.relative_to(table.gamedir).as_posix() for p in table.gamedir.rglob("*")]
    assert len({p.casefold() for p in paths}) == len(paths)
    stored = {p.rpartition("/")[2] for p in paths if "/views/" in p}
    assert {f"{reader}.json" for reader in [*names, "public", "gm"]} <= stored
    assert any(p.startswith("outbox/") for p in paths)
