"""Killing commands for real: each runs in a forked child that gets SIGKILL at a chosen instant.

A script is a list of commands (argument lists for ``adjudicator``) that plays a game from
``new`` to its end. :meth:`Script.run` runs each once, keeping a copy of the game directory
before it; :func:`kill_run` takes the copy before command ``i``, kills command ``i`` at a
failpoint (``ADJUDICATOR_KILL_AT=N``: the N-th durable operation, see
``adjudicator/store/failpoint.py``) or after a delay, runs the next command (command ``i`` again
when its step did not commit, else command ``i + 1``), checks ``doctor`` right after it, and
plays on: in the suite up to ``PLAYED_ON`` commands past command ``i``, under ``make crash``
(``ADJUDICATOR_CRASH_RUNS``) to the game's end (:func:`until`). The tests compare the game where
it stopped with the unkilled run at the same command. A run whose game, right after the command
that followed the kill, is byte for byte one an earlier run played on from and found right stops
there (:func:`played_on`): many kills of a command end, once the next command has run, in the
same game.

A kill at a failpoint must have happened: the child notes each failpoint it reaches in memory it
shares with the parent (which outlives the SIGKILL), so :meth:`KillRun.missed` can tell a run
that died at the failpoint it aimed at from one that ran to its end or died elsewhere.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import mmap
import os
import random
import shutil
import signal
import struct
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

# Everything the commands import when they run, imported once here, so each forked child
# starts with it (as a long-running game master's machine would have it in the page cache).
import adjudicator.cli.gm
import adjudicator.cli.mail
import adjudicator.cli.notices
import adjudicator.engine.adjudication
import adjudicator.engine.create
import adjudicator.engine.gm
import adjudicator.engine.notice_intake
import adjudicator.engine.open_game
import adjudicator.engine.queries
import adjudicator.mail.ingest
import adjudicator.mail.send
import adjudicator.rules.votes  # noqa: F401
from adjudicator.store import failpoint
from adjudicator.store.doctor import Examination, examine

T = TypeVar("T")
KILLED = -signal.SIGKILL
COMMITS = {
    "new": "created",
    "submit": "submitted",
    "press": "submitted",
    "absence": "submitted",
    "adjudicate": "adjudicated",
    "extend": "extended",
    "pause": "paused",
    "resume": "resumed",
    "replace": "replaced",
    "resign": "resigned",
    "rollback": "rolled-back",
}
"""The journal line that says a command's step committed (the others may always run again)."""


@dataclass
class Outcome:
    code: int
    output: str = ""
    failpoints: int = 0
    """How many failpoints the command counted (``failpoint.calls()``), when it ran to its end."""
    seconds: float = 0.0
    reached: int = 0
    """How many failpoints the child reached, counted by the test, killed or not."""
    last: str = ""
    """The kind of the last failpoint the child reached (``failpoint.reached``'s ``where``)."""
    kinds: list[str] = field(default_factory=list)
    """The kind of each failpoint in the order reached, when the command ran to its end."""


_TRACE = struct.Struct("q64s")
"""What the child writes at each failpoint it reaches: how many so far, and the last one's kind."""


def _traced(trace: mmap.mmap, kinds: list[str]) -> None:
    """In the child: note each failpoint reached in ``trace`` before the failpoint itself runs
    (and perhaps kills the process), so the parent reads how far the child came; and its kind
    in ``kinds``, which the child prints when it ends."""
    real = failpoint.reached
    count = 0

    def reached(where: str) -> None:
        nonlocal count
        count += 1
        trace[:] = _TRACE.pack(count, where.encode()[:64])
        kinds.append(where)
        real(where)

    failpoint.reached = reached


