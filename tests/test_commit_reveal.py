"""Orders sealed from the game master too (`sealing: commit-reveal`): each turn
takes signed commitments first and the orders only once every owed commitment is in; a reveal
must match its commitment; a missing commitment or reveal follows the missing-order rule; and
`verify` checks every reveal against its commitment."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from adjudicator.rules import sealing
from adjudicator.rules.digests import Digester
from tests.helpers import Table, run
from tests.ssh import ssh_sign
from tests.test_verify import archive, rechain, save, verify


def sealed_table(root: Path, **more: Any) -> Table:
    return Table(root, players=3, sealing="commit-reveal", **more)


def committed(table: Table, player: str, body: dict[str, Any], name: str) -> tuple[Path, Path]:
    """The order written and run through `adjudicator commit`: (the salted order, its
    commitment)."""
    path = table.write(name, table.order_text(player, body))
    result = run("commit", path, "--key", table.keys[player])
    assert result.exit_code == 0, result.output
    return path, path.with_name(path.name + ".commit")


def submit(table: Table, *paths: Path) -> tuple[int, str]:
    result = run("submit", table.gamedir, *paths)
    return result.exit_code, result.output


def log(table: Table) -> list[dict[str, Any]]:
    text = (table.gamedir / "log.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_a_turn_takes_commitments_first_then_the_orders(tmp_path: Path) -> None:
    table = sealed_table(tmp_path)
    status = table.status()
    assert (status["phase"], status["waiting_for"]) == ("commit", ["carol"])
    shown = run("status", table.gamedir).output.splitlines()
    assert shown[:2] == [
        "cairo-2026 (sultan), turn 1: commitments",
        "  carol: owes a commitment to return (waiting)",
    ]
    view = table.view("carol")
    assert (view["to_do"], view["order"]) == ("commit", "return")
    plain = table.signed("carol", {"return": view["drawn"][0]}, "plain.yaml")
    code, output = submit(table, plain)
    assert code == 3
    assert "turn 1 takes commitments first: run `adjudicator commit`" in output
    order, promise = committed(table, "carol", {"return": view["drawn"][0]}, "carol.yaml")
    assert order.read_text().splitlines()[-1].startswith("salt: ")
    assert promise.read_bytes().startswith(b"id: cairo-2026\nplayer: carol\nturn: 1\ncommit: ")
    code, output = submit(table, promise)
    assert code == 0, output
    status = table.status()
    assert (status["phase"], status["waiting_for"], status["turn"]) == ("reveal", ["carol"], 1)
    assert log(table)[-1]["reveal"] == {"turn": 1, "deadline": None, "without": []}
    assert table.view("carol")["to_do"] == "reveal"
    _, again = committed(table, "carol", {"return": view["drawn"][1]}, "again.yaml")
    code, output = submit(table, again)
    assert code == 3 and "the reveal of turn 1 is open" in output
    code, output = submit(table, order)
    assert code == 0, output
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 0, result.output
    assert table.status()["phase"] == "commit" and table.status()["turn"] == 2


def test_a_game_that_does_not_seal_refuses_commitments_and_salted_orders(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3, start_player="alice")
    order, promise = committed(table, "alice", table.legal("alice"), "alice.yaml")
    for path in (promise, order):
        code, output = submit(table, path)
        assert (code, output) == (
            3,
            f"{path}: refused: game cairo-2026 does not seal orders by commit-reveal: send the "
            "order file itself, without commit or salt\n",
        )
    assert table.status()["received"] == []


def test_a_reveal_that_does_not_match_its_commitment_is_refused(tmp_path: Path) -> None:
    table = sealed_table(tmp_path)
    drawn = table.view("carol")["drawn"]
    order, promise = committed(table, "carol", {"return": drawn[0]}, "carol.yaml")
    assert submit(table, promise)[0] == 0
    changed = order.read_text().replace(f"return: {drawn[0]}", f"return: {drawn[1]}")
    order.write_text(changed)
    order.with_name(order.name + ".sig").unlink()
    ssh_sign(table.keys["carol"], order)  # signed by carol, but not what she committed to
    code, output = submit(table, order)
    assert code == 3
    assert "does not match carol's commitment for turn 1" in output
    unsalted = table.signed("carol", {"return": drawn[0]}, "unsalted.yaml")
    code, output = submit(table, unsalted)
    assert code == 3 and "turn 1 takes commitments first" not in output
    assert "the order has no salt" in output or "reveal of turn 1 is open" in output


def test_missing_commitments_and_reveals_follow_the_missing_order_rule(tmp_path: Path) -> None:
    table = sealed_table(tmp_path)
    drawn = table.view("carol")["drawn"]
    order, promise = committed(table, "carol", {"return": drawn[0]}, "carol.yaml")
    assert submit(table, promise)[0] == 0 and submit(table, order)[0] == 0
    assert run("adjudicate", table.gamedir).exit_code == 0
    reveals = {}
    for player in ("alice", "bob"):
        reveals[player], promise = committed(table, player, table.legal(player), f"{player}.yaml")
        assert submit(table, promise)[0] == 0
    result = run("adjudicate", table.gamedir)
    assert result.exit_code == 4 and "missing from carol" in result.output
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("the reveal of turn 2 is open (default orders for carol)")
    assert table.view("carol")["to_do"] is None
    shown = run("status", table.gamedir).output.splitlines()
    assert shown[0] == "cairo-2026 (sultan), turn 2: the reveal"
    assert shown[1:4] == [
        "  alice: owes bid as committed (waiting)",
        "  bob: owes bid as committed (waiting)",
        "  carol: owes bid as committed (no commitment: default orders)",
    ]
    late, _ = committed(table, "carol", table.legal("carol"), "late.yaml")
    code, output = submit(table, late)
    assert code == 3 and "carol made no commitment for turn 2" in output
    assert table.status()["waiting_for"] == ["alice", "bob"]
    assert submit(table, reveals["alice"])[0] == 0
    assert run("adjudicate", table.gamedir).exit_code == 4
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 0, result.output
    assert "turn 2 adjudicated (default orders for bob, carol)" in result.output
    resolution = json.loads((table.gamedir / "turns/0002/resolution.json").read_text())
    assert resolution["defaulted"] == ["bob", "carol"] and resolution["orders"]["carol"] is None
    assert resolution["forfeited"] == ["bob"]  # committed and did not reveal: the forfeit order


def test_under_nmr_wait_the_reveal_waits_for_every_commitment(tmp_path: Path) -> None:
    table = sealed_table(tmp_path, nmr="wait")
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 4 and "waits for every order" in result.output
    assert table.status()["phase"] == "commit"


def test_the_clock_opens_the_reveal_at_the_commitments_deadline_and_tells_the_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-27T12:00:00+00:00")
    table = sealed_table(tmp_path, schedule={"deadline": "24h"})
    (tmp_path / "no-mail.toml").write_text("")
    for _ in ("the reveal opens", "turn 1 is adjudicated"):  # carol returns no jewel
        assert run("adjudicate", table.gamedir, "--default-missing").exit_code == 0
    assert table.status()["phase"] == "commit" and table.status()["turn"] == 2
    # the turn's reports leave at once (a turn never mailed does not pass its deadline)
    assert run("send", table.gamedir, "--config", tmp_path / "no-mail.toml").exit_code == 0
    for player in ("alice", "bob"):
        _, promise = committed(table, player, table.legal(player), f"{player}.yaml")
        assert submit(table, promise)[0] == 0
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-28T12:00:01+00:00")
    result = run("tick", table.gamedir, "--config", tmp_path / "no-mail.toml")
    assert result.exit_code == 0, result.output
    assert "the reveal of turn 2 is open (default orders for carol)" in result.output
    status = table.status()
    assert status["phase"] == "reveal" and status["deadline"] == "2026-11-29T12:00:01+00:00"
    told = [p.read_text() for p in sorted((table.gamedir / "outbox").glob("*.eml"))]
    reveal_notes = [m for m in told if "The reveal of turn 2 is open" in m]
    assert sorted(m.split("To: ")[1].split("\n")[0] for m in reveal_notes) == [
        "alice@example.org",
        "bob@example.org",
    ]


def test_the_reveal_waits_for_the_mail_that_opens_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reveal's notices stayed queued (the server down) and the clock ran on: at the
    reveal's deadline every player who committed was forfeited, never told to reveal. The
    notices hold the clock as a turn's reports do, and the deadline moves by their wait."""
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-27T12:00:00+00:00")
    table = sealed_table(tmp_path, schedule={"deadline": "24h"})
    outbox = tmp_path / "mail.toml"
    outbox.write_text('[mail]\nfrom = "gm-bot@example.org"\n')
    assert run("send", table.gamedir, "--config", outbox).exit_code == 0
    player = table.status()["waiting_for"][0]
    view = table.view(player)
    _, promise = committed(table, player, {"return": view["drawn"][0]}, "sealed.yaml")
    assert submit(table, promise)[0] == 0
    assert table.status()["phase"] == "reveal"
    down = tmp_path / "down.toml"  # nothing listens on port 9
    down.write_text(
        '[mail]\nfrom = "gm-bot@example.org"\n[smtp]\nhost = "127.0.0.1"\nport = 9\ntls = "none"\n'
    )
    assert run("send", table.gamedir, "--config", down).exit_code == 75
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-11-28T18:00:00+00:00")  # past its deadline
    result = run("tick", table.gamedir, "--config", down)
    assert "adjudicated" not in result.output, result.output
    assert table.status()["phase"] == "reveal" and table.status()["waiting_for_mail"] is True
    result = run("send", table.gamedir, "--config", outbox)  # the server is back
    assert result.exit_code == 0, result.output
    assert table.status()["deadline"] == "2026-11-29T18:00:00+00:00"


