"""The player's guide (docs/players.md and its German, Dutch and French pages) and the index of
the rules summaries (docs/rules/README.md): every language with the English sections, the
commands as the program takes them, the words the program's mail uses, and every link a file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.present.words import say
from adjudicator.rules.contract import msg
from adjudicator.rules.lang import LANGUAGES
from adjudicator.signing.sshsig import NAMESPACE
from adjudicator.store.registry import load_game

DOCS = Path(__file__).resolve().parent.parent / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def guide(lang: str) -> Path:
    return DOCS / ("players.md" if lang == "en" else f"players.{lang}.md")


def headings(text: str) -> list[str]:
    return [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#+ ", line)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_in_each_language_has_the_english_sections(lang: str) -> None:
    text = guide(lang).read_text(encoding="utf-8")
    assert headings(text) == headings(guide("en").read_text(encoding="utf-8"))
    assert len(headings(text)) >= 10


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_gives_the_commands_as_the_program_takes_them(lang: str) -> None:
    text = guide(lang).read_text(encoding="utf-8")
    assert "ssh-keygen -t ed25519 -f ~/.ssh/cairo-2026" in text
    assert f"ssh-keygen -Y sign -n {NAMESPACE} -f ~/.ssh/cairo-2026 order.yaml" in text
    assert "adjudicator check order.yaml --form cairo-2026-turn3-alice.yaml" in text
    assert "-----BEGIN SSH SIGNATURE-----" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_quotes_the_mail_in_the_readers_words(lang: str) -> None:
    """The subject of a report and the words of a receipt, as the program writes them in that
    language."""
    text = re.sub(r"\s+", " ", guide(lang).read_text(encoding="utf-8"))
    sultan = load_game("sultan")
    subject = say(msg("report-subject", game="cairo-2026", turn=3, player="alice"), sultan, lang)
    assert f"`{subject}`" in text
    for code in ("mail-receipt-accepted-subject", "mail-receipt-refused-subject"):
        words = say(msg(code, game="g", turn="t"), None, lang).split(": ", 1)[-1].strip(" :")
        words = words.split(" : ", 1)[-1]
        assert f"`{words}`" in text, code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_links_the_rules_the_check_and_the_other_languages(lang: str) -> None:
    links = set(LINK.findall(guide(lang).read_text(encoding="utf-8")))
    assert {"rules/README.md", "how-to-check.md", "notices.md", "press.md"} <= links
    assert {guide(other).name for other in LANGUAGES if other != lang} <= links


@pytest.mark.parametrize(
    "page",
    [DOCS / "rules" / "README.md", *(guide(lang) for lang in LANGUAGES)],
    ids=lambda p: p.name,
)
def test_every_link_is_a_file_of_the_repository(page: Path) -> None:
    links = LINK.findall(page.read_text(encoding="utf-8"))
    assert links
    for target in links:
        assert not re.match(r"[a-z]+:", target), target
        assert (page.parent / target).is_file(), target


def test_the_rules_index_links_every_games_summary_in_every_language() -> None:
    links = set(LINK.findall((DOCS / "rules" / "README.md").read_text(encoding="utf-8")))
    for game in ("sultan", "sultans_court"):
        for lang in LANGUAGES:
            assert f"../../templates/{game}/rules/{lang}.md" in links
