"""Press relayed by mail and listed in reports (docs/press.md): each press mailed once
to each recipient and copied to the game master, under grey without a trace of its sender, in
the recipient's report of the next turn (text and HTML, every language), and never to anyone
outside the game; the two-worlds tests prove a player learns nothing of press not theirs."""

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

from adjudicator.present import rendered
from adjudicator.present.html import report_page
from adjudicator.rules.lang import LANGUAGES
from tests import hashes
from tests.helpers import Table, notice_mail, run

NOW = "2026-11-27T12:00:00+00:00"
PARSER = BytesParser(policy=email.policy.default)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", NOW)


def config(table: Table) -> Path:
    path = table.root / "mail.toml"
    path.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    return path


def press(table: Table, sender: str, to: str | list[str], text: str, name: str) -> None:
    target = to if isinstance(to, str) else "[" + ", ".join(to) + "]"
    path = table.notice(sender, f"press:\n  to: {target}\n  text: {json.dumps(text)}\n", name)
    result = run("press", table.gamedir, path)
    assert result.exit_code == 0, result.output


def send(table: Table) -> None:
    result = run("send", table.gamedir, "--config", config(table))
    assert result.exit_code == 0, result.output


def mails(table: Table, label: str = "") -> list[tuple[str, EmailMessage]]:
    folder = table.gamedir / "outbox"
    return [
        (path.name, PARSER.parsebytes(path.read_bytes()))  # type: ignore[misc]
        for path in sorted(folder.glob("*.eml"))
        if label in path.name
    ]


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content()).replace("\r\n", "\n")


def play_turn(table: Table) -> None:
    for player in table.status()["owed"]:
        path = table.signed(
            player, table.legal(player), name=f"{player}-{table.status()['turn']}.yaml"
        )
        result = run("submit", table.gamedir, path)
        assert result.exit_code == 0, result.output
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 0, result.output


def log(table: Table) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]


def test_press_is_relayed_once_to_each_recipient_naming_its_sender(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="private")
    press(table, "alice", ["bob"], "Shall we share the rubies?", "one.yaml")
    press(table, "carol", "all", "I take the blue ones.", "two.yaml")
    send(table)
    relayed = mails(table, "press")
    assert [(m["To"], m["Subject"]) for _, m in relayed] == [
        ("bob@example.org", "[cairo-2026] press from alice"),
        ("gm@example.org", "[cairo-2026] press from alice to bob"),
        ("alice@example.org", "[cairo-2026] press from carol"),
        ("bob@example.org", "[cairo-2026] press from carol"),
        ("gm@example.org", "[cairo-2026] press from carol to everyone"),
    ]
    for _, message in relayed:
        assert message["From"] == "gm-bot@example.org"
        assert message["Reply-To"] is None
        assert message["Auto-Submitted"] == "auto-generated"
    # the text set off, as in a report: no line of it can pass for the mail's own
    assert "From alice, to bob:\n\n    Shall we share the rubies?\n" in body(relayed[0][1])
    assert "From carol, to everyone:" in body(relayed[3][1])
    # once: a second send relays nothing again, and the journal says how many were relayed
    send(table)
    assert len(mails(table, "press")) == 5
    assert [e.get("press") for e in log(table) if e["type"] == "queued" and "press" in e] == [2]
    press(table, "bob", ["alice", "carol"], "Not so fast.", "three.yaml")
    send(table)
    later = [(m["To"], m["Subject"]) for _, m in mails(table, "press")[5:]]
    assert later == [
        ("alice@example.org", "[cairo-2026] press from bob"),
        ("carol@example.org", "[cairo-2026] press from bob"),
        ("gm@example.org", "[cairo-2026] press from bob to alice and carol"),
    ]


def test_press_goes_only_to_the_players_addresses_and_the_game_master(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="private")
    press(table, "alice", ["bob"], "Write to mallory@evil.example, To: x@evil.example", "one.yaml")
    send(table)
    addresses = {str(m["To"]) for _, m in mails(table)}
    assert addresses == {f"{n}@example.org" for n in table.names} | {"gm@example.org"}
    for _, message in mails(table, "press"):
        assert message.get_all("Cc") is None and message.get_all("Bcc") is None