def test_the_reveal_is_asked_only_of_the_players_who_committed(tmp_path: Path) -> None:
    """Turn 1 of Sultan is the start player's return alone: their commitment opens the reveal,
    and the mail asking for the sealed order went to every player, though the others owed and
    committed nothing. It goes to the one who committed."""
    table = sealed_table(tmp_path)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "Cairo <gm-bot@example.org>"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    assert table.status()["waiting_for"] == ["carol"]
    view = table.view("carol")
    _, promise = committed(table, "carol", {"return": view["drawn"][0]}, "carol.yaml")
    assert submit(table, promise)[0] == 0
    assert table.status()["phase"] == "reveal"
    result = run("send", table.gamedir, "--config", config)
    assert result.exit_code == 0, result.output
    told = [p.read_text() for p in sorted((table.gamedir / "outbox").glob("*.eml"))]
    asked = [m for m in told if "The reveal of turn 1 is open" in m]
    assert [m.split("To: ")[1].split("\n")[0] for m in asked] == ["carol@example.org"]


def test_commit_refuses_a_file_that_is_no_order_and_salts_afresh_each_time(
    tmp_path: Path,
) -> None:
    table = sealed_table(tmp_path)
    empty = table.write("empty.yaml", "bid: 3\n")
    result = run("commit", empty, "--key", table.keys["alice"])
    assert result.exit_code == 3
    assert "needs its id, player and turn" in result.output
    flow = table.write("flow.yaml", "{id: cairo-2026, player: carol, turn: 1, return: red}\n")
    first = run("commit", flow, "--key", table.keys["carol"])
    assert first.exit_code == 0, first.output
    salt = flow.read_text().splitlines()[-1]
    assert salt.startswith("salt: ") and flow.read_text().startswith("id: cairo-2026\n")
    second = run("commit", flow, "--key", table.keys["carol"])
    assert second.exit_code == 0
    lines = flow.read_text().splitlines()
    assert sum(line.startswith("salt:") for line in lines) == 1 and lines[-1] != salt
    crlf = table.write("crlf.yaml", "")
    crlf.write_bytes(b"id: cairo-2026\r\nplayer: carol\r\nturn: 1\r\nreturn: red\r\n")
    assert run("commit", crlf, "--key", table.keys["carol"]).exit_code == 0
    assert crlf.read_bytes().endswith(b"\r\n") and b"\r\nsalt: " in crlf.read_bytes()


