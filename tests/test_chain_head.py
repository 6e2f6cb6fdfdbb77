"""What lets a reader check the game: the chain head in every report, form, page and mail, the
seed commitment in the first and the last reports, and the seed and salt that open it at the end
(docs/archive.md; adjudicator/present/hashes.py)."""

from __future__ import annotations

import email.policy
import hashlib
import json
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.present import mail as present_mail
from adjudicator.present import rendered
from adjudicator.present.html import render_page
from adjudicator.present.reports import form_text, render, render_final
from adjudicator.rules import digests
from adjudicator.rules.contract import Game, State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.rng import Rng
from adjudicator.rules.views import reader_view
from tests.hashes import blanked, committed, found
from tests.helpers import Table, bot_round, order_mail, run

HEAD = hashlib.sha256(b"a chain head").hexdigest()
NAMES = ["alice", "bob", "carol", "dave"]


def played(game: Game) -> tuple[dict[str, Any], list[State]]:
    """A bot game of four, with a salt and seed commitment, and every state it went through."""
    effective, _ = game.options(NAMES, {})
    info = committed(
        {
            "id": "checked",
            "game": game.name,
            "players": [{"name": n} for n in NAMES],
            "options": {**effective, "nmr": "default"},
            "seed": "0123456789abcdef0123456789abcdef",
        }
    )
    rng = Rng(info["seed"])
    states = [game.setup(info["players"], effective, rng)]
    while not game.is_over(states[-1]):
        states.append(bot_round(game, states[-1], rng))
    return info, states


def outputs(game: Game, info: dict[str, Any], state: State, lang: str) -> dict[str, str]:
    """Everything a reader may be shown of ``state``, each kind by name."""
    shown: dict[str, str] = {}
    for reader in [*NAMES, "public", "gm"]:
        doc = reader_view(game, info, state, reader)
        shown[f"text {reader}"] = render(game, info, state, reader, lang=lang, head=HEAD)
        shown[f"page {reader}"] = render_page(game, info, doc, lang, head=HEAD).html
        form = form_text(game, info, state, reader, lang, HEAD) if reader in NAMES else None
        if form is not None:
            shown[f"form {reader}"] = form
    if game.is_over(state):
        final = reader_view(game, info, state, "public")
        shown["final table"] = render_final(game, info, final, lang, HEAD)
    return shown


@pytest.mark.seconds
@pytest.mark.parametrize("game", [SULTAN, COURT], ids=lambda g: g.name)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_hash_is_in_the_macros_shape_and_the_helper_finds_it(game: Game, lang: str) -> None:
    """Every report, page and form prints the head and the commitment only as the macro does:
    the helper finds each one, and once it has put its placeholder in, no trace of either is
    left (so the two-worlds tests compare everything else)."""
    info, states = played(game)
    commitment = info["commitment"]
    pieces = [value[i : i + 16] for value in (HEAD, commitment) for i in range(0, 64, 16)]
    for number, state in ((1, states[0]), (2, states[1]), (0, states[-1])):
        for name, text in outputs(game, info, state, lang).items():
            hashes = found(text)
            expected = {HEAD} if name.startswith("page") else {HEAD[:32]}
            if number != 2 and not name.startswith("form"):
                expected.add(commitment)
            if name.startswith("page") and "\n# " in text:  # the form the page shows
                expected.add(HEAD[:32])
            assert set(hashes) == expected, (number, name)
            left = blanked(text)
            assert [piece for piece in pieces if piece in left] == [], (number, name)


def test_a_form_shows_the_head_in_a_comment_line_of_at_most_72_characters() -> None:
    info, states = played(COURT)
    for lang in LANGUAGES:
        form = form_text(COURT, info, states[0], "alice", lang, HEAD)
        assert form is not None
        lines = [line for line in form.splitlines() if HEAD[:32] in line]
        assert len(lines) == 1 and lines[0].startswith("# ") and lines[0].endswith(HEAD[:32])
        assert max(len(line) for line in form.splitlines()) <= 72


