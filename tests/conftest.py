"""Every test runs with its own user folders, and the fixtures shared by many tests with the
run's, so that none reads or writes the real user's adjudicator config (config.toml), data
(set-aside mail) or cache (compiled templates, journals' summaries, rendered reports).

Under CI (``CI=true``) a skipped test is a failed one: a skip there hides a failure (a feature
that broke, a tool that is missing), unless what the test needs is absent by design; those
skips are listed in :data:`ABSENT_BY_DESIGN`, each with its reason.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from adjudicator.store import summary
from tests.browser import browser
from tests.helpers import finished, summary_as_it_is
from tests.imapserver import dovecot, imap_server
from tests.scratch import choose
from tests.tools import under_ci

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
"""Hypothesis holds no example to a time of its own (200 ms by default): the run shares a
loaded machine, where any example may stall that long, and a test's speed is the benchmarks'
to measure, never a test's."""

SHARED = (browser, dovecot, imap_server, finished)
"""The fixtures every test module shares, one each per test process: the browser and the IMAP
server, which take a second or two to start and stop, and a finished game to read (some 4 s
to play)."""

ABSENT_BY_DESIGN = {
    "the rulebooks (": "the rulebook leaflets are not part of the repository, so a checkout "
    "(as CI makes) has none; the glossary tests that read them need them beside it",
    "is not one of this repository's games": "a game installed from elsewhere (a third-party "
    "package) has no folder here whose source could be read for the codes it makes",
    "no named pipes here": "a system without named pipes (Windows) cannot make one",
}
"""The skips that stay skips under CI: the start of (or a phrase in) the skip's reason, and why
what the test needs is absent by design."""


@pytest.hookimpl(wrapper=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, int, int]:
    """``-n auto`` starts one worker more than pytest-xdist counts (the processors this process
    may run on), unless ``PYTEST_XDIST_AUTO_NUM_WORKERS`` gives the count: many tests wait on a
    process they start (ssh-keygen, a browser, a mail server, a command they kill), and the
    extra worker runs meanwhile. On two processors, in turns: three workers 241-244 s, two
    249-254 s, four 256 s (each worker collects the suite again)."""
    count = yield
    return count if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") else count + 1


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background of a script (``make test &``) inherits Ctrl-C ignored,
    and so would every command the tests start: the tests that press Ctrl-C in a command would
    see it run to its end. The suite takes Ctrl-C as a terminal gives it.

    The suite's files go to a folder in memory where there is one (:mod:`tests.scratch`).
    """
    choose()
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def own_user_folders_for_the_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> Generator[None, None, None]:
    """The run's own user folders, for the fixtures of wide scope: set up before any test's
    (:func:`own_user_folders`), they would otherwise read and write the real user's."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _own_folders(tmp_path_factory.mktemp("user-folders"), monkeypatch)
        yield


@pytest.fixture(autouse=True)
def own_user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _own_folders(tmp_path, monkeypatch)


@pytest.fixture(autouse=True)
def summaries_stay_as_handed_out(monkeypatch: pytest.MonkeyPatch) -> Generator[None, None, None]:
    """Each test begins with no journal's summary kept in the process, as a command does, and
    ends with every summary handed out during it as it was when handed out: no code changes
    one (a change would be read on into every later copy, and kept in the cache folder)."""
    summary._KEPT.clear()
    handed: list[tuple[summary.Summary, Any]] = []
    real_keep = summary._keep

    def keep(
        name: str, data: bytes, created: bytes, kept: summary.Summary, unwritten: Any = None
    ) -> summary.Summary:
        handed.append((kept, summary_as_it_is(kept)))
        return real_keep(name, data, created, kept, unwritten)

    monkeypatch.setattr(summary, "_keep", keep)
    yield
    changed = [kept.end for kept, as_handed in handed if summary_as_it_is(kept) != as_handed]
    summary._KEPT.clear()
    assert not changed, f"summaries changed after they were handed out (ends {changed[:5]})"


def _own_folders(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "user-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "user-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder / "user-cache"))
    monkeypatch.delenv("ADJUDICATOR_CONFIG", raising=False)


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped test's report gives ("Skipped: " taken off)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def fail_a_skip_under_ci(report: pytest.TestReport) -> None:
    """Turn ``report`` from skipped to failed under CI, unless its skip is absent by design."""
    if not report.skipped or hasattr(report, "wasxfail") or not under_ci():
        return
    reason = skip_reason(report)
    if any(allowed in reason for allowed in ABSENT_BY_DESIGN):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI ({reason}): a skip there hides a failure; make the test run, or, "
        "when what it needs is absent by design, add its reason to ABSENT_BY_DESIGN in "
        "tests/conftest.py"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    fail_a_skip_under_ci(report)
    return report