def test_a_sealed_game_verifies_and_a_forged_reveal_is_named(tmp_path: Path) -> None:
    table = sealed_table(tmp_path)
    for _ in range(3):
        status = table.status()
        for player in status["owed"]:
            body = table.legal(player)
            order, promise = committed(table, player, body, f"t{status['turn']}-{player}.yaml")
            assert submit(table, promise)[0] == 0
        for player in status["owed"]:
            assert submit(table, tmp_path / "orders" / f"t{status['turn']}-{player}.yaml")[0] == 0
        assert run("adjudicate", table.gamedir).exit_code == 0
    data = archive(table.gamedir, tmp_path / "full.json")
    code, lines = verify(tmp_path / "full.json")
    assert code == 0, lines
    # The game master swaps a reveal for another order carol signed, names its digest in the
    # journal and chains the journal again: the replay finds it does not match her commitment.
    lines_ = data["journal"]
    number, entry = next(
        (i, json.loads(text))
        for i, text in enumerate(lines_)
        if any(
            o["player"] == "carol" and not o.get("kind")
            for o in json.loads(text).get("orders") or []
        )
        and json.loads(text)["orders"][0]["turn"] == 2
    )
    order = next(o for o in entry["orders"] if o["player"] == "carol")
    rel = f"turns/0002/orders/{order['file']}"
    other = table.write("other.yaml", table.order_text("carol", table.legal("carol"), turn=2))
    other_bytes = sealing.salted(other.read_bytes())
    other.write_bytes(other_bytes)
    sig = ssh_sign(table.keys["carol"], other).read_bytes()
    meta = json.loads((table.gamedir / "game.json").read_text())
    digester = Digester.of(meta)
    forged = json.loads(json.dumps(data))
    for item in forged["files"]:
        if item["path"] in (rel, rel + ".sig"):
            content = other_bytes if item["path"] == rel else sig
            item.pop("text", None)
            item["base64"] = base64.b64encode(content).decode()
    entry["files"][rel] = digester.data(rel, other_bytes)
    entry["files"][rel + ".sig"] = digester.data(rel + ".sig", sig)
    order["digest"] = digester.hidden(other_bytes)
    forged["journal"][number] = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    forged["journal"] = rechain(forged["journal"], number)
    code, lines = verify(save(forged, tmp_path / "forged.json"))
    assert code == 3
    assert lines[0] == (
        f"Error: turn 2: {rel}: the journal says it was taken, but the adjudicator refuses it as "
        "the game stood then: this order does not match carol's commitment for turn 2 (send the "
        "order exactly as `adjudicator commit` salted and signed it)"
    )
    assert hashlib.sha256(other_bytes).hexdigest() != order["digest"]


