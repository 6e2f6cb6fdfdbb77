"""Notices (docs/notices.md): press, absences and votes, signed like orders, taken by
``submit``, ``press``, ``absence`` and mail whatever the player owes, named in the journal
without their sender, and checked by ``verify``."""

from __future__ import annotations

import email.policy
import json
import subprocess
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from tests.helpers import Table, notice_mail, run
from tests.ssh import ssh_sign
from tests.test_preview import snapshot as tree_hashes

PRESS = "press:\n  to: [bob]\n  text: Shall we share the rubies?\n"


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path, players=3, press="private", absence="extend")


def journal(table: Table) -> list[dict]:
    return [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]


def test_press_is_stored_as_signed_and_named_without_its_sender(table: Table) -> None:
    path = table.notice("alice", PRESS, "press.yaml")
    result = run("press", table.gamedir, path)
    assert result.exit_code == 0, result.output
    assert result.output == f"{path}: accepted (alice, press)\n"
    stored = table.gamedir / "notices" / "press" / "0001.yaml"
    assert stored.read_bytes() == path.read_bytes()
    # what is stored verifies with OpenSSH itself, as an order does
    signers = table.root / "allowed"
    key = (table.root / "keys" / "alice.pub").read_text()
    signers.write_text(f"alice {key}")
    checked = subprocess.run(
        [
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            signers,
            "-I",
            "alice",
            "-n",
            "adjudicator-orders",
            "-s",
            f"{stored}.sig",
        ],
        input=stored.read_bytes(),
        capture_output=True,
    )
    assert checked.returncode == 0, checked.stderr
    line = journal(table)[-1]
    assert line["type"] == "submitted" and line["orders"] == []
    [entry] = line["notices"]
    assert set(entry) == {"kind", "file", "digest", "turn", "at"}
    assert (entry["kind"], entry["file"], entry["turn"]) == ("press", "0001.yaml", 1)
    assert "alice" not in json.dumps(line), "the journal is public: it never names the sender"


