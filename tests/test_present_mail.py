"""The words of the adjudicator's own mail come from templates/common/mail and texts/mail.yaml."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

from adjudicator.present import mail
from adjudicator.present.words import common_texts
from adjudicator.rules.contract import Msg

ROOT = Path(__file__).resolve().parent.parent


def test_every_mail_code_is_used_and_every_code_used_has_its_text() -> None:
    source = "\n".join(
        path.read_text(encoding="utf-8") for path in (ROOT / "adjudicator").rglob("*.py")
    )
    codes = {code for code in common_texts() if code.startswith("mail-")}
    # A code may be put together (``mail-receipt-{fate}...``): look for it whole or by its parts.
    written = set(re.findall(r'"(mail-[a-z0-9-]+)"', source))
    assert written <= codes
    for code in codes - written:
        assert code.startswith("mail-receipt-"), code


def test_every_mail_template_is_shipped_as_a_j2_file() -> None:
    folder = files("adjudicator.templates") / "common" / "mail"
    names = {item.name for item in folder.iterdir()}
    assert {
        "receipt.txt.j2",
        "set-aside.txt.j2",
        "reminder.txt.j2",
        "waiting.txt.j2",
        "announcement.txt.j2",
        "digest.txt.j2",
        "refused.txt.j2",
    } <= names


def test_an_announcement_is_one_line() -> None:
    words = mail.announcement(game_id="cairo", action=Msg("mail-announce-paused", {}))
    assert words.subject == "[cairo] from the game master"
    assert words.body == (
        "Game cairo: The game master has paused the game: the clock stands still.\n"
    )


def test_a_refused_notice_with_no_recipient_says_none() -> None:
    words = mail.refused(name="x.eml", recipients="", subject_line="s", answer="550 no")
    assert words.subject == "Mail refused for good: x.eml"
    assert "To:       (none)\nSubject:  s\nAnswer:   550 no\n" in words.body


def test_receipt_subjects_with_and_without_a_turn() -> None:
    refused = mail.receipt(game_id="g", name="o.yaml", turn=None, accepted=False, in_effect_turn=2)
    assert refused.subject == "[g] order refused"
    assert "you have no order in effect for turn 2. Correct the file" in refused.body
    accepted = mail.receipt(
        game_id="g", name="o.yaml", turn=3, accepted=True, replaces=True, sha256="ab", order="x"
    )
    assert accepted.subject == "[g] turn 3: order accepted"
    assert accepted.body == (
        "Your order o.yaml for game g, turn 3, was accepted and replaces your earlier order "
        "for that turn.\nSHA-256: ab\n\nThe order now in effect for you:\n\nx\n"
    )
