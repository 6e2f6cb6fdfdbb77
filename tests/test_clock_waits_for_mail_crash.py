"""The deadline moved by the mail's wait survives a kill at any instant: ``send`` hands the last
queued reports of a turn to a real SMTP server and is killed (SIGKILL) at its failpoints; after
the next ``send`` the journal holds the moved deadline exactly once, whether the kill came before
the handover, between it and the journal line, or after.

The failpoints are those ``tests/test_crash.py`` chooses (``tests.crashing.chosen_points``): the
first of each kind of durable operation ``send`` reaches (the file writes, the journal lines,
the handover to the server, the moves between the mail folders) and its last failpoint, and
with ``ADJUDICATOR_CRASH_RUNS`` set (``make crash``) every failpoint. The test fails when a kind is
left out, or when no kill fell before the handover's journal line or none after it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adjudicator.engine import queries
from tests.crashing import Script, chosen_points, kill_run, uncovered
from tests.helpers import Table, run
from tests.smtpserver import PASSWORD, USER, Authority, Server, running_server
from tests.smtpserver import authority as authority

pytestmark = pytest.mark.slow  # a send killed at every failpoint

QUEUED = datetime.fromisoformat("2026-11-23T10:00:00+00:00")
BACK = QUEUED + timedelta(hours=5)


@pytest.fixture
def smtp(authority: Authority) -> Iterator[Server]:
    with running_server(authority, "starttls") as server:
        yield server


def _config(path: Path, server: Server | None) -> Path:
    """Settings that reach ``server``; None: a port where nobody listens."""
    port = 1 if server is None else server.port
    ca_file = "" if server is None else f'ca_file = "{server.ca_file}"\n'
    path.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\n'
        f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nuser = "{USER}"\ntls = "starttls"\n'
        f'{ca_file}password_env = "TEST_SMTP_PASSWORD"\n'
    )
    return path


def _moved(gamedir: Path) -> list[dict[str, Any]]:
    return [entry["mailed"] for entry in _lines(gamedir) if entry.get("mailed")]


def _lines(gamedir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (gamedir / "log.jsonl").read_text().splitlines()]


def test_send_killed_at_any_instant_moves_the_deadline_once(
    tmp_path: Path, smtp: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    monkeypatch.setenv("ADJUDICATOR_NOW", QUEUED.isoformat())
    table = Table(tmp_path, players=2, schedule={"deadline": "48h"})
    down = run("send", table.gamedir, "--config", _config(tmp_path / "down.toml", None))
    assert down.exit_code == 75, down.output
    original = QUEUED + timedelta(hours=48)
    expected = {
        "turn": 1,
        "deadline": (original + (BACK - QUEUED)).isoformat(),
        "was": original.isoformat(),
        "since": QUEUED.isoformat(),
    }
    env = {"ADJUDICATOR_NOW": BACK.isoformat(), "TEST_SMTP_PASSWORD": PASSWORD}
    script = Script(table.gamedir, [], env, tmp_path / "snapshots")
    config = _config(tmp_path / "up.toml", smtp)
    outcome = script.run("send", table.gamedir, "--config", config)
    assert outcome.code == 0, outcome.output
    assert _moved(table.gamedir) == [expected]
    monkeypatch.setenv("ADJUDICATOR_NOW", BACK.isoformat())
    carried_by = set()
    points = chosen_points(outcome.kinds, random.Random(3))
    assert {"smtp data", "smtp answered", "journaled"} <= set(outcome.kinds)
    assert uncovered(outcome.kinds, points) == []
    for point in points:
        killed = kill_run(script, 0, kill_at=point)
        assert killed.missed() is None, f"{killed.how}: {killed.missed()}"
        assert not killed.doctor.problems, f"{killed.how}: {killed.doctor}"
        assert _moved(table.gamedir) == [expected], killed.how
        status = queries.status(table.gamedir)
        assert status["deadline"] == expected["deadline"], killed.how
        assert not status["waiting_for_mail"], killed.how
        carried_by |= {e["type"] for e in _lines(table.gamedir) if e.get("mailed")}
    assert carried_by == {"sent", "recovered"}, "some kills fell after the last handover"