def _remembered_order_tables(folder: Path) -> None:
    """In the child: the order page's judging of every combination of a part's choices
    (``order_page._table``, a pure function of its arguments that reaches no failpoint and
    writes nothing) is looked up in ``folder`` when a run before judged the same arguments, and
    kept there when not. It is most of the time of a ``send`` or ``tick`` of At the Sultan's
    Court, and a kill test plays those again after every kill: on the same arguments it gives
    the same page, byte for byte, so every command still writes, renames, journals and mails
    exactly as it does unremembered, at the same failpoints."""
    import hashlib
    import pickle

    from adjudicator.present import order_page

    real = order_page._table

    def table(game, meta, doc, spec, names, lang, reasons, *rest):  # type: ignore[no-untyped-def]
        # ``rest``: what else the page passes (a memo it shares between a list's rows); the
        # result depends on the arguments above alone, and of the game's facts on its id
        # alone: a game made again by a killed ``new`` draws another salt, and its views
        # hold another seed commitment, neither of which the judging reads
        seen = {key: value for key, value in doc.items() if key != "commitment"}
        said = json.dumps([game.name, meta["id"], seen, names, lang, reasons], sort_keys=True)
        path = folder / f"{hashlib.sha256(said.encode()).hexdigest()}.pickle"
        if path.exists():
            found, notes, reasons[:] = pickle.loads(path.read_bytes())
            return found, notes
        found, notes = real(game, meta, doc, spec, names, lang, reasons, *rest)
        folder.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{os.getpid()}")
        part.write_bytes(pickle.dumps((found, notes, list(reasons))))
        os.replace(part, path)  # whole or absent, whenever the child is killed
        return found, notes

    order_page._table = table


@functools.cache
def _loaded() -> None:
    """Once in the test process, before its first fork: every module of the adjudicator, the
    image library's formats, and each template of the built-in games' reports and of the mails
    in English (the tests' games speak it), compiled. A command started afresh loads what it
    uses of these; a child forked from here finds them loaded, as it finds the modules the
    tests imported. Loading them writes nothing in a game and reaches no failpoint: a child
    still makes every file, rename, journal line and mail, at the same failpoints."""
    import importlib
    import pkgutil

    from PIL import Image

    import adjudicator
    from adjudicator.present import mail
    from adjudicator.present.reports import report_environment
    from adjudicator.rules import shipped
    from adjudicator.store.registry import BUILT_IN, load_game

    for module in pkgutil.walk_packages(adjudicator.__path__, "adjudicator."):
        if module.name != "adjudicator.__main__":  # the command itself: nothing to load
            importlib.import_module(module.name)
    Image.preinit()  # the common formats, which the first picture drawn loads
    for game in BUILT_IN:
        reports = report_environment(load_game(game), "en")
        for name in reports.list_templates(extensions=["j2"]):
            reports.get_template(name)
    mails = mail._environment("en")
    for path in (shipped.templates() / "common" / "mail").glob("*.j2"):
        mails.get_template(path.name)  # the mails' own (the common ones are the reports')


def fork_run(
    args: list[str],
    env: dict[str, str],
    kill_at: int | None = None,
    kill_after: float | None = None,
    remember: Path | None = None,
) -> Outcome:
    """Run ``adjudicator ARGS`` in a forked child with ``env`` added to its environment.

    ``kill_at``: the child kills itself at its N-th failpoint. ``kill_after``: the parent sends
    SIGKILL after that many seconds. ``remember``: a folder where the order page's judging is
    kept from run to run (:func:`_remembered_order_tables`). Returns the exit code (``KILLED``
    when killed), what the child printed, and how many failpoints it passed.
    """
    _loaded()
    read_end, write_end = os.pipe()
    trace = mmap.mmap(-1, _TRACE.size)  # anonymous and shared: the child writes, we read
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: see below
        pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            os.close(read_end)
            out = os.fdopen(write_end, "w")
            os.environ.update(env)
            os.environ[failpoint.ENV_VAR] = str(kill_at) if kill_at else "count"
            failpoint.reset()
            kinds: list[str] = []
            _traced(trace, kinds)
            if remember is not None:
                _remembered_order_tables(remember)
            sys.stdout = sys.stderr = out
            from adjudicator.cli import cli

            try:
                cli.main([str(a) for a in args], prog_name="adjudicator", standalone_mode=True)
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            out.write(f"\n@@kinds {json.dumps(kinds)}\n@@failpoints {failpoint.calls()}\n")
            out.flush()
        except BaseException as error:  # a crash is a result here
            with contextlib.suppress(BaseException):
                os.write(2, f"child crashed: {error!r}\n".encode())
        finally:
            os._exit(code)
    os.close(write_end)
    start = time.monotonic()
    if kill_after is not None:
        time.sleep(kill_after)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with os.fdopen(read_end) as pipe:
        printed = pipe.read()
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - start
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    failpoints = 0
    kinds: list[str] = []
    if "@@failpoints " in printed:
        printed, _, tail = printed.rpartition("\n@@failpoints ")
        failpoints = int(tail.strip())
        printed, _, listed = printed.rpartition("\n@@kinds ")
        kinds = json.loads(listed)
    reached, last = _TRACE.unpack(trace[:])
    trace.close()
    outcome = Outcome(code, printed, failpoints, seconds, reached, last.rstrip(b"\0").decode())
    outcome.kinds = kinds
    return outcome