@pytest.mark.seconds
def test_a_recipients_language(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="private")
    meta = json.loads((table.gamedir / "game.json").read_text())
    assert meta["players"][1]["name"] == "bob"
    result = run("replace", table.gamedir, "--player", "bob", "--lang", "de")
    assert result.exit_code == 0, result.output
    press(table, "alice", ["bob"], "Hallo", "one.yaml")
    send(table)
    (_, to_bob), *_ = mails(table, "press")
    assert to_bob["Subject"] == "[cairo-2026] Nachricht von alice"
    assert "Von alice, an bob:" in body(to_bob)


def test_grey_press_tells_its_recipients_nothing_of_its_sender(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="grey")
    press(table, "alice", ["bob"], "Someone likes you.", "one.yaml")
    send(table)
    (name, to_bob), (gm_name, to_gm) = mails(table, "press")
    raw = (table.gamedir / "outbox" / name).read_bytes()
    assert b"alice" not in raw.lower() and "alice" not in name
    assert to_bob["Subject"] == "[cairo-2026] press from someone"
    assert "From someone, to bob:" in body(to_bob)
    assert "alice" not in gm_name and to_gm["Subject"] == "[cairo-2026] press from alice to bob"
    # nor does the journal, which a public archive holds: no line, no file it names
    lines = [e for e in log(table) if e.get("notices") or e.get("press")]
    assert len(lines) == 2
    for entry in lines:
        assert "alice" not in json.dumps(entry), entry


def test_grey_press_by_mail_leaves_no_sender_in_the_journal(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="grey")
    send(table)
    path = table.notice("alice", 'press:\n  to: [bob]\n  text: "psst"\n', "alice-press.yaml")
    raw = notice_mail(path, "alice@example.org", "<p1@mail>", "press")
    result = run(
        "ingest",
        table.gamedir,
        "--config",
        config(table),
        input=raw,  # type: ignore[arg-type]
    )
    assert result.exit_code == 0, result.output
    send(table)
    mail_lines = [e for e in log(table) if e.get("notices")]
    assert len(mail_lines) == 1
    assert "alice" not in json.dumps(mail_lines[0]), mail_lines[0]


def test_reports_list_the_press_of_the_turn_before(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, press="grey")
    press(table, "alice", ["bob"], "Someone likes you.", "one.yaml")
    press(table, "carol", "all", "Blue is mine.", "two.yaml")
    assert "Press during" not in rendered.report(table.gamedir, "bob", None, None, cache=False)
    play_turn(table)
    bob = rendered.report(table.gamedir, "bob", None, None, cache=False)
    assert "Press during turn 1:\n\n  From someone, to bob:\n    Someone likes you.\n" in bob
    assert "  From someone, to everyone:\n    Blue is mine.\n" in bob
    assert bob.index("Press during") < bob.index("-----8<-----")  # before the form
    alice = rendered.report(table.gamedir, "alice", None, None, cache=False)
    assert "Someone likes you." not in alice and "From someone, to everyone:" in alice
    carol = rendered.report(table.gamedir, "carol", None, None, cache=False)
    assert "Someone likes you." not in carol
    # under grey, press to everyone reaches its sender too: whom it reaches names nobody
    assert "  From someone, to everyone:\n    Blue is mine.\n" in carol
    gm = rendered.report(table.gamedir, "gm", None, None, cache=False)
    assert "From alice, to bob:\n    Someone likes you." in gm
    assert "From carol, to everyone:\n    Blue is mine." in gm
    public = rendered.report(table.gamedir, "public", None, None, cache=False)
    assert "Press" not in public and "Someone likes" not in public
    page = report_page(table.gamedir, "bob").html
    assert "From someone, to bob:" in page and "Someone likes you." in page
    assert "alice" not in page.split("Press during")[1]
    german = rendered.report(table.gamedir, "bob", None, None, lang="de", cache=False)
    assert "Nachrichten während Zug 1:" in german and "Von jemandem, an bob:" in german
    # the report mailed for turn 2 lists it too; the one for turn 1 did not
    send(table)
    reports = {m["To"]: body(m) for name, m in mails(table, "report-2-")}
    assert "Someone likes you." in reports["bob@example.org"]
    assert "Someone likes you." not in reports["carol@example.org"]
    # a press sent during turn 2 is listed in turn 3's report, not turn 2's
    press(table, "alice", ["bob"], "Again.", "three.yaml")
    assert "Again." not in rendered.report(table.gamedir, "bob", None, None, cache=False)


