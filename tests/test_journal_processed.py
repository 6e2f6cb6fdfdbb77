"""The mail processed, which ``ingest`` asks of every game for every message (from the journal's
summary), is what the whole fold of the journal (``journal.facts``) says."""

from __future__ import annotations

from pathlib import Path

from adjudicator.store import journal
from adjudicator.store.gamedir import GameDir
from tests.helpers import Table, notice_mail, order_mail, run


def test_the_mail_processed_is_what_the_journals_facts_say(tmp_path: Path) -> None:
    table = Table(tmp_path)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    order = order_mail(table, "carol", table.legal("carol"), message_id="<o@carol.example.org>")
    ingested = [run("ingest", table.gamedir, "--config", config, input=order.decode())]
    vote = table.notice("alice", "vote: draw\n", "vote.yaml")
    raw = notice_mail(vote, "alice@example.org", "<v@alice.example.org>")
    ingested.append(run("ingest", table.gamedir, "--config", config, input=raw.decode()))
    assert all(r.exit_code == 0 for r in ingested), [r.output for r in ingested]
    log = GameDir(table.gamedir).log()
    processed = GameDir(table.gamedir).facts().processed
    assert len(processed) == 2
    assert processed == journal.facts(log).processed
