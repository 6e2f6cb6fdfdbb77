"""The mutation check: do the tests fail when the code they guard is changed?

Each mutant changes one thing in one module: a comparison flipped (``==``/``!=``, ``<``/``<=``,
``>``/``>=``, ``is``/``is not``, ``in``/``not in``), ``and``/``or`` swapped, a ``not`` taken
away, ``True``/``False`` swapped, an integer constant one more or one less, or a guard (an
``if`` without ``else`` whose block ends in ``raise`` or ``return``) removed. The mutants are
made with :mod:`ast` from each module's own source and replace only the changed expression (or
the guard's lines), so the rest of the file stays as it is. A fixed sample of each module's
mutants runs the tests named for that module (``TARGETS``): a mutant the tests fail on (or that
runs past its time) is killed, one they pass on survived. The module's file is always restored
(its bytes and its modification time) before the next mutant and when the run stops.

It needs the editable install (``make dev``): the tests must import the files it changes. It is
not part of the test suite; ``make mutate`` runs it (some 20 minutes on two cores).

    .venv/bin/python benchmarks/mutate.py [--per-module 10] [--seed 2026] [--only engine/gm.py]
    .venv/bin/python benchmarks/mutate.py --list          # the sampled mutants, nothing run
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent

TARGETS: dict[str, list[str]] = {
    "adjudicator/engine/absences.py": ["tests/test_absences.py", "tests/test_notices.py"],
    "adjudicator/engine/adjudication.py": [
        "tests/test_review_today.py",
        "tests/test_votes.py",
        "tests/test_commit_reveal.py",
        "tests/test_absences.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/create.py": [
        "tests/test_names.py",
        "tests/test_cli.py",
        "tests/test_reliability.py",
    ],
    "adjudicator/engine/forms.py": [
        "tests/test_court_reports.py",
        "tests/test_inputs.py",
        "-k",
        "form",
    ],
    "adjudicator/engine/gate.py": [
        "tests/test_votes.py",
        "tests/test_notices.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/gm.py": ["tests/test_reliability.py", "tests/test_game_master.py"],
    "adjudicator/engine/intake.py": [
        "tests/test_order_problems.py",
        "tests/test_commit_reveal.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/notice_intake.py": [
        "tests/test_votes.py",
        "tests/test_absences.py",
        "tests/test_notices.py",
    ],
    "adjudicator/engine/notices.py": ["tests/test_notices.py", "tests/test_press.py"],
    "adjudicator/engine/open_game.py": [
        "tests/test_votes.py",
        "tests/test_commit_reveal.py",
        "tests/test_reliability.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/orders.py": [
        "tests/test_order_problems.py",
        "tests/test_commit_reveal.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/press.py": ["tests/test_press.py"],
    "adjudicator/engine/preview.py": ["tests/test_review_today.py", "tests/test_preview.py"],
    "adjudicator/engine/queries.py": [
        "tests/test_commit_reveal.py",
        "tests/test_votes.py",
        "tests/test_view_and_log.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/setup.py": [
        "tests/test_schedule.py",
        "tests/test_names.py",
        "tests/test_inputs.py::test_a_deadline_is_a_duration_or_a_daily_time",
        "tests/test_inputs.py::test_each_file_is_read_up_to_its_cap_and_not_a_byte_more",
        "tests/test_sultans_court_cli.py",
    ],
    "adjudicator/rules/views.py": [
        "tests/test_votes.py",
        "tests/test_final_reports.py",
        "tests/test_commit_reveal.py",
        "tests/test_hidden_information.py",
    ],
    "games/sultan/view.py": ["tests/test_sultan_rules.py", "tests/test_hidden_information.py"],
    "games/sultans_court/view.py": [
        "tests/test_sultans_court_rules.py",
        "tests/test_court_reports.py",
        "tests/test_hidden_information_court.py",
    ],
    "adjudicator/mail/answers.py": ["tests/test_mail_answers.py"],
    "adjudicator/audit/verify.py": ["tests/test_commit_reveal.py", "tests/test_verify.py"],
}
"""Each module mutated, and the pytest arguments of the tests that guard it (the tests marked
slow are left out, and the first failure ends a run)."""

FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


@dataclass
class Mutant:
    path: str
    line: int
    kind: str
    before: str
    after: str
    start: int
    """The byte offset of the changed text in the file, and its end."""
    end: int
    outcome: str = "not run"
    seconds: float = 0.0

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.after.encode() + source[self.end :]

    def describe(self) -> str:
        change = f"`{_short(self.before)}` -> `{_short(self.after)}`"
        return f"{self.path}:{self.line} {self.kind}: {change}"


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


class _Finder(ast.NodeVisitor):
    """Every mutant of one module's source."""

    def __init__(self, path: str, source: bytes) -> None:
        self.path = path
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.found: list[Mutant] = []

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col  # ast columns count UTF-8 bytes

    def segment(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def text(self, start: int, end: int) -> str:
        return self.source[start:end].decode()

    def replace(self, node: ast.AST, kind: str, after: str) -> None:
        start, end = self.segment(node)
        self.found.append(
            Mutant(self.path, node.lineno, kind, self.text(start, end), after, start, end)  # type: ignore[attr-defined]
        )

    # what is never mutated: annotations (strings under `from __future__ import annotations`),
    # f-strings (their inner positions are not reliable before Python 3.12), type-checking blocks
    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return

    def visit_arg(self, node: ast.arg) -> None:
        return

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for item in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if item is not None:
                self.visit(item)
        for statement in node.body:
            self.visit(statement)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_function(node)

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        self._guard(node)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for index, op in enumerate(node.ops):
            flipped = FLIPS.get(type(op))
            if flipped is None:
                continue
            ops = list(node.ops)
            ops[index] = flipped()
            after = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
            self.replace(node, "comparison flipped", f"({ast.unparse(after)})")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        after = ast.BoolOp(op=other, values=node.values)
        self.replace(node, "and/or swapped", f"({ast.unparse(after)})")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            start, end = self.segment(node.operand)
            self.replace(node, "not taken away", f"({self.text(start, end)})")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self.replace(node, "True/False swapped", str(not value))
        elif isinstance(value, int):
            self.replace(node, "constant + 1", f"({value + 1})")
            self.replace(node, "constant - 1", f"({value - 1})")

    def _guard(self, node: ast.If) -> None:
        """An ``if`` without ``else`` whose block ends in ``raise`` or ``return``, on lines of
        its own: the mutant replaces those lines with ``pass``."""
        if node.orelse or not isinstance(node.body[-1], ast.Raise | ast.Return):
            return
        start, end = self.segment(node)
        line_start = self.starts[node.lineno - 1]
        line_end = self.starts[node.end_lineno] if node.end_lineno else end
        head = self.source[line_start:start]
        tail = self.source[end:line_end]
        if head.strip() or not self.source[start:end].startswith(b"if ") or tail.strip():
            return  # an elif, or a statement sharing its line
        before = self.text(start, end)
        self.found.append(
            Mutant(self.path, node.lineno, "guard removed", before, "pass", start, end)
        )


def mutants_of(path: str) -> list[Mutant]:
    source = (ROOT / path).read_bytes()
    finder = _Finder(path, source)
    tree = ast.parse(source)
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the module's docstring
    for statement in body:
        finder.visit(statement)
    made = []
    for mutant in finder.found:
        try:
            compile(mutant.apply(source), path, "exec")
        except SyntaxError:
            continue  # a change the grammar does not allow there: no mutant
        made.append(mutant)
    return made


def sample(path: str, count: int, seed: int) -> list[Mutant]:
    every = mutants_of(path)
    if len(every) <= count:
        return every
    chosen = random.Random(f"{seed} {path}").sample(range(len(every)), count)
    return [every[i] for i in sorted(chosen)]


class _Restored:
    """The module's file as it was, written back (bytes and modification time) on leaving."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.original = path.read_bytes()
        self.times = path.stat()

    def write(self, data: bytes) -> None:
        self.path.write_bytes(data)

    def __enter__(self) -> _Restored:
        return self

    def __exit__(self, *_: object) -> None:
        self.path.write_bytes(self.original)
        os.utime(self.path, ns=(self.times.st_atime_ns, self.times.st_mtime_ns))


def run_tests(tests: list[str], timeout: float) -> tuple[str, float]:
    """The tests' verdict on the files as they are now: passed, failed, or timed out."""
    env = {**os.environ, "CI": "true", "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    command += ["-m", "not slow", *tests]
    start = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return "timed out", time.monotonic() - start
    seconds = time.monotonic() - start
    if done.returncode == 0:
        return "passed", seconds
    if done.returncode in (1, 2):  # tests failed; errors while collecting (the module broke)
        return "failed", seconds
    tail = done.stdout.decode(errors="replace").strip().splitlines()[-1:]
    return f"pytest exit {done.returncode} {tail}", seconds


def _editable() -> str | None:
    """Why the tests would not see the changed files (None: they would)."""
    probe = (
        "import adjudicator, adjudicator.games.sultan.view as view\n"
        "print(adjudicator.__file__)\nprint(view.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd="/", capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return f"adjudicator cannot be imported: {done.stderr.strip()[-300:]}"
    for line in done.stdout.split():
        if not Path(line).resolve().is_relative_to(ROOT):
            return f"adjudicator is imported from {line}, not from this folder: run make dev"
    return None


def check(
    paths: list[str],
    per_module: int,
    seed: int,
    lines: list[int] | None = None,
    tests_given: list[str] | None = None,
) -> Iterator[tuple[str, list[Mutant]]]:
    for path in paths:
        tests = tests_given or TARGETS[path]
        mutants = [m for m in sample(path, per_module, seed) if not lines or m.line in lines]
        verdict, base = run_tests(tests, timeout=600)
        if verdict != "passed":
            raise SystemExit(f"{path}: the tests fail before any change ({verdict}): {tests}")
        timeout = max(30.0, 3 * base)
        print(f"{path}: {len(mutants)} mutants, tests {' '.join(tests)} ({base:.0f}s)", flush=True)
        with _Restored(ROOT / path) as restored:
            for mutant in mutants:
                try:
                    restored.write(mutant.apply(restored.original))
                    verdict, mutant.seconds = run_tests(tests, timeout)
                finally:
                    restored.write(restored.original)
                mutant.outcome = {"passed": "survived", "failed": "killed"}.get(verdict, verdict)
                if verdict == "timed out":
                    mutant.outcome = "killed (timed out)"
                mark = "  SURVIVED" if mutant.outcome == "survived" else ""
                print(f"  {mutant.outcome:<9} {mutant.describe()}{mark}", flush=True)
        yield path, mutants


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # so every file is restored on the way out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-module", type=int, default=10, help="mutants sampled per module")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--only", action="append", default=[], help="a module (path, or its end) to check alone"
    )
    parser.add_argument(
        "--line", type=int, action="append", default=[], help="only the sampled mutants at a line"
    )
    parser.add_argument("--tests", nargs="+", help="pytest arguments instead of the module's")
    parser.add_argument("--list", action="store_true", help="print the sampled mutants and stop")
    parser.add_argument("--json", type=Path, help="write every mutant and its outcome here")
    args = parser.parse_args()
    paths = [p for p in TARGETS if not args.only or any(p.endswith(o) for o in args.only)]
    if not paths:
        parser.error(f"no module named {args.only}; the modules: {', '.join(TARGETS)}")
    if args.list:
        for path in paths:
            every = mutants_of(path)
            chosen = sample(path, args.per_module, args.seed)
            print(f"{path}: {len(chosen)} of {len(every)} mutants")
            for mutant in chosen:
                print(f"  {mutant.describe()}")
        return 0
    why = _editable()
    if why is not None:
        print(f"mutate: {why}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    start = time.monotonic()
    results: list[Mutant] = []
    for _, mutants in check(paths, args.per_module, args.seed, args.line, args.tests):
        results += mutants
    survived = [m for m in results if m.outcome == "survived"]
    killed = [m for m in results if m.outcome.startswith("killed")]
    other = [m for m in results if m not in survived and m not in killed]
    minutes = (time.monotonic() - start) / 60
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (used.ru_utime + used.ru_stime) / 60
    print(f"\n{'module':<40} {'made':>5} {'killed':>7} {'survived':>9}")
    for path in paths:
        mine = [m for m in results if m.path == path]
        dead = sum(m.outcome.startswith("killed") for m in mine)
        alive = sum(m.outcome == "survived" for m in mine)
        print(f"{path:<40} {len(mine):>5} {dead:>7} {alive:>9}")
    print(
        f"\n{len(results)} mutants in {len(paths)} modules: {len(killed)} killed, "
        f"{len(survived)} survived"
        + (f", {len(other)} other" if other else "")
        + f" ({minutes:.1f} minutes, {cpu:.1f} minutes of CPU)"
    )
    for mutant in survived:
        print(f"  survived: {mutant.describe()}")
    for mutant in other:
        print(f"  {mutant.outcome}: {mutant.describe()}")
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in results], indent=1) + "\n")
    return 1 if survived or other else 0


if __name__ == "__main__":
    sys.exit(main())
