"""The welcome mail: queued by the first send after ``new`` for every player, after ``replace``
for a seat's new player only, in each player's language and time zone, with ``Reply-To`` the
game's address; and nothing in it that its player may not know."""

from __future__ import annotations

import email.policy
import json
import re
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.mail import queue
from tests import smtpserver
from tests.helpers import NAMES, run
from tests.smtpserver import PASSWORD, USER, Server
from tests.ssh import make_key

authority = smtpserver.authority
smtp_starttls = smtpserver.smtp_starttls

START = "2026-11-23T10:00:00+00:00"
SEED = "3f9a2c7e5b1d4086a9e2f71c0b8d5e34"


@pytest.fixture(autouse=True)
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", START)
    monkeypatch.setattr(queue, "SMTP_TIMEOUT", 10.0)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mail.toml"
    path.write_text('[mail]\nfrom = "Cairo GM <gm-bot@example.org>"\ngm = "gm@example.org"\n')
    return path


def make_game(
    root: Path,
    *,
    game: str = "sultan",
    players: int = 3,
    seed: str = SEED,
    entries: dict[str, dict[str, Any]] | None = None,
    keys: Path | None = None,
    **top: Any,
) -> Path:
    """A game made by ``new`` in ``root/game``; ``entries`` add keys to a player's entry."""
    names = NAMES[:players]
    keys = keys or root / "keys"
    for name in names:
        if not (keys / f"{name}.pub").exists():
            make_key(keys, name)
    setup = {
        "game": game,
        "id": "cairo-2026",
        "seed": seed,
        "players": [
            {
                "name": n,
                "email": f"{n}@example.org",
                "key": (keys / f"{n}.pub").read_text().strip(),
                **(entries or {}).get(n, {}),
            }
            for n in names
        ],
        **top,
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "setup.yaml").write_text(yaml.safe_dump(setup, sort_keys=False))
    result = run("new", root / "game", "--setup", root / "setup.yaml")
    assert result.exit_code == 0, result.output
    return root / "game"


def outbox(gamedir: Path) -> list[EmailMessage]:
    parser = BytesParser(policy=email.policy.default)
    found = sorted((gamedir / "outbox").glob("*.eml"))
    return [parser.parsebytes(p.read_bytes()) for p in found]


def welcomes(gamedir: Path) -> list[EmailMessage]:
    """The welcome mails in the outbox (their files are named ``NNNNNN-welcome-<player>``)."""
    parser = BytesParser(policy=email.policy.default)
    found = sorted((gamedir / "outbox").glob("*-welcome-*.eml"))
    return [parser.parsebytes(p.read_bytes()) for p in found]