def test_submit_takes_every_kind_and_each_command_only_its_own(table: Table) -> None:
    vote = table.notice("alice", "vote: draw\n", "vote.yaml")
    away = table.notice("bob", "absence:\n  from: 2099-01-01\n  to: 2099-01-09\n", "away.yaml")
    press = table.notice("carol", PRESS.replace("[bob]", "all"), "press.yaml")
    before = tree_hashes(table.gamedir)
    for command, path in (("press", vote), ("absence", press), ("press", away)):
        result = run(command, table.gamedir, path)
        assert result.exit_code == 3, result.output
        assert f"and this command takes only {command}: notices" in result.output
    assert tree_hashes(table.gamedir) == before, "a refused notice changes nothing"
    result = run("submit", table.gamedir, away, press)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"{away}: accepted (bob, absence)",
        f"{press}: accepted (carol, press)",
    ]
    kinds = [n["kind"] for n in journal(table)[-1]["notices"]]
    assert kinds == ["absence", "press"]
    result = run("submit", table.gamedir, vote)  # a vote travels alone (V2)
    assert result.output == f"{vote}: accepted (alice, vote)\n"
    assert table.status()["received"] == [], "a notice is no order"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "press:\n  to: [alice, zed, bob, bob]\n  text: hi\n",
            [
                "line 4: this press is addressed to its sender",
                "line 4: there is no player 'zed' in this game (the others are bob, carol)",
                "line 4: bob is named twice",
            ],
        ),
        ("press:\n  to: []\n  text: hi\n", ["line 4: the press names no recipient"]),
        (  # an escape sequence would reach the game master's terminal with the report
            'press:\n  to: all\n  text: "ok\\e]0;pwned\\a"\n',
            ["line 5: the press's text holds the control character U+001B at character 3"],
        ),
        (
            'press:\n  to: all\n  text: "a\\0b"\n',
            ["line 5: the press's text holds the control character U+0000 at character 2"],
        ),
        (  # a bidi override makes the text read otherwise than it is
            'press:\n  to: all\n  text: "pay \\u202e01$"\n',
            ["line 5: the press's text holds the control character U+202E at character 5"],
        ),
        (  # a line or paragraph separator: a line break in a text report that no line holds
            'press:\n  to: all\n  text: "a\\u2028From carol, to bob: hi"\n',
            ["line 5: the press's text holds the control character U+2028 at character 2"],
        ),
        (
            'press:\n  to: all\n  text: "a\\u2029b"\n',
            ["line 5: the press's text holds the control character U+2029 at character 2"],
        ),
        (  # a noncharacter: no text at all
            'press:\n  to: all\n  text: "a\\ufffeb"\n',
            ["line 5: the press's text holds the control character U+FFFE at character 2"],
        ),
        ("press:\n  to: all\n  text: '  '\n", ["line 5: the press has no text"]),
        (
            "press:\n  to: all\n  text: " + "x" * 8001 + "\n",
            ["line 5: the press's text has 8001 characters; at most 8000 are taken"],
        ),
        (
            "absence:\n  from: 2099-02-01\n  to: 2099-01-01\n",
            ["line 5: the absence ends (2099-01-01) before it begins (2099-02-01)"],
        ),
        ("absence:\n  from: 2001-02-01\n  to: 2001-02-02\n", ["line 5: the absence ended on"]),
        ("absence:\n  from: 2099-02-01\n", ["line 3: nothing is given for 'absence.to'"]),
        ("vote: resign\n", ["line 3: "]),
        (
            "vote: draw\nabsence:\n  from: 2099-02-01\n  to: 2099-02-02\n",
            ["line 1: a notice holds exactly one of press, absence, vote and share"],
        ),
        ("turn: 1\nvote: draw\n", ["line 3: unknown key 'turn'"]),
        (
            "press:\n  to: bob\n  text: hi\n",
            ["line 4: to: 'bob' names nobody: write to: all for everyone, or the recipients"],
        ),
        (
            "press:\n  to: [all]\n  text: hi\n",
            ["line 4: to write to everyone, write to: all, without brackets"],
        ),
        (
            "press:\n  to: [Bob]\n  text: hi\n",
            ["line 4: there is no player 'Bob': names match exactly; did you mean bob?"],
        ),
        (
            "absence:\n  from: '2099-02-01'\n  to: 2099-02-02T10:00\n",
            [
                "line 4: 'absence.from' is '2099-02-01', which is text: write the day as an ISO",
                "line 5: 'absence.to' is '2099-02-02T10:00', which is text",
            ],
        ),
    ],
)
def test_a_notice_is_read_as_strictly_as_an_order(
    table: Table, body: str, expected: list[str]
) -> None:
    path = table.notice("alice", body, "notice.yaml")
    before = tree_hashes(table.gamedir)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 3, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    lines[0] = lines[0].removeprefix(f"{path}: refused: ")
    assert len(lines) == len(expected), lines
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(start), (line, start)
    assert tree_hashes(table.gamedir) == before


def test_signature_replay_wrong_game_and_other_players(table: Table) -> None:
    unsigned = table.write("unsigned.yaml", "id: cairo-2026\nplayer: alice\nvote: draw\n")
    forged = table.notice("alice", "vote: draw\n", "forged.yaml", signer="bob")
    other = table.notice("alice", "vote: concede\n".replace("cairo", "x"), "o.yaml")
    other.write_text(other.read_text().replace("cairo-2026", "rome-2027"))
    cases = {
        unsigned: "refused: no signature",
        forged: "signed with bob's key",
    }
    for path, said in cases.items():
        result = run("submit", table.gamedir, path)
        assert result.exit_code == 3 and said in result.output, result.output
    vote = table.notice("alice", "vote: draw\n", "vote.yaml")
    assert run("submit", table.gamedir, vote).exit_code == 0
    again = run("submit", table.gamedir, vote)
    assert again.exit_code == 3
    assert "replay: these exact signed bytes were accepted before (turn 1)" in again.output


def test_press_follows_the_game_option(tmp_path: Path) -> None:
    for option, to, said in (
        ("none", "all", "game cairo-2026 takes no press (its option press is none)"),
        ("public", "[bob]", "game cairo-2026 takes only press to everyone"),
    ):
        table = Table(tmp_path / option, players=3, press=option)
        path = table.notice("alice", f"press:\n  to: {to}\n  text: hi\n", "p.yaml")
        result = run("press", table.gamedir, path)
        assert result.exit_code == 3 and said in result.output, result.output
    table = Table(tmp_path / "default", players=3)
    assert table.view("alice")  # a game made without the option takes no press
    result = run("press", table.gamedir, table.notice("alice", PRESS, "p.yaml"))
    assert result.exit_code == 3 and "takes no press" in result.output