# The SMTP server of these tests runs in a thread of the test process; a forked child only
# connects to it as a client and uses no lock another thread could hold, so fork is safe here.


@dataclass
class Script:
    """A game played by commands, and what the unkilled run did."""

    gamedir: Path
    commands: list[list[str]]
    env: dict[str, str]
    snapshots: Path
    outcomes: list[Outcome] = field(default_factory=list)

    def snapshot(self, index: int) -> Path:
        return self.snapshots / f"before-{index:02d}"

    @property
    def played(self) -> Path:
        """Where the games played on from after a kill and found right are noted
        (:func:`played_on`): beside the game directory, shared by the script playing elsewhere
        in the same folder."""
        return self.gamedir.parent / "played-on"

    @property
    def remembered(self) -> Path:
        """Where the order page's judging is kept for every run of the script."""
        return self.snapshots / "order-tables"

    def elsewhere(self, gamedir: Path) -> Script:
        """The same script playing in ``gamedir`` (from the same snapshots)."""
        commands = [
            [gamedir.as_posix() if a == str(self.gamedir) else a for a in c] for c in self.commands
        ]
        return Script(gamedir, commands, self.env, self.snapshots, self.outcomes)

    def run(self, *args: str | Path) -> Outcome:
        """Run the next command unkilled, a copy of the game directory kept before it."""
        command = [str(a) for a in args]
        keep(self.gamedir, self.snapshot(len(self.commands)))
        self.commands.append(command)
        outcome = fork_run(command, self.env, remember=self.remembered)
        self.outcomes.append(outcome)
        return outcome

    def timed_again(self) -> None:
        """Each command's ``seconds`` measured again, unkilled from the copy before it, now that
        the order page's judging of this game is remembered (:func:`_remembered_order_tables`):
        the delays of the timed kills are drawn over the time a killed run really takes."""
        for index, command in enumerate(self.commands):
            _restore(self.snapshot(index), self.gamedir)
            self.outcomes[index].seconds = fork_run(
                command, self.env, remember=self.remembered
            ).seconds


def keep(gamedir: Path, copy: Path) -> None:
    if copy.exists():
        shutil.rmtree(copy)
    if gamedir.exists():
        shutil.copytree(gamedir, copy, symlinks=True)
    else:
        copy.mkdir(parents=True)
        (copy / ".absent").touch()


def _restore(copy: Path, gamedir: Path) -> None:
    if gamedir.exists():
        shutil.rmtree(gamedir)
    if not (copy / ".absent").exists():
        shutil.copytree(copy, gamedir, symlinks=True)


def committed(gamedir: Path, before: Path, command: list[str]) -> bool:
    """Whether the killed ``command``'s step reached its journal line."""
    kind = COMMITS.get(command[0])
    if kind is None:
        return False  # mail commands are always run again: nothing is done twice
    return _count(gamedir, kind) > _count(before, kind)


