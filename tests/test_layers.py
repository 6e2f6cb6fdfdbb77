"""The house in layers (docs/architecture.md): every module's imports read with ``ast`` and held
against the written rules.

Each package of ``adjudicator`` is a layer and may import only the layers below it (and the
standard library and third-party packages); the games import only the rules. Every import
counts: at the top of a module, inside a function, and under ``TYPE_CHECKING``. No import
cycle between modules, no private name taken from another module, and at most 15 entries in
the top package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS = (
    "rules",
    "store",
    "signing",
    "engine",
    "audit",
    "present",
    "mail",
    "demo",
    "cli",
    "testing",
)
"""The layers from the bottom up: each may import the ones before it, and none after it."""

BESIDE = {"demo": {"mail"}}
"""Layers that stand beside each other rather than above: neither imports the other."""

SHARED = {"adjudicator"}
"""What every layer may import: the package's face (``__version__``)."""

MAX_TOP_ENTRIES = 15


def module_files() -> Iterator[tuple[str, Path]]:
    """Every module of the installed package, named as installed: ``games/`` is
    ``adjudicator.games``."""
    for folder, package in (
        (ROOT / "adjudicator", "adjudicator"),
        (ROOT / "games", "adjudicator.games"),
    ):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join([package, *parts]), path


MODULES = dict(module_files())


def imports_of(name: str, path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """Each import in the module: its line, the module it names (relative imports made
    absolute), and the names it takes from it."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield node.lineno, target, [alias.name for alias in node.names]


def resolved(target: str, names: list[str]) -> list[str]:
    """The project's modules an import brings in: ``from adjudicator.rules import rng`` is
    ``adjudicator.rules.rng``; ``from adjudicator.rules.rng import Rng`` is the module itself."""
    if not target.startswith("adjudicator"):
        return []
    found = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
    if len(found) < len(names) or not names:
        found.append(target)
    return found


def layer_of(module: str) -> str:
    """``adjudicator.engine.intake`` is in ``engine``; ``adjudicator.demo`` in ``demo``; the games
    are ``games``; the package's face is ``adjudicator``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "adjudicator"
    return parts[1]


def allowed(source: str, target: str) -> bool:
    """May a module of layer ``source`` import one of layer ``target``?"""
    if source == target or target in SHARED:
        return True
    if source == "games":
        return target == "rules"
    if source == "__main__":
        return target == "cli"
    if source not in LAYERS or target not in LAYERS:
        return False
    if target in BESIDE.get(source, set()) or source in BESIDE.get(target, set()):
        return False
    return LAYERS.index(target) < LAYERS.index(source)


def edges() -> Iterator[tuple[str, int, str, list[str]]]:
    for name, path in MODULES.items():
        for line, target, names in imports_of(name, path):
            for module in resolved(target, names):
                yield name, line, module, names


def test_every_module_is_in_a_layer() -> None:
    """A new package at the top is a new layer: it must be written into the rules first."""
    known = {*LAYERS, "games", "adjudicator", "__main__"}
    strays = sorted({layer_of(m) for m in MODULES} - known)
    assert strays == [], f"packages in no layer (add them to docs/architecture.md): {strays}"


@pytest.mark.seconds
def test_no_import_runs_against_the_layers() -> None:
    against = [
        f"{MODULES[source].relative_to(ROOT)}:{line}: {layer_of(source)} imports {target} "
        f"({layer_of(target)})"
        for source, line, target, _ in edges()
        if not allowed(layer_of(source), layer_of(target))
    ]
    assert against == []


@pytest.mark.seconds
def test_no_private_name_from_another_module() -> None:
    """What is shared is public and named for what it does."""
    taken = [
        f"{MODULES[source].relative_to(ROOT)}:{line}: {name} from {target}"
        for source, line, target, names in edges()
        for name in names
        if name.startswith("_") and not name.startswith("__") and target != source
    ]
    assert taken == []


def cycles() -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), and every module that
    imports itself."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for source, _, target, _ in edges():
        if target in MODULES and target != source:
            graph[source].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.seconds
def test_no_import_cycle() -> None:
    """``TYPE_CHECKING`` imports and imports inside functions count: a type needed from above
    means the code is in the wrong layer."""
    assert cycles() == []


@pytest.mark.seconds
def test_a_package_does_not_lean_on_its_parent() -> None:
    """A layer's modules import each other, never the package's ``__init__`` (which holds only
    its docstring), so that importing one module loads no other."""
    faces = [
        f"{MODULES[source].relative_to(ROOT)}:{line}: imports {target}"
        for source, line, target, names in edges()
        if target != "adjudicator"
        and MODULES.get(target, Path()).name == "__init__.py"
        and target != source
        and not all(f"{target}.{n}" in MODULES for n in names)
        and layer_of(target) != "games"
        and layer_of(source) != "__main__"
    ]
    assert faces == []


def test_the_top_package_stays_small() -> None:
    entries = [
        p.name
        for p in (ROOT / "adjudicator").iterdir()
        if p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())
    ]
    assert len(entries) + 2 <= MAX_TOP_ENTRIES, sorted(entries)  # + games and templates


@pytest.mark.parametrize(
    ("source", "target", "ok"),
    [
        ("engine", "rules", True),
        ("rules", "engine", False),
        ("games", "rules", True),
        ("games", "engine", False),
        ("present", "audit", True),
        ("audit", "present", False),
        ("demo", "mail", False),
        ("mail", "demo", False),
        ("cli", "mail", True),
        ("store", "signing", False),
    ],
)
def test_the_rules_say_what_they_mean(source: str, target: str, ok: bool) -> None:
    """The checker itself: a few imports it must allow and refuse."""
    assert allowed(source, target) is ok


def test_the_checker_sees_imports_everywhere(tmp_path: Path) -> None:
    """An import under ``TYPE_CHECKING`` or inside a function is found, and a relative one is
    made absolute."""
    module = tmp_path / "probe.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from adjudicator.cli import main\n"
        "def f():\n"
        "    from adjudicator.mail import queue\n"
        "from .sibling import thing\n",
        encoding="utf-8",
    )
    found = {(t, tuple(n)) for _, t, n in imports_of("adjudicator.rules.probe", module)}
    assert ("adjudicator.cli", ("main",)) in found
    assert ("adjudicator.mail", ("queue",)) in found
    assert ("adjudicator.rules.sibling", ("thing",)) in found
