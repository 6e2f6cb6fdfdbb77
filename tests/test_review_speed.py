"""Review of the speed-ups: the rendered-report cache, batched fsyncs, the scandir walk
of a game's files, the plain copies of the games."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from stat import S_ISDIR
from typing import Any

import pytest

from adjudicator.present import rendered
from adjudicator.rules.errors import UsageProblem
from adjudicator.store import steps, usercache
from adjudicator.store.gamedir import GameDir
from tests.helpers import Table, run
from tests.imapserver import ImapServer


def _walked(root: Path) -> set[str]:
    """``steps.tracked`` as os.walk gave it before the scandir walk."""
    found = set()
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel in steps.NOT_TRACKED or name.endswith(".lock") or steps.is_half_marker(rel):
                continue
            found.add(rel)
    return found


# -- steps.tracked -----------------------------------------------------------------------------
def test_the_walk_finds_what_os_walk_found(tmp_path: Path) -> None:
    root = tmp_path / "game"
    (root / "turns" / "0001").mkdir(parents=True)
    (root / "turns" / "0001" / "state.json").write_text("{}")
    (root / ".hidden").write_text("x")
    (root / "odd\udcff name").write_text("x")
    (root / "to-file").symlink_to(root / ".hidden")
    (root / "dangling").symlink_to(root / "nowhere")
    (root / "loop").symlink_to("loop")  # ELOOP when followed
    (root / ".lock").write_text("")
    (root / "mail.lock").write_text("")
    # the marker, a half-written one and the journal are left out at the top alone
    for rel in (".step", "..step.k2j3.tmp", "log.jsonl"):
        (root / rel).write_text("{}")
        (root / "turns" / rel).write_text("{}")
    (root / "turns" / "0001" / "queue.lock").write_text("")
    assert steps.tracked(GameDir(root)) == _walked(root)
    assert {"turns/.step", "turns/..step.k2j3.tmp", "turns/log.jsonl"} <= _walked(root)
    # A link to a folder, which os.walk passed over, is refused: a step would write through it.
    (root / "to-folder").symlink_to(root / "turns")
    with pytest.raises(UsageProblem, match="is a link to another place"):
        steps.tracked(GameDir(root))


def test_a_symbolic_link_loop_in_a_game_does_not_stop_its_steps(tmp_path: Path) -> None:
    """A link that points at itself (a slip with ln -s) is a stray the game does not name, as it
    was: steps and doctor go on (exit 1 would mean a bug)."""
    table = Table(tmp_path, players=3)
    (table.gamedir / "loop").symlink_to("loop")
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, table.legal(player), "order.yaml")
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0, result.output


# -- the rendered-report cache -----------------------------------------------------------------
def _render(head: str | None) -> str:
    return f"chain head #{(head or '-')[:32]}\n"


def test_a_template_in_a_linked_folder_changes_the_key(tmp_path: Path) -> None:
    """Jinja reads templates through a link to a folder (a game's templates sharing another
    folder's): a change there renders afresh, as a change anywhere else does."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "part.j2").write_text("one")
    program = tmp_path / "program"
    program.mkdir()
    (program / "shared").symlink_to(shared)
    before = usercache.fingerprint(str(program))
    (shared / "part.j2").write_text("one, and more")
    usercache.fingerprint.cache_clear()
    assert usercache.fingerprint(str(program)) != before


def test_a_linked_folder_loop_is_walked_once(tmp_path: Path) -> None:
    program = tmp_path / "program"
    (program / "sub").mkdir(parents=True)
    (program / "sub" / "up").symlink_to(program)
    (program / "a.j2").write_text("a")
    usercache.fingerprint.cache_clear()
    assert usercache.fingerprint(str(program)).count("a.j2") == 1


def test_folders_without_an_inode_are_walked_by_their_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system gives a folder no inode (0), each folder is still walked once and a
    change in any of them changes the key."""
    program = tmp_path / "program"
    (program / "games" / "sultan").mkdir(parents=True)
    (program / "games" / "sultan" / "report.j2").write_text("one")
    (program / "games" / "up").symlink_to(program)
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real_stat(path, *args, **kwargs)
        if not S_ISDIR(found.st_mode):
            return found
        fields = list(found)
        fields[1] = 0  # st_ino
        return os.stat_result(fields)

    monkeypatch.setattr(os, "stat", stat)
    usercache.fingerprint.cache_clear()
    before = usercache.fingerprint(str(program))
    assert before.count("report.j2") == 1
    (program / "games" / "sultan" / "report.j2").write_text("one, and more")
    usercache.fingerprint.cache_clear()
    assert usercache.fingerprint(str(program)) != before


def test_the_game_s_own_code_is_part_of_the_program() -> None:
    """The game's title comes from its code: wherever its package is (an editable install keeps
    the built-in games in games/, outside adjudicator/), a change there renders afresh."""
    from adjudicator.games import sultan

    folder = Path(os.path.realpath(Path(sultan.__file__).parent))
    kept_folders = rendered.program("sultan", lambda: sultan.GAME)
    assert any(folder.is_relative_to(kept) for kept in kept_folders)


def test_a_stray_in_the_cache_folder_does_not_stop_pruning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rendered, "KEPT_IN_EACH", 1)
    for n in range(400):
        folder = rendered._folder() / f"{n % 256:02x}"
        if n < 256:  # a stray folder and a dangling link in every folder of the cache
            (folder / "a-folder").mkdir(parents=True)
            (folder / "dangling").symlink_to(tmp_path / "nowhere")
        usercache._PRUNED.clear()  # each shown by a command of its own
        rendered.shown("form", {"n": n}, "ab" * 32, _render, [])
    for folder in rendered._folder().iterdir():
        assert len(list(folder.glob("*.txt"))) <= 1


def test_pruning_never_deletes_beyond_the_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rendered, "KEPT_IN_EACH", 1)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for n in range(10):
        (elsewhere / f"precious-{n}.txt").write_text("keep me")
    rendered._folder().mkdir(parents=True)
    for n in range(256):  # every folder of the cache a link to the precious files
        (rendered._folder() / f"{n:02x}").symlink_to(elsewhere)
    for n in range(25):
        usercache._PRUNED.clear()  # each shown by a command of its own
        rendered.shown("form", {"n": n}, "ab" * 32, _render, [])
    assert {p.name for p in elsewhere.iterdir() if p.name.startswith("precious")} == {
        f"precious-{n}.txt" for n in range(10)
    }


def test_a_cached_report_is_for_its_user_only(tmp_path: Path) -> None:
    """The game master's report (every hand) is kept where only they can read it."""
    table = Table(tmp_path, players=3)
    assert run("report", table.gamedir, "--gm").exit_code == 0
    entries = list(rendered._folder().rglob("*.txt"))
    assert entries
    for entry in entries:
        assert entry.stat().st_mode & 0o077 == 0, oct(entry.stat().st_mode)