@pytest.mark.parametrize("game", [SULTAN, COURT], ids=lambda g: g.name)
def test_the_final_report_reveals_the_seed_and_salt_that_open_its_commitment(game: Game) -> None:
    info, states = played(game)
    text = render(game, info, states[-1], "alice", head=HEAD)
    shown = re.search(r"^Seed commitment: #([0-9a-f]{64})$", text, re.M)
    revealed = re.search(r"^Seed: ([0-9a-f]+); salt: ([0-9a-f]{64})$", text, re.M)
    assert shown is not None and revealed is not None
    assert digests.commitment(*revealed.groups()) == shown.group(1) == info["commitment"]
    assert "adjudicator verify" in text
    # while the game runs, neither is shown; after turn 1, not even the commitment
    running = render(game, info, states[1], "alice", head=HEAD)
    assert info["salt"] not in running and "Seed commitment" not in running


def test_an_old_game_without_a_commitment_shows_only_the_head() -> None:
    info, states = played(SULTAN)
    old = {k: v for k, v in info.items() if k not in ("salt", "commitment")}
    for state in (states[0], states[-1]):
        text = render(SULTAN, old, state, "alice", head=HEAD)
        assert found(text) == [HEAD[:32]] * text.count("Chain head")
        assert "salt" not in text and "Seed commitment" not in text
        assert found(render(SULTAN, old, state, "alice")) == []  # no head given: none shown


def test_a_receipt_shows_the_head_it_is_given() -> None:
    for lang in LANGUAGES:
        words = present_mail.receipt(
            game_id="g", name="o.yaml", turn=1, accepted=True, sha256="0" * 64, lang=lang, head=HEAD
        )
        assert found(words.body) == [HEAD[:32]]
        assert "0" * 64 in words.body, "an order's own SHA-256 is no hash of the macro's"
        assert found(present_mail.receipt(game_id="g", name="o", turn=1, accepted=True).body) == []


# -- mail: the head of the journal as the mail is written -----------------------------------------
def journal(table: Table) -> list[bytes]:
    return (table.gamedir / "log.jsonl").read_bytes().splitlines(keepends=True)


def mails(table: Table) -> list[EmailMessage]:
    parser = BytesParser(policy=email.policy.default)
    folder = table.gamedir / "outbox"
    return [parser.parsebytes(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]  # type: ignore[misc]


def text_of(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    return path


def test_a_report_mail_shows_the_head_just_before_its_queue_line(
    tmp_path: Path, config: Path
) -> None:
    table = Table(tmp_path, players=3)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    lines = journal(table)
    at = next(i for i, line in enumerate(lines) if json.loads(line).get("turns") == [1])
    head = hashlib.sha256(lines[at - 1]).hexdigest()
    assert json.loads(lines[at])["prev"] == head
    reports = [m for m in mails(table) if "report" in str(m["Subject"])]
    assert len(reports) == 3
    for message in reports:
        player = message["To"].split("@")[0]
        body = text_of(message)
        report = rendered.report(table.gamedir, player, None, head, cache=False)
        shown = [line for line in report.splitlines() if head[:32] in line]
        assert shown and all(line in body.splitlines() for line in shown)  # how to answer differs
        assert body.splitlines()[:3] == report.splitlines()[:3]
        html = message.get_body(("html",))
        assert html is not None and HTML_HEAD.format(head) in html.get_content()
        attached = {a.get_filename(): a.get_content() for a in message.iter_attachments()}
        forms = [text for name, text in attached.items() if str(name).endswith(".yaml")]
        assert all(f"#{head[:32]}\n" in form for form in forms)
        pages = [text for name, text in attached.items() if str(name).endswith(".html")]
        assert len(pages) == len(forms)  # the order page beside each form shows it too
        assert all(HTML_HEAD.format(head) in page for page in pages)


HTML_HEAD = '<code class="hash">{}</code>'


def test_a_receipt_shows_the_head_just_before_the_line_of_the_step_that_queues_it(
    tmp_path: Path, config: Path
) -> None:
    table = Table(tmp_path, players=3)
    player = table.status()["waiting_for"][0]
    raw = order_mail(table, player, table.legal(player), message_id="<m1@mail>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)
    assert result.exit_code == 0, result.output
    lines = journal(table)
    # the ingest step stores the order and queues its receipt, then writes its one line
    (at,) = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "mail"]
    assert any(name.startswith("mail/queue/") for name in json.loads(lines[at])["files"])
    head = hashlib.sha256(lines[at - 1]).hexdigest()
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    (receipt,) = [m for m in mails(table) if m["In-Reply-To"] == "<m1@mail>"]
    assert found(text_of(receipt)) == [head[:32]]