def _count(gamedir: Path, kind: str) -> int:
    path = gamedir / "log.jsonl"
    if not path.exists():
        return 0
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    return sum(1 for line in whole.splitlines() if json.loads(line)["type"] == kind)


@dataclass
class KillRun:
    index: int
    how: str
    killed: bool
    doctor: Examination
    """``adjudicator doctor``'s findings right after the command that followed the kill."""
    retried: bool
    aimed: int | None
    """The failpoint the kill aimed at (None: a kill after a delay)."""
    outcome: Outcome
    """The killed command's run."""
    until: int
    """The command before which the run stopped playing on (:func:`until`)."""
    state: str = ""
    """The game right after the command that followed the kill (:func:`game_state`), with
    where the run plays from and to; empty when nothing was played after the kill."""
    repeat: bool = False
    """The run stopped there: a run before reached the same ``state`` and was played on from
    it, and found right (:func:`played_on`)."""

    def missed(self) -> str | None:
        """Why a kill at a failpoint did not happen there (None: it did, or the kill was timed).

        A timed kill may come after the command has ended (its delay is drawn over the unkilled
        run's time): that run tests the next command on a finished step, not a kill.
        """
        if self.aimed is None:
            return None
        run = self.outcome
        if not self.killed:
            return (
                f"the kill at failpoint {self.aimed} never came: the command ran to its end "
                f"(exit {run.code}) past {run.reached} failpoints"
            )
        if run.reached != self.aimed:
            return f"it died at failpoint {run.reached} ({run.last}), not at {self.aimed}"
        return None


def kill_run(
    script: Script, index: int, *, kill_at: int | None = None, kill_after: float | None = None
) -> KillRun:
    """Kill command ``index``, run the next command, check doctor, play on (:func:`until`),
    unless a run before reached the same game after that command and was found right when
    played on from it (:func:`played_on`): the run then stops there, marked ``repeat``."""
    _restore(script.snapshot(index), script.gamedir)
    command = script.commands[index]
    outcome = fork_run(
        command, script.env, kill_at=kill_at, kill_after=kill_after, remember=script.remembered
    )
    killed = outcome.code == KILLED
    retried = killed and not committed(script.gamedir, script.snapshot(index), command)
    start = index if retried else index + 1
    doctor: Examination | None = None
    stop = until(script, index)
    state = ""
    repeat = False
    for position in range(start, stop):
        fork_run(script.commands[position], script.env, remember=script.remembered)
        if doctor is None:
            doctor = examine(script.gamedir)
            state = game_state(script.gamedir, index, start, stop)
            repeat = (script.played / state).exists()
            if repeat:
                break
    if doctor is None:
        doctor = examine(script.gamedir)
    how = f"kill at failpoint {kill_at}" if kill_at else f"kill after {kill_after:.4f}s"
    return KillRun(index, how, killed, doctor, retried, kill_at, outcome, stop, state, repeat)