def test_a_bad_press_option_is_refused_by_new(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="option 'press' must be"):
        Table(tmp_path, players=3, press="loud")


def test_a_resigned_player_sends_no_notice_and_a_finished_game_takes_none(
    table: Table,
) -> None:
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 0
    result = run("submit", table.gamedir, table.notice("carol", "vote: draw\n", "c.yaml"))
    assert result.exit_code == 3 and "carol has resigned" in result.output


def test_verify_checks_every_notice(table: Table) -> None:
    paths = [
        table.notice("alice", PRESS, "press.yaml"),
        table.notice("bob", "vote: draw\n", "vote.yaml"),
    ]
    for path in paths:  # a vote travels alone (V2)
        assert run("submit", table.gamedir, path).exit_code == 0
    archive = table.root / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 0, result.output
    assert "notices (press, absences, votes): 2, each signed" in result.output
    # a notice whose signature is another's is found
    data = json.loads(archive.read_text())
    for item in data["files"]:
        if item["path"] == "notices/vote/0001.yaml.sig":
            item["text"] = (paths[0].parent / "press.yaml.sig").read_text()
    archive.write_text(json.dumps(data))
    result = run("verify", archive)
    assert result.exit_code == 3
    assert "notices/vote/0001.yaml.sig" in result.output


@pytest.mark.seconds
def test_a_public_archive_never_holds_press(table: Table) -> None:
    assert run("submit", table.gamedir, table.notice("alice", PRESS, "press.yaml")).exit_code == 0
    while not table.status()["over"]:
        table.play_turn()
    archive = table.root / "public.archive"
    assert run("archive", table.gamedir, "--public", "-o", archive).exit_code == 0
    paths = [item["path"] for item in json.loads(archive.read_text())["files"]]
    assert not [p for p in paths if p.startswith("notices/press/")]
    assert "Shall we share" not in archive.read_text()
    result = run("verify", archive)
    assert result.exit_code == 0, result.output
    late = run("submit", table.gamedir, table.notice("bob", "vote: draw\n", "late.yaml"))
    assert late.exit_code == 4 and "is over" in late.output


