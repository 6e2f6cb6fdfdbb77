"""Draw votes and concessions (adjudicator/rules/votes.py, docs/rulings.md V1-V6):
they take effect at the next adjudication, a draw agreed makes one due at once, the result, the
record and the final reports say how the game ended, and verify replays it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adjudicator.present import rendered
from adjudicator.present.html import report_page
from adjudicator.rules import votes
from adjudicator.rules.lang import LANGUAGES
from tests.helpers import Table, run
from tests.test_verify import rechain

SCHEMAS = Path(__file__).parent.parent / "docs" / "schemas"


def vote(table: Table, player: str, value: str, name: str | None = None) -> None:
    """``player`` votes ``value``; ``name``, the file's, also goes into a comment, so that the
    same vote sent again is other bytes (the same signed bytes are refused as a replay)."""
    name = name or f"{player}-{value}.yaml"
    path = table.notice(player, f"vote: {value}  # {name}\n", name)
    result = run("submit", table.gamedir, path)
    assert result.exit_code == 0, result.output


def send_orders(table: Table, players: list[str]) -> None:
    turn = table.status()["turn"]
    paths = [table.signed(p, table.legal(p), f"t{turn}-{p}.yaml") for p in players]
    result = run("submit", table.gamedir, *paths)
    assert result.exit_code == 0, result.output


def record(table: Table) -> dict[str, Any]:
    result = run("log", table.gamedir, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def verified(table: Table, *flags: str) -> str:
    out = table.root / f"archive{'-'.join(flags)}.json"
    assert run("archive", table.gamedir, *flags, "-o", out).exit_code == 0
    result = run("verify", out)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_tally_is_pure_and_a_concession_is_final() -> None:
    counted = votes.tally(
        [("a", "draw"), ("b", "draw"), ("b", "none"), ("c", "concede"), ("c", "draw")]
    )
    assert counted.draw == {"a"} and counted.conceded == ["c"]
    assert votes.ending(counted, ["a", "b", "c"], [], 4) is None
    counted = votes.tally([("a", "draw"), ("b", "draw"), ("c", "concede")])
    assert votes.ending(counted, ["a", "b", "c"], [], 4) == {
        "by": "draw",
        "turn": 4,
        "players": ["a", "b"],
        "conceded": ["c"],
    }
    counted = votes.tally([("a", "draw")])
    assert votes.ending(counted, ["a", "b"], ["b"], 2)["players"] == ["a"]  # type: ignore[index]
    assert votes.ending(votes.tally([]), ["a", "b"], ["a", "b"], 2) is None
    counted = votes.tally([("b", "concede"), ("a", "concede")])
    assert votes.ending(counted, ["a", "b"], [], 9) == {
        "by": "concession",
        "turn": 9,
        "winner": None,
        "conceded": ["a", "b"],
    }


def test_a_draw_agreed_ends_the_game_at_once_without_playing_the_turn(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    turn = table.status()["turn"]
    vote(table, "alice", "draw")
    vote(table, "bob", "draw")
    vote(table, "bob", "none", "bob-withdraws.yaml")
    vote(table, "carol", "draw")
    assert table.status()["agreed"] is False, "bob withdrew his vote"
    vote(table, "bob", "draw", "bob-again.yaml")
    status = table.status()
    assert status["agreed"] is True and status["over"] is False
    result = run("status", table.gamedir)
    assert "the players' votes end the game at the next adjudication (due now)" in result.output
    result = run("adjudicate", table.gamedir)  # no order is in: the draw needs none
    assert result.exit_code == 0, result.output
    log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    assert log[-1]["why"] == "agreed", "the votes ended it, whoever ran adjudicate"
    assert result.output.splitlines()[-1] == (
        "the game is over: a draw, agreed by alice, bob, carol"
    )
    status = table.status()
    assert status["over"] and status["owed"] == {} and status["turn"] == turn + 1
    ending = {"by": "draw", "turn": turn, "players": ["alice", "bob", "carol"], "conceded": []}
    assert status["ended"] == ending
    resolution = json.loads(
        (table.gamedir / "turns" / f"{turn:04d}" / "resolution.json").read_text()
    )
    assert resolution["orders"] == {} and resolution["events"] == [
        {"type": "ended_by_votes", **ending}
    ]
    data = record(table)
    assert data["over"] and data["ended"] == ending and "seed" in data
    for reader in ("--gm", "--public", "--player"):
        args = [reader, "alice"] if reader == "--player" else [reader]
        text = run("report", table.gamedir, *args).output
        assert text.startswith(
            f"THE GAME IS OVER: a draw, agreed by alice, bob, carol at turn {turn}; "
            "no order of that turn was played.\n"
        ), text
        assert "YOUR ORDER" not in text and "Seed: " in text
        page = run("report", table.gamedir, *args, "--format", "html").output
        assert "THE GAME IS OVER: a draw, agreed by alice, bob, carol" in page
    for lang in LANGUAGES:  # every language says it (test_words: each has its words)
        text = rendered.report(table.gamedir, "public", None, None, lang=lang, cache=False)
        assert "alice, bob" in text.splitlines()[0] and str(turn) in text.splitlines()[0]
        assert ("THE GAME IS OVER" in text) == (lang == "en")
    late = run("submit", table.gamedir, table.notice("alice", "vote: none\n", "late.yaml"))
    assert late.exit_code == 4
    assert run("form", table.gamedir, "--player", "alice").exit_code == 4
    assert "replay: 2 adjudications played again" in verified(table)
    assert "everything this public archive holds agrees" in verified(table, "--public")


def test_a_concession_defaults_the_seat_and_the_last_player_wins(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    table.play_turn()
    vote(table, "carol", "concede")
    status = table.status()
    assert status["conceded"] == ["carol"] and "carol" not in status["waiting_for"]
    order = table.signed("carol", table.legal("carol"), "carol-late.yaml")
    refused = run("submit", table.gamedir, order)
    assert refused.exit_code == 3
    assert "carol has conceded game cairo-2026; the seat plays default orders" in refused.output
    again = run("submit", table.gamedir, table.notice("carol", "vote: draw\n", "c2.yaml"))
    assert again.exit_code == 3 and "carol has conceded" in again.output
    send_orders(table, [p for p in table.status()["owed"] if p != "carol"])
    result = run("adjudicate", table.gamedir)  # carol is not waited for
    assert result.exit_code == 0, result.output
    assert "(default orders for carol)" in result.output
    report = run("report", table.gamedir, "--player", "bob").output
    assert report.startswith("Conceded: carol (each seat plays the default orders).\n")
    assert record(table)["conceded"] == ["carol"]
    vote(table, "bob", "concede")
    turn = table.status()["turn"]
    assert table.status()["agreed"] is True
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        "the game is over: every other player conceded, alice wins"
    )
    ended = table.status()["ended"]
    assert ended == {
        "by": "concession",
        "turn": turn,
        "winner": "alice",
        "conceded": ["bob", "carol"],
    }
    text = run("report", table.gamedir, "--player", "alice").output
    assert text.startswith(
        f"THE GAME IS OVER: every other player conceded at turn {turn}; alice wins.\n"
        "Conceded: bob, carol.\n"
    )
    assert "replay: 3 adjudications played again" in verified(table)


def test_a_game_keeps_one_player_playing(tmp_path: Path) -> None:
    """E8: the last player still playing cannot resign; a player who conceded is not playing
    either. Nor can that player concede while the others resigned (that would not end the
    game: resigned seats never concede), or the game would play itself out by default orders
    with nobody in it: they may vote for a draw, which they alone then agree."""
    table = Table(tmp_path, players=3)
    vote(table, "alice", "concede")
    assert run("resign", table.gamedir, "--player", "bob").exit_code == 0
    last = run("resign", table.gamedir, "--player", "carol")
    assert last.exit_code == 4 and "carol is the last player still playing" in last.output
    other = Table(tmp_path / "other", players=3)
    for name in ("alice", "bob"):
        assert run("resign", other.gamedir, "--player", name).exit_code == 0
    path = other.notice("carol", "vote: concede\n", "c.yaml")
    refused = run("submit", other.gamedir, path)
    assert refused.exit_code == 3, refused.output
    assert "carol is the last player still playing game cairo-2026" in refused.output
    vote(other, "carol", "draw")
    assert other.status()["agreed"] is True


def test_tick_adjudicates_an_agreed_draw_at_once(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, schedule={"deadline": "48h"})
    config = tmp_path / "no-mail.toml"
    config.write_text("")
    for player in ("alice", "bob"):
        vote(table, player, "draw")
    result = run("tick", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    stamped = [line.split(" ", 1) for line in result.output.splitlines()]
    assert [text for _, text in stamped][:2] == [
        "cairo-2026: adjudicated turn 1",
        "cairo-2026: the game is over: a draw, agreed by alice, bob",
    ]
    for when, _ in stamped:  # a log says when: each line begins with the time, in UTC
        assert datetime.fromisoformat(when).utcoffset() == timedelta(0), when
    status = table.status()
    assert status["over"] and status["ended"]["by"] == "draw"
    log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    [line] = [e for e in log if e["type"] == "adjudicated"]
    assert line["why"] == "agreed" and line["deadline"] is None


def test_under_commit_reveal_a_draw_ends_the_commit_phase(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2, sealing="commit-reveal")
    assert table.status()["phase"] == "commit"
    vote(table, "alice", "draw")
    vote(table, "bob", "draw")
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert table.status()["ended"]["by"] == "draw"
    assert "replay: 1 adjudication played again" in verified(table)


def test_a_rollback_undoes_the_end_and_the_votes_end_it_again(tmp_path: Path) -> None:
    table = Table(tmp_path, players=2)
    vote(table, "alice", "draw")
    vote(table, "bob", "draw")
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert run("rollback", table.gamedir).exit_code == 0
    status = table.status()
    assert not status["over"] and status["ended"] is None and status["agreed"] is True
    assert run("adjudicate", table.gamedir).exit_code == 0
    assert table.status()["over"]
    verified(table)


def test_a_draw_vote_is_secret_until_the_game_ends(tmp_path: Path) -> None:
    """Two games that differ only in bob's draw vote: alice's reports, pages, views and forms
    are the same in every language."""
    worlds = []
    for world in ("voted", "not"):
        table = Table(tmp_path / world, players=3)
        if world == "voted":
            vote(table, "bob", "draw")
        table.play_turn()
        worlds.append(table)
    for table in worlds:
        assert table.status()["agreed"] is False

    def seen(table: Table) -> list[str]:
        said = [run("view", table.gamedir, "--player", "alice", "--json").output]
        for lang in LANGUAGES:
            said.append(rendered.report(table.gamedir, "alice", None, None, lang=lang, cache=False))
            said.append(report_page(table.gamedir, "alice", lang=lang).html)
        said.append(run("form", table.gamedir, "--player", "alice").output)
        assert all(said) and "alice" in said[1]
        return [_without_heads(text) for text in said]

    assert seen(worlds[0]) == seen(worlds[1])


def _without_heads(text: str) -> str:
    """The text without chain heads (the journals differ by the vote's line)."""
    import re

    return re.sub(r"#?[0-9a-f]{32,64}", "HEAD", text)


@pytest.mark.parametrize("forged", [None, {"by": "draw", "turn": 1, "players": ["alice"]}])
def test_verify_finds_an_ending_the_votes_do_not_make(
    tmp_path: Path, forged: dict[str, Any] | None
) -> None:
    """A game master who ends a game by a draw nobody agreed to, or who plays on past one
    agreed, and chains the journal again, is caught by the replay."""
    table = Table(tmp_path, players=2)
    if forged is None:  # agreed, but the game master played the turn instead
        vote(table, "alice", "draw")
        vote(table, "bob", "draw")
        send_orders(table, list(table.status()["owed"]))
        log = (table.gamedir / "log.jsonl").read_text().splitlines()
        (table.gamedir / "log.jsonl").write_text("\n".join(log) + "\n")
        data_out = table.root / "real.json"
        vote_lines = len(log)
    else:
        send_orders(table, list(table.status()["owed"]))
        vote_lines = 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    out = table.root / "archive.json"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    data = json.loads(out.read_text())
    lines = data["journal"]
    number = next(i for i, text in enumerate(lines) if json.loads(text)["type"] == "adjudicated")
    entry = json.loads(lines[number])
    if forged is None:
        assert entry.get("ended") is not None and vote_lines
        del entry["ended"]
        del data_out
    else:
        entry["ended"] = {**forged, "conceded": []}
    lines[number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    data["journal"] = rechain(lines, number)
    out.write_text(json.dumps(data))
    result = run("verify", out)
    assert result.exit_code == 3
    assert "the draw votes and concessions before it end the game otherwise" in result.output


@pytest.mark.parametrize("game", ["sultan", "sultans_court"])
def test_a_record_ended_by_votes_fits_its_schema(tmp_path: Path, game: str) -> None:
    import jsonschema

    players = 4 if game == "sultans_court" else 3
    table = Table(tmp_path, players=players, game=game)
    for player in table.names[1:-1]:
        vote(table, player, "concede")
    running = record(table)
    vote(table, table.names[-1], "concede")
    assert run("adjudicate", table.gamedir).exit_code == 0
    finished = record(table)
    assert finished["ended"]["winner"] == "alice" and finished.get("result") is None
    schema = json.loads((SCHEMAS / f"{game}-record.schema.json").read_text())
    for data in (running, finished):
        errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(data)]
        assert errors == []
    text = run("log", table.gamedir).output
    assert text.endswith("\nresult: alice won, every other player having conceded at turn 1\n"), (
        text
    )


def test_verify_finds_a_withdrawn_vote_sent_again(tmp_path: Path) -> None:
    """bob votes for a draw, withdraws it, and votes again; a game master who puts the signed
    bytes of bob's first vote where his last one was (its files and digests rewritten, the
    journal chained again) has every signature verify, but the same signed vote counted twice
    is a replay the engine refuses, and so does verify: else a vote once withdrawn could be
    counted again after the withdrawal, and end a game by a draw nobody agreed to."""
    from adjudicator.rules.digests import Digester

    table = Table(tmp_path, players=2)
    vote(table, "alice", "draw")
    vote(table, "bob", "draw")
    vote(table, "bob", "none", "bob-withdraws.yaml")
    vote(table, "bob", "draw", "bob-again.yaml")
    assert run("adjudicate", table.gamedir).exit_code == 0
    out = table.root / "archive.json"
    assert run("archive", table.gamedir, "-o", out).exit_code == 0
    data = json.loads(out.read_text())
    digester = Digester.of(json.loads((table.gamedir / "game.json").read_text()))
    files = {f["path"]: f for f in data["files"]}
    old, new = "notices/vote/0002.yaml", "notices/vote/0004.yaml"
    for suffix in ("", ".sig"):
        files[new + suffix].clear()
        files[new + suffix].update({**files[old + suffix], "path": new + suffix})
    raw = files[new]["text"].encode()
    lines = data["journal"]
    number = next(i for i, text in enumerate(lines) if new in json.loads(text)["files"])
    entry = json.loads(lines[number])
    entry["files"][new] = digester.data(new, raw)
    entry["files"][new + ".sig"] = digester.data(new + ".sig", files[new + ".sig"]["text"].encode())
    entry["notices"][0]["digest"] = digester.hidden(raw)
    lines[number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    data["journal"] = rechain(lines, number)
    out.write_text(json.dumps(data))
    result = run("verify", out)
    assert result.exit_code == 3, result.output
    assert (
        "refuses it as the game stood then: replay: these exact signed bytes were accepted "
        "before (turn 1)"
    ) in result.output


def test_a_vote_travels_alone_so_the_public_journal_never_names_the_voter(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, players=3, press="private")
    sender = next(iter(table.status()["owed"]))
    order = table.signed(sender, table.legal(sender), "order.yaml")
    ballot = table.notice(sender, "vote: draw\n", "ballot.yaml")
    result = run("submit", table.gamedir, order, ballot)
    assert result.exit_code == 3
    assert result.output.splitlines()[1] == (
        f"{ballot}: refused: a vote travels alone, never with an order, press or absence (in "
        "one message or submit), so that nobody can tell who voted: send it on its own"
    )
    talk = table.notice("bob", "press:\n  to: all\n  text: hi\n", "talk.yaml")
    bob = table.notice("bob", "vote: draw  # bob\n", "bob.yaml")
    result = run("submit", table.gamedir, bob, talk)
    assert result.exit_code == 3 and f"{talk}: refused: a vote travels alone" in result.output
    carol = table.notice("carol", "vote: draw  # carol\n", "carol.yaml")
    assert run("submit", table.gamedir, ballot, carol).exit_code == 0, "votes go together"
    log = [json.loads(line) for line in (table.gamedir / "log.jsonl").read_text().splitlines()]
    for entry in log:
        if any(n["kind"] == "vote" for n in entry.get("notices") or []):
            assert entry["orders"] == [] and {n["kind"] for n in entry["notices"]} == {"vote"}


def _mail_ballot(table: Table, voter: str, message_id: str, *paths: Path) -> None:
    """``voter`` mails the signed files ``paths`` in one message (Message-ID as their mail
    program wrote it); ``ingest`` takes it."""
    import email.policy
    from email.message import EmailMessage

    from tests.test_press import config

    message = EmailMessage()
    message["From"] = f"{voter}@example.org"
    message["To"] = "gm-bot@example.org"
    message["Subject"] = "vote"
    message["Message-ID"] = message_id
    message.set_content("here\n")
    for path in paths:
        for name, data in ((path.name, path.read_bytes()), (f"{path.name}.sig", None)):
            raw = data if data is not None else Path(f"{path}.sig").read_bytes()
            message.add_attachment(
                raw, maintype="application", subtype="octet-stream", filename=name
            )
    raw_mail = message.as_bytes(policy=email.policy.SMTP)
    result = run("ingest", table.gamedir, "--config", config(table), input=raw_mail)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output


def _voted_by_mail(root: Path, voter: str, message_id: str) -> Table:
    """A game of three in which ``voter`` mails a draw vote with an order (refused: a vote
    travels alone), then the mail is sent."""
    from tests.test_press import send

    root.mkdir()
    table = Table(root, players=3)
    send(table)
    ballot = table.notice(voter, "vote: draw\n", "ballot.yaml")
    order = table.signed(voter, {"bid": {"cushion": 1, "card": 1}}, "order.yaml")
    _mail_ballot(table, voter, message_id, ballot, order)
    send(table)
    return table


@pytest.mark.seconds
def test_who_voted_by_mail_does_not_show_in_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob mails a draw vote with an order; in the other world carol does. The order is refused
    (a vote travels alone) and both get a receipt: neither receipt's file, which the vote's
    journal line names, may name the voter. The journal and both archives are the same in both
    worlds, but for what the full archive must hold (the signed vote, the mail)."""
    from tests.test_press import _readings, archive_seen, journal_seen, same_keys

    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-27T12:00:00+00:00")
    same_keys(monkeypatch, tmp_path / "keys")
    one = _voted_by_mail(tmp_path / "one", "bob", "<CAF=Yk2+Lq0w@mail.gmail.com>")
    two = _voted_by_mail(tmp_path / "two", "carol", "<20261127.4711@mx.example.net>")
    [line] = [e for e in journal_seen(one) if e.get("notices")]
    assert [n["kind"] for n in line["notices"]] == ["vote"]
    assert "bob" not in json.dumps(line), line
    assert _readings(one, "alice") == _readings(two, "alice")
    assert journal_seen(one) == journal_seen(two)
    assert archive_seen(one, True) == archive_seen(two, True)
    must_differ = ("notices/vote/", "mail/", "outbox/")
    full = [archive_seen(t, False, *must_differ) for t in (one, two)]
    assert full[0] == full[1]


def test_a_votes_receipts_are_never_held_in_the_voters_folder(tmp_path: Path) -> None:
    """The held answers lie in a folder of their address, whose other files name the player:
    a vote's step holds none of its receipts, even past the hourly limit."""
    from tests.test_press import log, send

    table = Table(tmp_path, players=3)
    send(table)
    voter = "bob"
    for number in range(5):  # five answers within the hour: the next ones would be held
        bad = table.signed(voter, {"nonsense": number}, f"bad-{number}.yaml")
        _mail_ballot(table, voter, f"<o{number}@mail.example.net>", bad)
    ballot = table.notice(voter, "vote: draw\n", "ballot.yaml")
    order = table.signed(voter, {"bid": {"cushion": 1, "card": 1}}, "order.yaml")
    _mail_ballot(table, voter, "<v1@mail.example.net>", ballot, order)
    [line] = [e for e in log(table) if e.get("notices")]
    assert voter not in json.dumps(line), line
    assert [p for p in line["files"] if p.startswith("mail/held/")] == []
    assert len([p for p in line["files"] if p.startswith("mail/queue/")]) == 2