# -- tests/imapserver.py -----------------------------------------------------------------------
def test_an_emptied_dovecot_keeps_no_subscription(dovecot: ImapServer) -> None:
    """The adjudicator subscribes the folders it makes (mail/imap.py): a test that checks that
    must not pass on a subscription an earlier test of the module left."""
    with dovecot.client() as client:
        for name in ("Done", "Set aside", 'quo"te', "a.b.c", "\u00c9mile"):
            client.create_folder(name)
            client.subscribe_folder(name)
    dovecot.empty()
    with dovecot.client() as client:
        assert [name for _, _, name in client.list_sub_folders()] in ([], ["INBOX"])


def _bindings(tree: ast.Module, shared: set[str]) -> list[tuple[int, str]]:
    """Where a module binds one of ``shared`` outside its functions and classes (an import, a
    star import of the module that defines them, any assignment, however nested in ``if`` or
    ``try``), or names a fixture so (``@pytest.fixture(name=...)``)."""
    found = []
    for node in ast.walk(tree):
        named = isinstance(node, ast.keyword) and node.arg == "name"
        if named and isinstance(node.value, ast.Constant) and node.value.value in shared:
            found.append((node.value.lineno, str(node.value.value)))
    outer: list[ast.AST] = list(tree.body)
    while outer:
        node = outer.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*" or (alias.asname or alias.name) in shared:
                    found.append((node.lineno, alias.asname or alias.name))
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in shared:
            found.append((node.lineno, node.id))
        outer.extend(ast.iter_child_nodes(node))
    return sorted(found)


@pytest.mark.seconds
def test_no_test_module_starts_a_server_or_browser_of_its_own() -> None:
    """tests/conftest.py registers the browser and the IMAP server once per test process: a
    module that bound one of those fixtures itself would start its own, and keep it to the end
    of the run."""
    from tests.conftest import SHARED

    shared = {fixture.__name__ for fixture in SHARED}
    assert shared == {"browser", "dovecot", "imap_server", "finished"}
    bound = {}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        found = _bindings(ast.parse(path.read_text("utf-8")), shared)
        if found:
            bound[path.name] = found
    assert bound == {}


@pytest.mark.parametrize(
    "source",
    [
        "from tests.browser import browser",
        "from tests.imapserver import *",
        "from tests import imapserver as i\ndovecot, imap_server = i.dovecot, i.imap_server",
        "from tests import imapserver\ndovecot: object = imapserver.dovecot",
        "try:\n    from tests.browser import browser as browser\nexcept ImportError:\n    pass",
        "import pytest\n@pytest.fixture(name='dovecot')\ndef mine(): pass",
    ],
)
def test_the_guard_finds_each_way_of_binding_a_shared_fixture(source: str) -> None:
    assert _bindings(ast.parse(source), {"browser", "dovecot", "imap_server"})


def test_the_guard_leaves_a_tests_own_names_alone() -> None:
    source = "def test_it(browser):\n    dovecot = 1\nclass T:\n    imap_server = 2"
    assert _bindings(ast.parse(source), {"browser", "dovecot", "imap_server"}) == []


# -- batched fsyncs ----------------------------------------------------------------------------
def test_a_new_game_lasts_its_folder_and_journal_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``new`` says the game was created once its first line is written: the game's folder (a
    name in the folder above) and its journal (a new name in the game's folder) last by then."""
    from tests.test_durability import Recorder

    table = Table(tmp_path, players=3)
    recorder = Recorder(monkeypatch, tmp_path)
    gamedir = tmp_path / "games" / "second"
    result = run("new", gamedir, "--setup", table.setup_path)
    assert result.exit_code == 0, result.output
    recorder.check_each_rename_lasts_before_the_journal()
    events = recorder.events
    journal = events.index(("journal", ""))
    assert ("fsync-folder", os.path.abspath(gamedir)) in events[journal + 1 :]
