"""Under CI a skip is a failure unless what the test needs is absent by design
(tests/conftest.py): a feature that broke or a tool that is missing must not pass unseen."""

from __future__ import annotations

import pytest

from tests.conftest import ABSENT_BY_DESIGN, fail_a_skip_under_ci


def skipped(reason: str) -> pytest.TestReport:
    return pytest.TestReport(
        "tests/test_x.py::test_x",
        ("tests/test_x.py", 1, "test_x"),
        {},
        "skipped",
        ("tests/test_x.py", 2, f"Skipped: {reason}"),
        "call",
    )


@pytest.mark.parametrize("ci", ["true", "1", ""])
def test_a_skip_under_ci_fails_and_says_why(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    report = skipped("no replace --lang here: Error: no such option: --lang")
    fail_a_skip_under_ci(report)
    if not ci:
        assert report.outcome == "skipped"
        return
    assert report.outcome == "failed"
    assert "skipped under CI (no replace --lang here: Error: no such option: --lang)" in str(
        report.longrepr
    )


@pytest.mark.parametrize(
    "reason",
    [
        "the rulebooks (in a folder beside the repository) are not here",
        "higher_game is not one of this repository's games",
        "no named pipes here",
    ],
)
def test_a_skip_absent_by_design_stays_a_skip(monkeypatch: pytest.MonkeyPatch, reason: str) -> None:
    monkeypatch.setenv("CI", "true")
    report = skipped(reason)
    fail_a_skip_under_ci(report)
    assert report.outcome == "skipped"
    assert all(why for why in ABSENT_BY_DESIGN.values())


def test_only_skips_are_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    report = skipped("a tool is missing")
    report.outcome = "passed"
    fail_a_skip_under_ci(report)
    assert report.outcome == "passed"
    expected = skipped("a tool is missing")
    expected.wasxfail = "known to fail"
    fail_a_skip_under_ci(expected)
    assert expected.outcome == "skipped"