def test_the_report_cache_keys_on_the_press_shown(tmp_path: Path) -> None:
    """Two games whose views and setups are the same but for press: the cached report of one
    must not be shown for the other."""
    worlds = []
    for name, text in (("a", "First world."), ("b", "Second world.")):
        (tmp_path / name).mkdir()
        table = Table(tmp_path / name, players=3, press="private")
        press(table, "alice", ["bob"], text, "one.yaml")
        play_turn(table)
        worlds.append(table)
    shown = [rendered.report(t.gamedir, "bob", None, "ab" * 32) for t in worlds]
    assert "First world." in shown[0] and "Second world." in shown[1]


# -- two worlds --------------------------------------------------------------------------------
def _readings(table: Table, reader: str) -> dict[str, Any]:
    """Everything ``reader`` reads: the reports (text, HTML, every language), ``view --json``,
    and the mail sent to them (Message-IDs blanked: random; hashes blanked)."""
    got: dict[str, Any] = {}
    for lang in LANGUAGES:
        got[f"text-{lang}"] = rendered.report(
            table.gamedir, reader, None, None, lang=lang, cache=False
        )
        got[f"html-{lang}"] = report_page(table.gamedir, reader, lang=lang).html
    got["view"] = table.view(reader)
    to = f"{reader}@example.org"
    got["mail"] = [_mail_reading(message) for name, message in mails(table) if message["To"] == to]
    return hashes.blanked(got)


def _mail_reading(message: EmailMessage) -> dict[str, Any]:
    """A mail as its reader reads it: every header but the Message-ID (random), and each
    part's type, file name and decoded content."""
    headers = [
        (k, re.sub(r"={15}\d+==", "BOUNDARY", str(v)))
        for k, v in message.items()
        if k.lower() != "message-id"
    ]
    parts = []
    for part in message.walk():
        if part.is_multipart():
            continue
        content = part.get_content()
        if isinstance(content, bytes):
            content = hashlib.sha256(content).hexdigest()
        # a signing page's copy of its mail's Message-ID (random) and of the reader's own public
        # key (each world makes its own keys)
        content = re.sub(r'"(answers|registered)": "[^"]*"', r'"\1": X', content)
        parts.append((part.get_content_type(), part.get_filename(), content.replace("\r\n", "\n")))
    return {"headers": headers, "parts": parts}


def _world(root: Path, option: str, notes: list[tuple[str, Any, str]]) -> Table:
    root.mkdir()
    table = Table(root, players=4, press=option)
    send(table)
    for index, (sender, to, text) in enumerate(notes):
        press(table, sender, to, text, f"p{index}.yaml")
    send(table)
    play_turn(table)
    send(table)
    return table


@pytest.mark.seconds
@pytest.mark.parametrize("option", ["private", "grey"])
def test_press_between_others_does_not_show(tmp_path: Path, option: str) -> None:
    mine = ("alice", ["bob"], "For bob.")
    one = _world(tmp_path / "one", option, [mine])
    two = _world(
        tmp_path / "two",
        option,
        [("carol", ["dave"], "A secret."), mine, ("dave", ["alice", "carol"], "Another.")],
    )
    assert _readings(one, "bob") == _readings(two, "bob")


@pytest.mark.seconds
def test_under_grey_who_sent_does_not_show(tmp_path: Path) -> None:
    one = _world(
        tmp_path / "one", "grey", [("alice", ["bob"], "Guess who."), ("dave", "all", "Hi.")]
    )
    two = _world(
        tmp_path / "two", "grey", [("carol", ["bob"], "Guess who."), ("alice", "all", "Hi.")]
    )
    assert _readings(one, "bob") == _readings(two, "bob")