def text(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


def html(message: EmailMessage) -> str:
    body = message.get_body(("html",))
    assert body is not None
    return str(body.get_content())


def journal(gamedir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (gamedir / "log.jsonl").read_text().splitlines()]


def send(gamedir: Path, config: Path) -> None:
    result = run("send", gamedir, "--config", config)
    assert result.exit_code == 0, result.output


def test_new_welcomes_every_player_once_before_the_reports(tmp_path: Path, config: Path) -> None:
    gamedir = make_game(tmp_path)
    assert journal(gamedir)[0]["welcome"] is True
    assert not (gamedir / "outbox").exists(), "new sends nothing: the next send queues"
    send(gamedir, config)
    mails = outbox(gamedir)
    assert [m["To"] for m in mails[:3]] == [
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
    ]
    assert all("report for" in str(m["Subject"]) for m in mails[3:])
    for name, mail in zip(NAMES, mails[:3], strict=False):
        assert mail["Subject"] == f"[cairo-2026] welcome, {name}: how this game runs by mail"
        assert mail["Reply-To"] == "Cairo GM <gm-bot@example.org>"
        assert mail["Auto-Submitted"] == "auto-generated"
        words = text(mail)
        assert f"You play {name} in the game cairo-2026 of Sultan" in words
        assert f"{name} (you)" in words
        assert f"-f ~/.ssh/id_ed25519 cairo-2026-turn1-{name}.yaml\n" in words
        assert f"-f $HOME\\.ssh\\id_ed25519 cairo-2026-turn1-{name}.yaml\n" in words
        assert "Send both to gm-bot@example.org" in words
        assert "There are no deadlines" in words and "No deadline for turn 1" in words
        assert "round" in words and "A turn is one exchange of orders by mail" in words
        assert "Press: none" in words and "Absences: this game takes none." in words
        assert "adjudicator check" not in words
        assert "You play" in html(mail) and "<script" not in html(mail)
    queued = [e for e in journal(gamedir) if e["type"] == "queued" and "welcomed" in e]
    assert len(queued) == 1
    send(gamedir, config)
    assert len(welcomes(gamedir)) == 3, "queued once"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_welcome_brings_the_players_guide_in_the_players_language(
    tmp_path: Path, config: Path, lang: str
) -> None:
    """The welcome named the guide as a file of the adjudicator's, out of reach of a player
    without the program: it now comes attached, in the player's language."""
    gamedir = make_game(tmp_path, lang=lang)
    send(gamedir, config)
    docs = Path(__file__).resolve().parent.parent / "docs"
    name = "players.md" if lang == "en" else f"players.{lang}.md"
    for mail in welcomes(gamedir):
        [guide] = [a for a in mail.iter_attachments() if a.get_filename() == name]
        assert guide.get_content_type() == "text/markdown"
        assert guide.get_payload(decode=True) == (docs / name).read_bytes()
        assert name in " ".join(text(mail).split())


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_the_welcomes_text_shows_the_rules_without_markdowns_marks(
    tmp_path: Path, config: Path, game: str
) -> None:
    """The text of the welcome showed the rules summary as its Markdown (``**Vizirs**``,
    ``## Travel``): it now shows plain text, headings underlined, lists kept."""
    langs = dict(zip(NAMES, ["en", "de", "nl", "fr"], strict=False))
    gamedir = make_game(
        tmp_path,
        game=game,
        players=4,
        entries={name: {"lang": lang} for name, lang in langs.items()},
    )
    send(gamedir, config)
    mails = welcomes(gamedir)
    assert len(mails) == 4
    for mail in mails:
        words = text(mail)
        assert "**" not in words and "](" not in words
        assert not [line for line in words.splitlines() if line.startswith("#")]
        assert "\n- " in words, "its lists are kept"
        assert re.search(r"\n[^\n]+\n-{4,}\n", words), "a heading is underlined"
    first = text(mails[0])  # in English
    assert "- Vizirs: each player" in first or "- Cushions: three" in first
    assert game == "sultan" or "\n1. Palace intrigues:" in first


def test_replace_welcomes_the_new_player_only(tmp_path: Path, config: Path) -> None:
    gamedir = make_game(tmp_path)
    send(gamedir, config)
    result = run("replace", gamedir, "--player", "bob", "--lang", "de")
    assert result.exit_code == 0, result.output
    send(gamedir, config)
    assert len(welcomes(gamedir)) == 3, "the same player in another language: no welcome"
    result = run("replace", gamedir, "--player", "bob", "--email", "robert@example.org")
    assert result.exit_code == 0, result.output
    send(gamedir, config)
    new = welcomes(gamedir)[3:]
    assert [m["To"] for m in new] == ["robert@example.org"]
    assert "Du spielst bob" in text(new[0]), "in the seat's language"


def test_the_welcome_goes_by_smtp_with_its_reply_to(
    tmp_path: Path, smtp_starttls: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    gamedir = make_game(tmp_path)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", PASSWORD)
    config = tmp_path / "smtp.toml"
    config.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\n'
        f'[smtp]\nhost = "{smtp_starttls.host}"\nport = {smtp_starttls.port}\n'
        f'user = "{USER}"\ntls = "starttls"\nca_file = "{smtp_starttls.ca_file}"\n'
        'password_env = "TEST_SMTP_PASSWORD"\n'
    )
    result = run("tick", gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    parser = BytesParser(policy=email.policy.default)
    arrived = [parser.parsebytes(r.data) for r in smtp_starttls.received]
    first = arrived[0]
    assert first["Subject"] == "[cairo-2026] welcome, alice: how this game runs by mail"
    assert first["Reply-To"] == "gm-bot@example.org"
    reports = [m for m in arrived if m.get_filename() or any(True for _ in m.iter_attachments())]
    assert reports and all(m["Reply-To"] == "gm-bot@example.org" for m in reports)
    assert all("HOW TO ANSWER" in text(m) for m in reports), "every mail that asks for an order"


def test_deadlines_are_shown_in_each_players_time_zone(tmp_path: Path, config: Path) -> None:
    gamedir = make_game(
        tmp_path,
        entries={"bob": {"tz": "Asia/Tokyo"}},
        deadline="48h",
        timezone="Europe/Berlin",
        reminders=["24h"],
    )
    send(gamedir, config)
    first, *_ = [
        " ".join(text(m).split()) for m in outbox(gamedir) if m["To"] == "alice@example.org"
    ]
    by_bob = [" ".join(text(m).split()) for m in outbox(gamedir) if m["To"] == "bob@example.org"]
    assert "2026-11-25 10:00 UTC (2026-11-25 11:00 CET, Europe/Berlin)" in first
    assert "your time zone, Europe/Berlin" in first
    assert all("2026-11-25 10:00 UTC (2026-11-25 19:00 JST, Asia/Tokyo)" in t for t in by_bob[:1])
    assert "your time zone, Asia/Tokyo" in by_bob[0]
    asked = [m for m in outbox(gamedir) if any(True for _ in m.iter_attachments())]
    for mail in asked:  # the reports that ask for an order: the deadline in the reader's zone
        zone = "Asia/Tokyo" if mail["To"] == "bob@example.org" else "Europe/Berlin"
        assert "The deadline for turn 1: 2026-11-25 10:00 UTC" in " ".join(text(mail).split())
        assert zone in " ".join(text(mail).split())


def test_a_bad_time_zone_is_refused_with_its_line(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    for name in NAMES[:3]:
        make_key(keys, name)
    players: list[dict[str, str]] = [
        {"name": n, "email": f"{n}@example.org", "key_file": f"keys/{n}.pub"} for n in NAMES[:3]
    ]
    players[1]["tz"] = "Mars/Olympus"
    setup = {"game": "sultan", "id": "cairo-2026", "players": players}
    (tmp_path / "setup.yaml").write_text(yaml.safe_dump(setup, sort_keys=False))
    result = run("new", tmp_path / "game", "--setup", tmp_path / "setup.yaml")
    assert result.exit_code == 3, result.output
    assert "unknown time zone 'Mars/Olympus'" in result.output
    assert "line 10: unknown time zone 'Mars/Olympus'" in result.output, "bob's tz line"
    assert not (tmp_path / "game").exists()


@pytest.mark.seconds
def test_the_welcome_shows_nothing_of_the_seed_or_the_others_addresses(
    tmp_path: Path, config: Path
) -> None:
    """Two worlds that differ only in what alice cannot know (the seed, so every deck, hand and
    draw, and the other players' addresses): her welcome is the same in both, word for word,
    in its text and in its page."""
    keys = tmp_path / "keys"
    one = make_game(tmp_path / "one", keys=keys, game="sultans_court", players=4)
    other = make_game(
        tmp_path / "other",
        keys=keys,
        game="sultans_court",
        players=4,
        seed="c0ffee0123456789abcdef0123456789",
        entries={"bob": {"email": "hidden@elsewhere.example"}},
    )
    send(one, config)
    send(other, config)
    mine = [next(m for m in welcomes(g) if m["To"] == "alice@example.org") for g in (one, other)]
    assert text(mine[0]) == text(mine[1])
    assert html(mine[0]) == html(mine[1])
    assert mine[0]["Subject"] == mine[1]["Subject"]
    assert "hidden" not in text(mine[1]) and "bob@example.org" not in text(mine[0])
    reports = [
        [m for m in outbox(g) if m["To"] == "alice@example.org" and "report" in str(m["Subject"])]
        for g in (one, other)
    ]
    assert text(reports[0][0]) != text(reports[1][0]), "the two worlds differ where it shows"


def test_a_reminder_says_how_to_answer_in_the_players_zone(
    tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gamedir = make_game(
        tmp_path,
        entries={"bob": {"tz": "Asia/Tokyo"}},
        deadline="48h",
        timezone="Europe/Berlin",
        reminders=["24h"],
        options={"jewel_choice": "random"},
    )
    send(gamedir, config)
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-24T10:00:00+00:00")
    result = run("tick", gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    assert "reminded" in result.output
    parser = BytesParser(policy=email.policy.default)
    found = sorted((gamedir / "outbox").glob("*reminder*.eml"))
    reminders = [parser.parsebytes(p.read_bytes()) for p in found]
    assert reminders
    for mail in reminders:
        name = str(mail["To"]).split("@")[0]
        words = " ".join(text(mail).split())
        assert mail["Reply-To"] == "Cairo GM <gm-bot@example.org>"
        assert "HOW TO ANSWER" in words
        assert f"-f ~/.ssh/id_ed25519 cairo-2026-turn1-{name}.yaml" in words
        zone = "Asia/Tokyo" if name == "bob" else "Europe/Berlin"
        assert "The deadline for turn 1: 2026-11-25 10:00 UTC" in words
        assert zone in words.split("The deadline for turn 1:")[1]


@pytest.mark.seconds
@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_a_report_that_asks_for_an_order_names_its_order_page(
    tmp_path: Path, config: Path, game: str
) -> None:
    """A player with only a browser learns from the mail itself that the attached page fills in,
    checks and signs the order (under commit-reveal: makes the commitment, and the order to keep
    for the reveal)."""
    gamedir = make_game(tmp_path, game=game, players=4)
    send(gamedir, config)
    reports = [m for m in outbox(gamedir) if "report for" in str(m["Subject"])]
    asking = [m for m in reports if any(a.get_filename() for a in m.iter_attachments())]
    assert asking
    for mail in asking:
        pages = [a.get_filename() for a in mail.iter_attachments()]
        page = next(str(name) for name in pages if str(name).endswith(".html"))
        words = " ".join(text(mail).split())
        assert f"Without a terminal: open {page}, attached to this mail, in your browser." in words
        assert "at the end of this mail.\n-----8<-----\n" in text(mail), "the cut line stands alone"
        assert words.count("A turn is one exchange of orders by mail") <= 1, "said once"
    sealed = make_game(tmp_path / "sealed", options={"sealing": "commit-reveal"})
    send(sealed, config)
    asking = [m for m in outbox(sealed) if any(a.get_filename() for a in m.iter_attachments())]
    for mail in [m for m in asking if "report for" in str(m["Subject"])]:
        page = next(
            str(a.get_filename())
            for a in mail.iter_attachments()
            if str(a.get_filename()).endswith(".html")
        )
        words = " ".join(text(mail).split())
        assert f"Without a terminal: open {page}" in words
        assert "send now only a commitment to your order" in words


def test_each_notice_the_welcome_shows_is_taken_as_copied_from_it(
    tmp_path: Path, config: Path
) -> None:
    """A walk-through copied the welcome's press example as it stood, indented like a command,
    and it was refused as an order: the examples now stand from the start of the line, and
    each, copied from the mail and signed, is taken."""
    from tests.ssh import ssh_sign

    gamedir = make_game(
        tmp_path, options={"press": "private", "absence": "extend"}, keys=tmp_path / "keys"
    )
    send(gamedir, config)
    [mail] = [m for m in welcomes(gamedir) if m["To"] == "alice@example.org"]
    words = text(mail)
    blocks = words.split("\nid: cairo-2026\n")[1:]
    assert len(blocks) == 3, words
    for number, block in enumerate(blocks):
        lines = ["id: cairo-2026", *block.split("\n\n")[0].splitlines()]
        notice = tmp_path / f"notice-{number}.yaml"
        notice.write_text("\n".join(lines) + "\n")
        ssh_sign(tmp_path / "keys" / "alice", notice)
        result = run("submit", gamedir, notice)
        assert result.exit_code == 0, (lines, result.output)