def game_state(gamedir: Path, index: int, start: int, stop: int) -> str:
    """A digest of every file of the game (its path and bytes) and of the run's commands: the
    killed one, the one played after the kill, and the one before which the run stops."""
    digest = hashlib.sha256(f"{index} {start} {stop}".encode())
    for path in sorted(p for p in gamedir.rglob("*") if p.is_file()):
        name = path.relative_to(gamedir).as_posix().encode()
        digest.update(b"\0" + name + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def played_on(script: Script, run: KillRun) -> None:
    """Note that ``run`` was played on from its ``state`` and found right: a later run that
    reaches the same state stops there (``repeat``). Each command is a function of the game's
    files, the fixed clock and the environment, all alike for such a run; what may differ
    (a Message-ID's random part) the tests do not compare. What a command keeps outside the
    game, in the user's cache folders, is made from the game's files and named by them (by the
    journal's size, time and inode for ``tick``'s idle notes). The note is a file, so that every
    process playing the script shares it."""
    if run.state and not run.repeat:
        script.played.mkdir(parents=True, exist_ok=True)
        (script.played / run.state).touch()


PLAYED_ON = 3
"""How many commands past the killed one a kill test plays in the suite."""


def until(script: Script, index: int) -> int:
    """The command before which a kill of command ``index`` stops playing on (the game is then
    compared with the unkilled game's copy before that command): ``PLAYED_ON`` commands past
    it in the suite, where each kill's replay was most of the kill tests' time; the game's end
    under ``make crash`` (``ADJUDICATOR_CRASH_RUNS``), which kills every failpoint."""
    total = len(script.commands)
    return total if RUNS else min(total, index + 1 + PLAYED_ON)


def kind_sample(kinds: list[str]) -> list[int]:
    """The failpoints (numbered from 1) that kill a command at every kind of durable operation:
    for each kind in ``kinds`` (the kind of each failpoint of the command's unkilled run, in
    order: ``write``, ``written``, ``renamed``, ``journal``, ``journaled``, ``unmark``,
    ``move``, ``smtp data``, ``smtp answered``, as ``failpoint.reached`` names them), its first
    failpoint; and the command's last failpoint (after its last journal line). Every failpoint
    of every command is tried by ``make crash``; each kill replays the game to its end, so the
    suite tries these."""
    chosen = {kinds.index(kind) + 1 for kind in set(kinds)}
    return sorted(chosen | ({len(kinds)} if kinds else set()))


def uncovered(kinds: list[str], points: list[int]) -> list[str]:
    """What a sample ``points`` of a command whose failpoints are of ``kinds`` misses of the rule
    of :func:`kind_sample`: each kind killed at its first failpoint, and the last failpoint."""
    missing = []
    for kind in dict.fromkeys(kinds):
        first = kinds.index(kind) + 1
        if first not in points:
            missing.append(f"{kind}: its first failpoint ({first})")
    if kinds and len(kinds) not in points:
        missing.append(f"the last failpoint ({len(kinds)})")
    return missing


RUNS = int(os.environ.get("ADJUDICATOR_CRASH_RUNS", "0"))
"""Failpoints per command the kill tests try besides the sample by kind (0, the default: the
sample alone); ``make crash`` sets 1000, every failpoint of every command."""


def chosen_points(kinds: list[str], rng: random.Random) -> list[int]:
    """The failpoints a kill test tries for a command whose unkilled run reached ``kinds``:
    :func:`kind_sample`, and with ``ADJUDICATOR_CRASH_RUNS=N`` N more spread over all of them
    (:func:`kill_points`: every one when the command has no more than N)."""
    points = set(kind_sample(kinds))
    if RUNS:
        points |= set(kill_points(len(kinds), RUNS, rng))
    return sorted(points)


def kill_points(total: int, wanted: int, rng: random.Random) -> list[int]:
    """``wanted`` failpoints among ``1..total``: the first, the last, and others spread evenly."""
    if total <= wanted:
        return list(range(1, total + 1))
    chosen = {1, total}
    while len(chosen) < wanted:
        chosen.add(rng.randint(1, total))
    return sorted(chosen)


def on_both_cores(
    work: list[T], check: Callable[[Script, T], str | None], script: Script
) -> list[str]:
    """Run ``check(script, item)`` for every item, half of them in a forked worker playing in a
    game directory of its own (the machine has two cores); the problems found, in order."""
    half = len(work) // 2
    report = script.snapshots.parent / f"worker-problems-{script.gamedir.name}.json"
    report.unlink(missing_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            mine = script.elsewhere(script.gamedir.with_name(script.gamedir.name + "-worker"))
            found = [p for item in work[half:] if (p := check(mine, item)) is not None]
            report.write_text(json.dumps(found))
            code = 0
        except BaseException as error:
            with contextlib.suppress(BaseException):
                report.write_text(json.dumps([f"the worker crashed: {error!r}"]))
        finally:
            os._exit(code)
    problems = [p for item in work[:half] if (p := check(script, item)) is not None]
    os.waitpid(pid, 0)
    problems += json.loads(report.read_text()) if report.exists() else ["the worker vanished"]
    return problems