def test_under_grey_a_press_shares_no_journal_line_with_what_names_its_sender(
    tmp_path: Path,
) -> None:
    """The journal is public. A grey press taken in the same step as an order (or an absence or
    a vote, which reports name) would stand in one line with it and so name its sender: under
    grey a step that takes press takes nothing else, and says why."""
    table = Table(tmp_path, players=3, press="grey")
    player = table.status()["owed"]
    sender = next(iter(player))
    order = table.signed(sender, table.legal(sender), "order.yaml")
    secret = table.notice(sender, "press:\n  to: all\n  text: psst\n", "press.yaml")
    before = len(log(table))
    result = run("submit", table.gamedir, order, secret)
    assert result.exit_code == 3
    assert result.output.splitlines()[1] == (
        f"{secret}: refused: under grey press, a press travels alone, never with an order, "
        "absence or vote (in one message or submit), so that nobody can tell who sent it"
    )
    [line] = log(table)[before:]
    assert "notices" not in line and line["orders"][0]["player"] == sender
    vote = table.notice(sender, "vote: draw\n", "vote.yaml")
    result = run("submit", table.gamedir, secret, vote)
    assert result.exit_code == 3
    assert f"{vote}: refused: a vote travels alone" in result.output
    [line] = log(table)[before + 1 :]
    assert [n["kind"] for n in line["notices"]] == ["press"] and line["orders"] == []
    other = table.notice("bob", "press:\n  to: all\n  text: hello\n", "bob.yaml")
    assert run("submit", table.gamedir, other).exit_code == 0, "press with press is alone"


@pytest.mark.seconds
def test_the_record_of_a_finished_game_keeps_every_press_with_its_sender(tmp_path: Path) -> None:
    import jsonschema

    table = Table(tmp_path, players=3, press="grey")
    press(table, "alice", ["bob"], "Shall we share the rubies?", "one.yaml")
    press(table, "carol", "all", "I take the blue ones.", "two.yaml")
    running = json.loads(run("log", table.gamedir, "--json").output)
    assert "press" not in running, "while the game runs the record is public"
    while not table.status()["over"]:
        play_turn(table)
    data = json.loads(run("log", table.gamedir, "--json").output)
    assert data["press"] == [
        {
            "turn": 1,
            "at": NOW,
            "from": "alice",
            "to": ["bob"],
            "text": "Shall we share the rubies?",
        },
        {"turn": 1, "at": NOW, "from": "carol", "to": "all", "text": "I take the blue ones."},
    ]
    schema = json.loads(
        (Path(__file__).parent.parent / "docs/schemas/sultan-record.schema.json").read_text()
    )
    assert [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(data)] == []
    assert "\npress: 2, each with its sender, in log --json\n" in run("log", table.gamedir).output