def test_the_form_of_a_sealed_game_says_how_to_commit_and_reveal(tmp_path: Path) -> None:
    table = sealed_table(tmp_path)
    form = run("form", table.gamedir, "--player", "carol").output
    said = " ".join(line.lstrip("# ") for line in form.splitlines() if line.startswith("#"))
    assert (
        "This game seals orders by commit-reveal. Fill this in, then run `adjudicator commit "
        "cairo-2026-turn1-carol.yaml --key KEY`: send cairo-2026-turn1-carol.yaml.commit now"
    ) in said
    assert all(len(line) <= 72 for line in form.splitlines())
    plain = Table(tmp_path / "plain", players=3)
    assert "commit-reveal" not in run("form", plain.gamedir, "--player", "carol").output


def test_commit_keeps_what_the_player_wrote_and_refuses_an_id_it_could_not_write_back(
    tmp_path: Path,
) -> None:
    table = sealed_table(tmp_path)
    order = table.write("order.yaml", "")
    order.write_text('id: cairo-2026\nplayer: carol\nturn: 1\nreturn: "r\u2028d"\n')
    assert run("commit", order, "--key", table.keys["carol"]).exit_code == 0
    assert 'return: "r\u2028d"\nsalt: ' in order.read_text()
    odd = table.write("odd.yaml", 'id: "g: x\\ncommit: 00"\nplayer: carol\nturn: 1\n')
    result = run("commit", odd, "--key", table.keys["carol"])
    assert result.exit_code == 3 and "id and player must be written as the form" in result.output
    assert not odd.with_name("odd.yaml.commit").exists()