def test_a_notice_by_mail_gets_its_own_receipt(table: Table) -> None:
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    path = table.notice("bob", "vote: draw\n", "v.yaml")
    raw = notice_mail(path, "bob@example.org", "<vote1@mail>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert result.output == "<vote1@mail> cairo-2026 bob - accepted\n"
    assert journal(table)[-1]["type"] == "mail"
    assert journal(table)[-1]["notices"][0]["kind"] == "vote"
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    mails = [parser.parsebytes(p.read_bytes()) for p in (table.gamedir / "outbox").glob("*.eml")]
    [receipt] = [m for m in mails if m["In-Reply-To"] == "<vote1@mail>"]
    assert receipt["Subject"] == "[cairo-2026] vote accepted"
    text = receipt.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "Your vote v.yaml for game cairo-2026 was accepted." in text
    assert "vote: draw" in text


@pytest.mark.parametrize("damage", ["garbage: [\n", None])
def test_a_notice_file_changed_or_gone_is_named_not_a_crash(
    table: Table, damage: str | None
) -> None:
    """A notice file the journal names, changed or deleted behind its back: every command that
    reads it names the file and sends the game master to doctor (exit 4), not exit 1."""
    for name, body in (("v.yaml", "vote: draw\n"), ("p.yaml", PRESS)):
        assert run("submit", table.gamedir, table.notice("alice", body, name)).exit_code == 0
    for kind in ("vote", "press"):
        path = table.gamedir / "notices" / kind / "0001.yaml"
        if damage is None:
            path.unlink()
        else:
            path.write_text(damage)
    for args in (["status"], ["report", "--player", "bob"], ["log", "--json"]):
        result = run(args[0], table.gamedir, *args[1:])
        assert result.exit_code == 4, (args, result.output)
        assert (
            "notices/vote/0001.yaml" in result.output or "notices/press/0001.yaml" in result.output
        )
        assert "adjudicator doctor" in result.output
    assert "notices/vote/0001.yaml" in run("doctor", table.gamedir).output


def test_press_to_a_resigned_player_is_refused_for_it_would_reach_nobody(table: Table) -> None:
    assert run("resign", table.gamedir, "--player", "carol").exit_code == 0
    path = table.notice("alice", "press:\n  to: [bob, carol]\n  text: hi\n", "p.yaml")
    result = run("press", table.gamedir, path)
    assert result.exit_code == 3
    assert result.output == (
        f"{path}: refused: line 4: carol has resigned: press to them would reach nobody\n"
    )


def test_an_order_file_given_to_press_is_told_to_go_to_submit(table: Table) -> None:
    order = table.signed("alice", table.legal("alice"), "order.yaml")
    result = run("press", table.gamedir, order)
    assert result.exit_code == 3
    assert result.output == (
        f"{order}: refused: this file holds no press:, absence:, vote: or share: at the top: this "
        "command takes only press: notices (an order file goes to adjudicator submit)\n"
    )


def test_the_record_keeps_the_absences_honoured(tmp_path: Path) -> None:
    import jsonschema

    table = Table(tmp_path, players=3, absence="extend", absence_days=3)
    away = table.notice("bob", "absence:\n  from: 2099-01-01\n  to: 2099-01-09\n", "away.yaml")
    assert run("absence", table.gamedir, away).exit_code == 0
    data = json.loads(run("log", table.gamedir, "--json").output)
    assert data["absences"] == [{"player": "bob", "from": "2099-01-01", "to": "2099-01-03"}]
    schema = json.loads(
        (Path(__file__).parent.parent / "docs/schemas/sultan-record.schema.json").read_text()
    )
    assert [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(data)] == []
    assert "\nabsences: bob 2099-01-01 to 2099-01-03\n" in run("log", table.gamedir).output


def test_a_refused_notice_by_mail_is_told_why_and_what_to_do(table: Table) -> None:
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    path = table.notice("bob", "vote: draw\n", "v.yaml")
    assert run("submit", table.gamedir, path).exit_code == 0
    raw = notice_mail(path, "bob@example.org", "<again@mail>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0 and "refused: replay" in result.output, result.output
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    mails = [parser.parsebytes(p.read_bytes()) for p in (table.gamedir / "outbox").glob("*.eml")]
    [receipt] = [m for m in mails if m["In-Reply-To"] == "<again@mail>"]
    assert receipt["Subject"] == "[cairo-2026] notice refused"
    text = receipt.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "- replay: these exact signed bytes were accepted before (turn 1)" in text
    assert "This file changed nothing in the game; the reasons above say what to do" in text


@pytest.mark.parametrize("change", ["deleted", "no YAML", "another kind", "the same kind, changed"])
def test_a_notice_file_changed_by_hand_is_named_not_a_crash(table: Table, change: str) -> None:
    """The notice the journal names is read as its player signed it; changed by hand, `status`
    names the file and sends the game master to doctor (exit 4). A file changed into the same
    kind of notice with its fields missing was read as if whole: a crash (KeyError)."""
    away = table.notice("bob", "absence:\n  from: 2099-01-01\n  to: 2099-01-01\n", "away.yaml")
    assert run("absence", table.gamedir, away).exit_code == 0
    stored = table.gamedir / "notices" / "absence" / "0001.yaml"
    if change == "deleted":
        stored.unlink()
    else:
        changed = {"no YAML": "absence: [\n", "another kind": "player: bob\nvote: draw\n"}
        stored.write_text(changed.get(change, "absence: changed\n"))
    said = (
        f"Error: {table.gamedir}: the journal names notices/absence/0001.yaml, which is not "
        "there (the folder was changed): run `adjudicator doctor`; nothing was changed\n"
        if change == "deleted"
        else f"Error: {table.gamedir}: notices/absence/0001.yaml no longer holds what the "
        "journal named (it was changed since): run `adjudicator doctor`; nothing was changed\n"
    )
    result = run("status", table.gamedir)
    assert result.exit_code == 4, result.output
    assert result.output == said
    if change != "deleted":
        return
    journal = (table.gamedir / "log.jsonl").read_bytes()
    result = run("adjudicate", table.gamedir, "--default-missing")  # a step: it was exit 1
    assert (result.exit_code, result.output) == (
        4,
        f"Error: {table.gamedir}: the journal names notices/absence/0001.yaml, which is not "
        "there (the folder was changed): run `adjudicator doctor`; nothing was changed\n",
    )
    assert (table.gamedir / "log.jsonl").read_bytes() == journal


def test_a_named_file_moved_by_hand_stops_every_step_until_doctor(table: Table) -> None:
    """A step cannot tell a file moved by hand (before it began) from one it moved itself:
    like a removed one, it is named, the game master sent to doctor, and nothing changes."""
    away = table.notice("bob", "absence:\n  from: 2099-01-01\n  to: 2099-01-01\n", "away.yaml")
    assert run("absence", table.gamedir, away).exit_code == 0
    stored = table.gamedir / "notices" / "absence" / "0001.yaml"
    kept = table.gamedir / "notices" / "kept" / "0001.yaml"
    kept.parent.mkdir()
    stored.rename(kept)
    journal = (table.gamedir / "log.jsonl").read_bytes()
    result = run("submit", table.gamedir, table.notice("alice", "vote: draw\n", "v.yaml"))
    assert (result.exit_code, result.output) == (
        4,
        f"Error: {table.gamedir}: the journal names notices/absence/0001.yaml, which is not "
        "there (the folder was changed): run `adjudicator doctor`; nothing was changed\n",
    )
    assert (table.gamedir / "log.jsonl").read_bytes() == journal


def test_a_pasted_order_is_named_so_in_its_receipt(table: Table) -> None:
    """A receipt named a pasted order 'message body' ("Your order message body for game ...")."""
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    player = next(iter(table.status()["owed"]))
    path = table.signed(player, table.legal(player), name="pasted.yaml")
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "Re: my order"
    message["Message-ID"] = "<pasted@mail>"
    message.set_content(path.read_text() + Path(f"{path}.sig").read_text())
    raw = message.as_bytes(policy=email.policy.SMTP)
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.output.endswith("accepted\n"), result.output
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    mails = [parser.parsebytes(p.read_bytes()) for p in (table.gamedir / "outbox").glob("*.eml")]
    [receipt] = [m for m in mails if m["In-Reply-To"] == "<pasted@mail>"]
    text = " ".join(receipt.get_body(("plain",)).get_content().split())  # type: ignore[union-attr]
    assert "Your order (pasted in your message) for game cairo-2026, turn 1, was accepted." in text


INDENTED = (
    "    id: cairo-2026\n    player: carol\n    vote: draw            # draw, concede, or none\n"
)


def test_an_indented_notice_is_refused_as_indented_not_as_an_order(table: Table) -> None:
    """A notice copied with the indentation of an example (docs/notices.md) was judged as an
    order: its refusal named 'turn' and an unknown key 'vote'. The refusal now says what
    happened, by mail and by check, and takes nothing."""
    config = table.root / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    path = table.write("vote.yaml", INDENTED)
    ssh_sign(table.keys["carol"], path)  # signed as it is, indentation and all
    said = (
        "the lines of this file are indented, so it was read as an order, not as a notice: "
        "write the notice's keys (id, player, vote) at the start of their lines, with nothing "
        "before them, and sign it again"
    )
    raw = notice_mail(path, "carol@example.org", "<indented@mail>")
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert said in result.output and "'turn'" not in result.output, result.output
    assert "unknown key" not in result.output
    assert not list(table.gamedir.glob("notices/*/*.yaml")), "nothing taken"
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    parser = BytesParser(policy=email.policy.default)
    mails = [parser.parsebytes(p.read_bytes()) for p in (table.gamedir / "outbox").glob("*.eml")]
    [receipt] = [m for m in mails if m["In-Reply-To"] == "<indented@mail>"]
    text = receipt.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert said in " ".join(text.split()), text
    form = table.write("form.yaml", run("form", table.gamedir, "--player", "carol").output)
    checked = run("check", path, "--form", form)
    assert checked.exit_code == 3
    assert checked.output.splitlines() == [f"{path}: refused: line 1: {said}"]