def test_a_player_sends_at_most_so_many_press_a_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each press is mailed to its recipients: without a cap one player could have the
    adjudicator flood every other player's mailbox. Another player's press, or the next turn,
    is not held back."""
    from adjudicator.engine import notices

    monkeypatch.setattr(notices, "MAX_PRESS_PER_TURN", 2)
    table = Table(tmp_path, players=3, press="private")
    press(table, "alice", "all", "one", "a1.yaml")
    press(table, "alice", ["bob"], "two", "a2.yaml")
    third = table.notice("alice", "press:\n  to: all\n  text: three\n", "a3.yaml")
    result = run("press", table.gamedir, third)
    assert result.exit_code == 3, result.output
    assert (
        "line 3: you have sent 2 press during turn 1, the most taken in one turn" in result.output
    )
    press(table, "bob", "all", "mine", "b1.yaml")
    play_turn(table)
    assert run("press", table.gamedir, third).exit_code == 0


def _mail(table: Table, sender: str, message_id: str, *paths: Path) -> None:
    """``sender`` mails the signed files ``paths`` in one message; it is ingested."""
    message = EmailMessage()
    message["From"] = f"{sender}@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "mine"
    message["Message-ID"] = message_id
    message.set_content("here\n")
    for path in paths:
        message.add_attachment(
            path.read_bytes(), maintype="text", subtype="yaml", filename=path.name
        )
        message.add_attachment(
            Path(f"{path}.sig").read_bytes(),
            maintype="application",
            subtype="octet-stream",
            filename=f"{path.name}.sig",
        )
    raw = message.as_bytes(policy=email.policy.SMTP)
    result = run("ingest", table.gamedir, "--config", config(table), input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output


@pytest.mark.seconds
def test_grey_press_by_mail_with_an_order_names_no_sender_in_its_receipts(
    tmp_path: Path,
) -> None:
    """Every file a step writes is named in its journal line, which a public archive holds:
    the receipts of a message that brought grey press (the order with it is refused) must not
    be named after their player, nor held in the folder of their player's address (whose
    other held receipts name the player) when that player had their hourly answers already."""
    table = Table(tmp_path, players=3, press="grey")
    send(table)
    sender = next(iter(table.status()["owed"]))
    for number in range(5):  # five answers within the hour: the next ones are held
        order = table.signed(sender, {"nonsense": number}, f"bad-{number}.yaml")
        _mail(table, sender, f"<o{number}@mail>", order)
    press_file = table.notice(sender, "press:\n  to: all\n  text: psst\n", "p.yaml")
    order = table.signed(sender, table.legal(sender), "order.yaml")
    _mail(table, sender, "<p1@mail>", press_file, order)
    [line] = [e for e in log(table) if e.get("notices")]
    assert sender not in json.dumps(line), line
    held = [path for path in line["files"] if path.startswith("mail/held/")]
    assert held == [], held
    send(table)
    receipts = [m for _, m in mails(table) if m["In-Reply-To"] == "<p1@mail>"]
    assert len(receipts) == 2, "both receipts go out, none held"


# -- two worlds, through the record: journal and archives ---------------------------------------
HEX64 = re.compile(r"[0-9a-f]{64}")


def mailed(table: Table, path: Path, sender: str, message_id: str) -> None:
    """``sender`` mails the signed notice at ``path`` (Message-ID ``message_id``, as their mail
    program wrote it); ``ingest`` takes it."""
    raw = notice_mail(path, f"{sender}@example.org", message_id, "press")
    result = run("ingest", table.gamedir, "--config", config(table), input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output


def journal_seen(table: Table) -> list[Any]:
    """The journal as anyone who holds a public archive reads it, with every digest and chain
    link (64 hex digits: keyed under each world's own key, or of files that differ) blanked."""
    lines = (table.gamedir / "log.jsonl").read_text().splitlines()
    return [json.loads(HEX64.sub("HASH", line)) for line in lines]


def archive_seen(table: Table, public: bool, *unlike: str) -> dict[str, Any]:
    """The archive (``--public`` or full), hashes blanked, each mail's Message-ID (random),
    the salt and the privacy bits (drawn at ``new``) left out; the files whose path starts
    with one of ``unlike`` (what the full archive must hold that names who sent or voted) by
    path only."""
    out = table.root / f"archive-{public}.json"
    flags = ["--public"] if public else []
    result = run("archive", table.gamedir, *flags, "-o", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    data.pop("salt", None)
    data["journal"] = [json.loads(HEX64.sub("HASH", line)) for line in data["journal"]]
    files = []
    for one in data["files"]:
        text = one.get("text", one.get("base64", ""))
        text = re.sub(r"(?m)^Message-ID: .*$", "Message-ID: -", text)
        text = re.sub(r'"(salt|privacy)": "[0-9a-f]+"', r'"\1": "-"', text)
        kept = not one["path"].startswith(unlike)
        files.append({"path": one["path"], "text": HEX64.sub("HASH", text) if kept else None})
    data["files"] = files
    return dict(data)


def same_keys(monkeypatch: pytest.MonkeyPatch, made: Path) -> None:
    """Every world's players get the same keys (made once, in ``made``): the journal's
    first line names the keys, and the worlds must differ only in what they are about."""
    import shutil

    from tests import helpers
    from tests.ssh import make_key

    def copied(directory: Path, name: str) -> Path:
        if not (made / name).exists():
            make_key(made, name)
        directory.mkdir(parents=True, exist_ok=True)
        for suffix in ("", ".pub"):
            shutil.copy(made / f"{name}{suffix}", directory / f"{name}{suffix}")
        return directory / name

    monkeypatch.setattr(helpers, "make_key", copied)


def _grey_world(root: Path, sender: str, to: list[str], message_id: str) -> Table:
    root.mkdir()
    table = Table(root, players=3, press="grey")
    send(table)
    path = table.notice(sender, f"press:\n  to: [{', '.join(to)}]\n  text: Guess who.\n", "g.yaml")
    mailed(table, path, sender, message_id)
    send(table)
    return table


@pytest.mark.seconds
def test_grey_press_to_every_other_player_by_name_is_press_to_everyone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice writes to bob and carol by name; in the other world carol writes to alice and bob.
    Each list names every other player, so it would name its sender by elimination (the one left
    out): it is press to everyone, mailed to everyone, its sender too, and reads "to everyone".
    What each player reads, the journal and both archives are the same in both worlds, but for
    what the full archive must hold (the signed press and the sender's receipt)."""
    same_keys(monkeypatch, tmp_path / "keys")
    one = _grey_world(tmp_path / "one", "alice", ["bob", "carol"], "<CAF=Qx3mK9+bZ@mail.gmail.com>")
    two = _grey_world(
        tmp_path / "two", "carol", ["alice", "bob"], "<5f1e2a9c-77d0@laptop.example.net>"
    )
    for table in (one, two):
        relayed = [m["To"] for _, m in mails(table, "press") if m["To"] != "gm@example.org"]
        assert relayed == [f"{n}@example.org" for n in table.names]
        assert "From someone, to everyone:" in body(mails(table, "press-1-2")[0][1])
    assert _readings(one, "bob") == _readings(two, "bob")  # alice and carol know who wrote
    assert journal_seen(one) == journal_seen(two)
    assert archive_seen(one, True) == archive_seen(two, True)
    # by path only: the signed press, and the mail as sent (each reader's compared above; each
    # world's random Message-IDs, MIME boundaries and chain heads in quoted-printable)
    must_differ = ("notices/press/", "mail/", "outbox/")
    full = [archive_seen(t, False, *must_differ) for t in (one, two)]
    assert full[0] == full[1]


def test_grey_press_is_refused_in_a_game_of_two(tmp_path: Path) -> None:
    """With two players the other always knows who wrote: a game of two is not made with grey
    press, and grey press is refused once only two players may send it, with a reason in the
    sender's language."""
    import yaml

    with pytest.raises(AssertionError, match="grey press needs three players or more"):
        Table(tmp_path, players=2, press="grey")
    assert not (tmp_path / "game").exists()
    setup = yaml.safe_load((tmp_path / "setup.yaml").read_text())
    assert setup["options"] == {"press": "grey"} and len(setup["players"]) == 2
    demo = run(
        "demo", "sultan", "--players", "2", "--option", "press=grey", "--dir", tmp_path / "d"
    )
    assert demo.exit_code == 2 and "grey press needs three players or more" in demo.output
    three = Table(tmp_path / "three", players=3, press="grey")
    assert run("resign", three.gamedir, "--player", "carol").exit_code == 0
    refused = run(
        "press", three.gamedir, three.notice("alice", "press:\n  to: [bob]\n  text: x\n", "q.yaml")
    )
    assert refused.exit_code == 3, refused.output
    assert (
        "game cairo-2026 takes grey press only while three players or more may send it: with "
        "two, the other always knows who wrote"
    ) in refused.output


def test_who_could_have_sent_is_counted_when_the_press_came(tmp_path: Path) -> None:
    """A list is press to everyone when it names every other player who could have sent it
    then: a resignation later does not change a press taken before (its report is sent); one
    before it does."""
    from adjudicator.engine.press import everything

    table = Table(tmp_path, players=4, press="grey")
    press(table, "alice", ["bob", "carol"], "Before.", "one.yaml")
    assert run("resign", table.gamedir, "--player", "dave").exit_code == 0
    press(table, "alice", ["bob", "carol"], "After.", "two.yaml")
    press(table, "bob", ["carol"], "Private.", "three.yaml")
    assert [(p["text"], p["to"]) for p in everything(table.gamedir)] == [
        ("Before.", ["bob", "carol"]),
        ("After.", "all"),
        ("Private.", ["carol"]),
    ]
    send(table)
    to = [(m["To"], m["Subject"]) for _, m in mails(table, "press-2-")]
    assert to == [
        ("alice@example.org", "[cairo-2026] press from someone"),
        ("bob@example.org", "[cairo-2026] press from someone"),
        ("carol@example.org", "[cairo-2026] press from someone"),
        ("gm@example.org", "[cairo-2026] press from alice to everyone"),
    ]
