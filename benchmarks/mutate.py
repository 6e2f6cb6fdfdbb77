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
    "adjudicator/engine/gm.py": ["tests/test_game_master.py", "tests/test_reliability.py"],
    "adjudicator/engine/intake.py": [
        "tests/test_order_problems.py",
        "tests/test_commit_reveal.py",
        "tests/test_cli.py",
    ],
    "adjudicator/engine/notice_intake.py": [
        "tests/test_notices.py",
        "tests/test_votes.py",
        "tests/test_absences.py",
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
        "tests/test_setup_plain.py",
        "tests/test_welcome.py::test_a_bad_time_zone_is_refused_with_its_line",
        "tests/test_signup.py::test_an_open_setup_is_checked_and_its_keys_belong_to_open",
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

KNOWN: dict[tuple[str, str, int, str, str], str] = {
    (
        "adjudicator/engine/adjudication.py",
        'name = entry["file"].rsplit("/", 1)[-1]',
        33,
        "constant - 1",
        "(0)",
    ): "equivalent: the journal names an order file by its name alone (alice-1.yaml), never "
    "with a /, so how often the name is split changes nothing",
    (
        "adjudicator/engine/create.py",
        "if not root.is_dir():",
        0,
        "guard removed",
        "pass",
    ): "unreachable from the commands: new's GAMEDIR argument refuses a file before new runs "
    "(click, file_okay=False), and demo makes the folder it plays in",
    (
        "adjudicator/engine/notice_intake.py",
        "parsed.reasons.insert(0, NO_SIGNATURE)",
        22,
        "constant - 1",
        "(-1)",
    ): "equivalent: a notice that cannot be read as one has exactly one reason (the YAML loader "
    "stops at its first problem; a non-mapping has one), and in a list of one, before the last "
    "is first",
    (
        "adjudicator/engine/notices.py",
        "return found[0] if len(found) == 1 else None  # type: ignore[return-value]",
        13,
        "constant - 1",
        "(-1)",
    ): "equivalent: taken only when found holds exactly one kind",
    (
        "adjudicator/engine/open_game.py",
        '{o["player"]: o for o in self.pending if o["turn"] == turn and o.get("kind")}',
        41,
        "and/or swapped",
        "(o['turn'] == turn or o.get('kind'))",
    ): "equivalent: a step takes files of the current turn only, and only in the reveal does "
    "it take orders beside commitments; the players whose reveal is pending committed already, "
    "and a second reveal of one player in one step is refused as not matching either way",
    (
        "adjudicator/engine/open_game.py",
        "if self.facts.ended is not None:",
        0,
        "guard removed",
        "pass",
    ): "unreachable: every caller of ending() asks over() first (adjudicate refuses a game "
    "that is over, status reads 'not over and ...'), and over() is true once votes ended it",
    (
        "adjudicator/engine/orders.py",
        'too_large = msg("file-too-large", what=msg(what), size=error.size, cap=cap // 1024)',
        78,
        "constant - 1",
        "(1023)",
    ): "equivalent: the caps are 64, 8 and 72 KiB, and each // 1023 is the same whole number",
    (
        "adjudicator/engine/orders.py",
        'raise Refusal(msg("signature-over-cap", cap=MAX_SIGNATURE_BYTES // 1024))',
        67,
        "constant - 1",
        "(1023)",
    ): "equivalent: 8192 // 1023 is 8, as 8192 // 1024 is",
    (
        "adjudicator/engine/press.py",
        'if reader == "public":',
        0,
        "guard removed",
        "pass",
    ): "equivalent: shown_to's only caller, received_during, returns nothing for public first",
    (
        "adjudicator/engine/press.py",
        'if reader == "public" or not (root / FOLDER).is_dir():',
        3,
        "and/or swapped",
        "(reader == 'public' and (not (root / FOLDER).is_dir()))",
    ): "equivalent: public is refused again by shown_to, and without the press folder the "
    "journal names no press (the folder is made with the first), so everything() finds none",
    (
        "adjudicator/engine/preview.py",
        "def preview(root: Path, default_missing: bool = False) -> Preview:",
        48,
        "True/False swapped",
        "True",
    ): "equivalent: the default is never used; the command always passes default_missing",
    (
        "adjudicator/engine/preview.py",
        "mode = 0",
        7,
        "constant + 1",
        "(1)",
    ): "equivalent: any mode without the file-type bits of a file or a folder leaves the name "
    "out of the copy, as 0 does",
    (
        "adjudicator/engine/preview.py",
        "mode = 0",
        7,
        "constant - 1",
        "(-1)",
    ): "equivalent: -1 has all the file-type bits, which are neither a file's nor a folder's",
    (
        "adjudicator/engine/preview.py",
        'first = error.args[0][0] if error.args and error.args[0] else ("", "", str(error))',
        54,
        "constant - 1",
        "(-1)",
    ): "equivalent: shutil.Error has one argument (the list of failures), so args[-1] is args[0]",
    (
        "adjudicator/rules/views.py",
        "if over and orders is not None:",
        3,
        "and/or swapped",
        "(over or orders is not None)",
    ): "harmless: the orders are passed only once the game is over, so this differs only for a "
    "finished game rendered without them (a report drawn from a state), whose view says "
    "orders: null instead of leaving the key out; the templates take both as none",
    (
        "games/sultan/view.py",
        "deck_counts[p] = left if left > 0 else 0",
        25,
        "comparison flipped",
        "(left >= 0)",
    ): "equivalent: left is what remains of a deck, never below 0",
    (
        "games/sultan/view.py",
        "deck_counts[p] = left if left > 0 else 0",
        32,
        "constant + 1",
        "(1)",
    ): "equivalent: left is a whole number of hands (0, 5, 10, 8, 16...), never 1",
    (
        "games/sultan/view.py",
        "deck_counts[p] = left if left > 0 else 0",
        32,
        "constant - 1",
        "(-1)",
    ): "equivalent: left is never below 0, so left > -1 takes left, 0 included, as the else does",
    (
        "games/sultan/view.py",
        "if not hidden:",
        0,
        "guard removed",
        "pass",
    ): "equivalent in value: without it an item with nothing to hide is copied instead of "
    "shared; only the time and memory of a view change (benchmarks/engine.py measures them)",
    (
        "games/sultans_court/view.py",
        'last = _round_for(state["rounds"][-1], player, see_all, after=False)',
        62,
        "True/False swapped",
        "True",
    ): "harmless: the view's last round gains the board after it, which is the board the view "
    "shows already, hidden as the record hides it (every card under a top face down)",
    (
        "adjudicator/mail/answers.py",
        "_HEAD_BYTES = 8 * 1024",
        14,
        "constant + 1",
        "(9)",
    ): "harmless: how much of each mail file is read for its header fields; an answer's header "
    "is a few hundred bytes, so 8 or 9 KiB find the same answers",
    (
        "adjudicator/mail/answers.py",
        'to = str(messages[0]["To"])',
        18,
        "constant - 1",
        "(-1)",
    ): "equivalent up to spelling: every answer held in one folder is to the same address (the "
    "folder is named after it), so the last one's To names the same mailbox",
    (
        "adjudicator/audit/verify.py",
        "states.pop(turn + 1, None)",
        18,
        "constant + 1",
        "(2)",
    ): "equivalent: the state after a rolled-back turn is written again when that turn is "
    "adjudicated again, before anything reads it",
}
"""The mutants that survive and why that is harmless, by module, the changed line (stripped),
the column in it, the kind and the change: they are listed, not run (``--recheck-known`` runs
them too). A change to the line makes its mutant run again."""

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

    def key(self, source: bytes) -> tuple[str, str, int, str, str]:
        """What :data:`KNOWN` lists it by: module, line (stripped), column in it, kind, change."""
        start = source.rfind(b"\n", 0, self.start) + 1
        end = source.find(b"\n", self.start)
        line = source[start : end if end >= 0 else len(source)].decode()
        column = self.start - start - (len(line) - len(line.lstrip()))
        return (self.path, line.strip(), column, self.kind, self.after)

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
    recheck: bool = False,
) -> Iterator[tuple[str, list[Mutant]]]:
    for path in paths:
        tests = tests_given or TARGETS[path]
        mutants = [m for m in sample(path, per_module, seed) if not lines or m.line in lines]
        verdict, base = run_tests(tests, timeout=600)
        if verdict != "passed":
            raise SystemExit(f"{path}: the tests fail before any change ({verdict}): {tests}")
        timeout = max(20.0, 2.5 * base)
        print(f"{path}: {len(mutants)} mutants, tests {' '.join(tests)} ({base:.0f}s)", flush=True)
        with _Restored(ROOT / path) as restored:
            for mutant in mutants:
                why = KNOWN.get(mutant.key(restored.original))
                if why is not None and not recheck:
                    mutant.outcome = "known"
                    print(f"  known     {mutant.describe()}: {why}", flush=True)
                    continue
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
    parser.add_argument("--recheck-known", action="store_true", help="run the KNOWN survivors too")
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
    for _, mutants in check(
        paths, args.per_module, args.seed, args.line, args.tests, args.recheck_known
    ):
        results += mutants
    survived = [m for m in results if m.outcome == "survived"]
    known = [m for m in results if m.outcome == "known"]
    killed = [m for m in results if m.outcome.startswith("killed")]
    other = [m for m in results if m not in survived and m not in known and m not in killed]
    minutes = (time.monotonic() - start) / 60
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (used.ru_utime + used.ru_stime) / 60
    print(f"\n{'module':<40} {'made':>5} {'killed':>7} {'known':>6} {'survived':>9}")
    for path in paths:
        mine = [m for m in results if m.path == path]
        dead = sum(m.outcome.startswith("killed") for m in mine)
        listed = sum(m.outcome == "known" for m in mine)
        alive = sum(m.outcome == "survived" for m in mine)
        print(f"{path:<40} {len(mine):>5} {dead:>7} {listed:>6} {alive:>9}")
    print(
        f"\n{len(results)} mutants in {len(paths)} modules: {len(killed)} killed, "
        f"{len(known)} known to survive (harmless, listed in KNOWN, not run), "
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