def test_a_seat_that_committed_and_did_not_reveal_plays_the_forfeit_order(tmp_path: Path) -> None:
    """Withholding a reveal after reading the others' is no choice between the committed order
    and the default: the seat plays the game's forfeit order (the lowest card on the cushion of
    the least valuable jewel, not a cushion drawn at random), the next reports and the record
    name it, and verify plays it again."""
    from adjudicator.games.sultan.rules import VALUES

    table = sealed_table(tmp_path, jewel_choice="random")
    reveals = {}
    for player in ("alice", "bob", "carol"):
        reveals[player], promise = committed(table, player, table.legal(player), f"{player}.yaml")
        assert submit(table, promise)[0] == 0
    assert submit(table, reveals["alice"], reveals["carol"])[0] == 0
    bob = table.view("bob")
    result = run("adjudicate", table.gamedir, "--default-missing")
    assert result.exit_code == 0, result.output
    resolution = json.loads((table.gamedir / "turns/0001/resolution.json").read_text())
    assert resolution["forfeited"] == ["bob"] and resolution["defaulted"] == ["bob"]
    offered = bob["offered"]
    cheapest = min(range(1, len(offered) + 1), key=lambda c: (VALUES[offered[c - 1]], c))
    assert resolution["orders"]["bob"] == {"bid": {"cushion": cheapest, "card": min(bob["hand"])}}
    for reader in ("--public", "--gm"):
        report = run("report", table.gamedir, reader).output
        assert "Forfeit: bob committed to an order and did not reveal it" in report
    from adjudicator.present import rendered

    for lang, said in (("de", "Verfall: bob"), ("nl", "Verbeurd: bob"), ("fr", "Forfait : bob")):
        text = rendered.report(table.gamedir, "public", None, None, lang=lang, cache=False)
        assert said in text, lang
    page = run("report", table.gamedir, "--player", "carol", "--format", "html").output
    assert "Forfeit: bob committed" in page
    record = json.loads(run("log", table.gamedir, "--json").output)
    assert record["forfeits"] == [{"turn": 1, "players": ["bob"]}]
    assert "forfeit: turn 1: bob" in run("log", table.gamedir).output
    archive(table.gamedir, tmp_path / "full.json")
    code, lines = verify(tmp_path / "full.json")  # a full archive holds the seed: replayed
    assert code == 0, lines
    assert "  replay: 1 adjudication played again; every state, resolution and view agrees" in lines


def test_the_mails_openssh_lines_commit_and_reveal_without_the_program(tmp_path: Path) -> None:
    """A player with OpenSSH alone: the lines the report mail gives, run as written (the key's
    path aside) on the attached form, make a commitment that ingest takes, and keep the order
    that then reveals it."""
    import email.policy
    import subprocess
    from email.parser import BytesParser

    from tests.helpers import notice_mail

    table = Table(tmp_path, players=3, sealing="commit-reveal")
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    player = next(iter(table.status()["owed"]))
    parser = BytesParser(policy=email.policy.default)
    [mail] = [
        parser.parsebytes(p.read_bytes())
        for p in (table.gamedir / "outbox").glob(f"*report-1-{player}.eml")
    ]
    work = tmp_path / "player"
    work.mkdir()
    for part in mail.iter_attachments():  # type: ignore[attr-defined]
        if str(part.get_filename()).endswith(".yaml"):
            form = work / str(part.get_filename())
            form.write_bytes(part.get_payload(decode=True))
    form.write_text(
        form.read_text().replace("\nreturn:\n", f"\nreturn: {table.legal(player)['return']}\n")
    )
    words = mail.get_body(("plain",)).get_content()  # type: ignore[attr-defined]
    lines = [
        line.strip()
        for line in words.splitlines()
        if line.startswith("    ") and line.split()[0] in ("echo", "ssh-keygen", "{")
    ]
    assert len(lines) == 4, words
    for line in lines:
        line = line.replace("~/.ssh/id_ed25519", str(table.keys[player]))
        done = subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stderr)
    commitment = Path(f"{form}.commit")
    sent = notice_mail(commitment, f"{player}@example.org", "<commit@mail>", "commitment")
    result = run("ingest", table.gamedir, "--config", config, input=sent)  # type: ignore[arg-type]
    assert result.output.endswith("accepted\n"), result.output
    assert table.status()["phase"] == "reveal"
    # the receipt of a commitment says to keep the order (it read as a receipt of the order)
    assert run("send", table.gamedir, "--config", config).exit_code == 0
    receipts = [
        parser.parsebytes(p.read_bytes())
        for p in (table.gamedir / "outbox").glob(f"*receipt-{player}.eml")
    ]
    [receipt] = [m for m in receipts if m["In-Reply-To"] == "<commit@mail>"]  # type: ignore[index]
    assert receipt["Subject"] == (  # type: ignore[index]
        "[cairo-2026] turn 1: commitment accepted, keep your order"
    )
    assert "keep the order you committed to" in receipt.get_body(("plain",)).get_content()  # type: ignore[attr-defined]
    sent = notice_mail(form, f"{player}@example.org", "<reveal@mail>", "reveal")
    result = run("ingest", table.gamedir, "--config", config, input=sent)  # type: ignore[arg-type]
    assert result.output.endswith("accepted\n"), result.output
    assert run("adjudicate", table.gamedir).exit_code == 0
