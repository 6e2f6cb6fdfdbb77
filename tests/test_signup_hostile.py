"""A hostile review of sign-up by mail (docs/signup.md): each test is one finding, asserting
what the project's rules require."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.engine import signup
from adjudicator.engine.open_game import game_options
from adjudicator.mail.queue import recipients_of
from adjudicator.rules import deal, digests
from adjudicator.rules.rng import Rng
from adjudicator.store import steps
from adjudicator.store.registry import load_game
from tests.helpers import SEED, run
from tests.ssh import pub_line, ssh_sign
from tests.test_signup import OpenTable, lines


def test_joins_naming_a_strangers_address_mail_it_once_at_most(tmp_path: Path) -> None:
    """Backscatter: anyone can send many joins (fresh names, fresh keys) that all give a
    stranger's address; each makes the game mail the stranger a confirmation request."""
    table = OpenTable(tmp_path, seats=3)
    for name in ("alice", "bob", "carol", "dave"):
        path = table.join_file(name, email="victim@example.net")
        assert "accepted" in table.mail(path, "mallory@example.net")
    sent = table.outbox("victim@example.net")
    assert len(sent) <= 1, f"{len(sent)} mails to an address that never wrote to the game"


def test_an_unconfirmed_strangers_address_gets_no_mail_when_the_game_starts(
    tmp_path: Path,
) -> None:
    """Backscatter: a join from another address that never confirmed is mailed again when the
    game starts (``refused``: unconfirmed) or closes."""
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3})
    path = table.join_file("dave", email="victim@example.net")
    assert "accepted" in table.mail(path, "mallory@example.net")
    before = len(table.outbox("victim@example.net"))
    table.seat("alice")
    table.seat("bob")
    assert run("start", table.gamedir).exit_code == 0
    after = table.outbox("victim@example.net")
    assert len(after) == before, [m["Subject"] for m in after]


def leave_again(table: OpenTable, name: str, again: int) -> Path:
    """``name``'s leave, made different by a comment (the same leave twice is a replay)."""
    text = run("join", "bazaar", "--name", name, "--leave").output
    path = table.write(f"leave-{name}-{again}.yaml", f"# leave {again}\n{text}")
    ssh_sign(table.keys[name], path)
    return path


def test_a_player_who_joined_again_can_leave_again(tmp_path: Path) -> None:
    """``adjudicator join --leave`` prints the same file every time, so a player who left,
    joined again and wants to leave again is refused: "this join was taken before"."""
    table = OpenTable(tmp_path, seats=3)
    for _ in range(2):
        assert "accepted" in table.mail(table.join_file("alice"), "alice@example.org")
        out = table.mail(table.leave_file("alice"), "alice@example.org")
        assert "accepted" in out, out
    assert table.status()["seats"]["unconfirmed"] == []


def test_a_name_joined_a_third_time_keeps_every_join_file_and_verifies(tmp_path: Path) -> None:
    """``_take`` numbers a join by the names joined so far: the third join of a name gets the
    second's number and overwrites its files; an honest game then fails ``verify``."""
    table = OpenTable(tmp_path, seats=3)
    for again in range(2):
        assert "accepted" in table.mail(table.join_file("alice"), "alice@example.org")
        out = table.mail(leave_again(table, "alice", again), "alice@example.org")
        assert "accepted" in out, out
    assert "accepted" in table.mail(table.join_file("alice"), "alice@example.org")
    table.confirm("alice")
    table.seat("bob")
    table.seat("carol")
    assert table.status()["turn"] == 1
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 0, result.output


def test_a_public_archive_holds_no_address_from_a_joins_key_comment(tmp_path: Path) -> None:
    """The journal's ``joins`` line keeps the key line as given, comment included; ssh-keygen
    -C you@example.org (as GitHub's guide says) puts the address in the public archive."""
    table = OpenTable(tmp_path, seats=2)
    for name in ("alice", "bob"):
        key = pub_line(table.keys[name]).rsplit(" ", 1)[0] + f" {name}.private@example.net"
        table.mail(table.join_file(name, key=key), f"{name}@example.org")
        table.confirm(name)
    assert table.status()["turn"] == 1
    public = tmp_path / "public.archive"
    assert run("archive", table.gamedir, "--public", "-o", public).exit_code == 0
    assert "private@example.net" not in public.read_text()
    shown = run("log", table.gamedir, "--json").output
    assert "private@example.net" not in shown
    assert json.loads(shown)


@pytest.mark.seconds
def test_verify_catches_a_game_master_who_chose_the_seat_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deal hashes the shares in seat order, and the seats are dealt in it: a game master
    who knows the seed and every share can try each order of the seats (3! = 6, 5! = 120
    deals) and write the one they like in the ``started`` line. The seats must be in join
    order (docs/signup.md), and ``verify`` must say so when they are not."""
    table = OpenTable(tmp_path, seats=3)
    monkeypatch.setattr(signup, "_join_order", lambda handle: ["carol", "bob", "alice"])
    for name in ("alice", "bob", "carol"):
        table.seat(name)
    monkeypatch.undo()
    [started] = [x["started"] for x in lines(table) if x.get("started")]
    assert started["players"] == ["carol", "bob", "alice"]
    table.names = started["players"]
    while not table.status()["over"]:
        table.play_turn()
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 3, result.output


def test_a_name_taken_again_after_a_leave_deals_from_the_new_players_own_share(
    tmp_path: Path,
) -> None:
    """A player the setup seated sends a share, then leaves; a stranger joins with the same
    name and their own share. ``OpenGame.shares`` lets the departed player's share notice
    override the new seat's join, so the deal is not made from the new player's share."""
    table = OpenTable(tmp_path, seats=3, seated=1)
    share = table.notice("alice", 'share: "' + "a1" * 16 + '"\n', "share-alice.yaml")
    assert run("submit", table.gamedir, share).exit_code == 0
    assert "accepted" in table.mail(table.leave_file("alice"), "alice@example.org")
    new = "new-alice@example.net"
    out = table.mail(table.join_file("alice", key_of="dave", email=new, share="d4" * 16), new)
    assert "accepted" in out, out
    table.confirm("alice", sender=new)
    table.seat("bob")
    table.seat("carol")
    table.names = ["alice", "bob", "carol"]
    assert table.status()["turn"] == 1
    own = deal.dealt_seed(SEED, ["d4" * 16, table.shares["bob"], table.shares["carol"]])
    seats = [{"name": n, "email": f"{n}@example.org"} for n in table.names]
    meta = json.loads((table.gamedir / "game.json").read_text())
    state = load_game("sultan").setup(seats, game_options(meta), Rng(own))
    stored = json.loads((table.gamedir / "turns" / "0001" / "state.json").read_text())
    assert stored == json.loads(json.dumps(state)), "dealt from the departed player's share"


@pytest.mark.parametrize(
    "address",
    ["root,alice@example.org", "<alice@example.org>,postmaster", "al\x00ice@example.org"],
)
def test_a_joins_address_is_one_address_and_mail_goes_to_it_alone(
    tmp_path: Path, address: str
) -> None:
    """``EMAIL`` takes ``root,alice@example.org``: the join is taken, and its confirmation
    request (later every mail of the seat) goes to several recipients, among them unqualified
    local ones (``root``, ``postmaster``) of the game master's own mail server; it takes
    control characters (NUL, DEL, U+202E) too."""
    table = OpenTable(tmp_path, seats=3)
    out = table.mail(table.join_file("alice", email=address), "alice@example.org")
    for message in table.outbox():
        assert recipients_of(message.as_bytes()) == ["alice@example.org"], (out, message["To"])
    assert "refused" in out, out


def test_a_hostile_join_name_cannot_forge_lines_of_the_ingest_output(tmp_path: Path) -> None:
    """The name a join gives is printed raw in ``ingest``'s output (which cron mails to the
    game master) before it is checked: a line break in it makes a forged line."""
    table = OpenTable(tmp_path, seats=3)
    path = table.join_file("bob")
    data = yaml.safe_load(path.read_text())
    data["join"]["name"] = "bob\n<forged@example.org> bazaar alice - accepted\n"
    hostile = table.write("hostile.yaml", yaml.safe_dump(data))
    ssh_sign(table.keys["bob"], hostile)
    out = table.mail(hostile, "bob@example.org")
    assert "refused" in out
    assert len(out.strip().splitlines()) == 1, out


@pytest.mark.seconds
def test_a_finished_games_public_archive_does_not_confirm_a_guessed_address(
    tmp_path: Path,
) -> None:
    """Once the game is over, its public archive reveals the seed and salt, hence the file key
    of the journal's digests. The journal names each join file by that keyed digest, and gives
    every field of the join but its address (name, key, share, language); ``adjudicator join``
    prints a join the same way every time. So anyone can test guessed addresses (a club's
    member list) against the digest and learn each player's address."""
    table = OpenTable(tmp_path, seats=2)
    for name in ("alice", "bob"):
        table.seat(name)
    table.names = ["alice", "bob"]
    while not table.status()["over"]:
        table.play_turn()
    public = tmp_path / "public.archive"
    assert run("archive", table.gamedir, "--public", "-o", public).exit_code == 0
    archive = json.loads(public.read_text())
    key = digests.file_key(archive["seed"], archive["salt"])
    found = {}
    for line in map(json.loads, archive["journal"]):
        for join in line.get("joins") or []:
            named = line["files"][join["file"]]
            for guess in ("someone@example.net", f"{join['name']}@example.org"):
                body = {"name": join["name"], "email": guess, "key": join["key"]}
                text = yaml.safe_dump({"id": "bazaar", "join": {**body, "share": join["share"]}})
                if hmac.new(key, text.encode(), hashlib.sha256).hexdigest() == named:
                    found[join["name"]] = guess
    assert found == {}, f"addresses read from the public archive: {found}"


@pytest.mark.seconds
def test_verify_catches_a_leave_the_player_never_signed(tmp_path: Path) -> None:
    """A leave is signed by the seat's key, but ``judge_join`` keeps no file of it: the
    journal's ``left`` names the seat and a digest nobody can check. A game master who writes
    ``left: [bob]`` themselves (to seat a friend instead) leaves an archive ``verify`` passes."""
    table = OpenTable(tmp_path, seats=3)
    table.seat("alice")
    table.seat("bob")
    with steps.step(table.gamedir, "mail") as running:
        running.commit("mail", left=["bob"], leaves=[{"name": "bob", "digest": "0" * 64}])
    assert table.status()["seats"]["taken"] == ["alice"]
    table.seat("carol")
    table.seat("dave")
    table.names = ["alice", "carol", "dave"]
    while not table.status()["over"]:
        table.play_turn()
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 3, result.output


def test_join_refuses_a_private_key_file_instead_of_printing_it(tmp_path: Path) -> None:
    """``adjudicator sign`` takes ``--key ~/.ssh/id_ed25519`` (the private key), ``join``
    ``--key ~/.ssh/id_ed25519.pub``: a player who gives ``join`` the private key by mistake
    gets it printed, exit 0, into the join they sign and mail (and a refused join's receipt
    quotes it back). ``join`` reads any text as the key line, unchecked."""
    table = OpenTable(tmp_path, seats=2)
    private = table.keys["alice"]
    result = run("join", "bazaar", "--name", "alice", "--email", "a@example.org", "--key", private)
    assert "PRIVATE KEY" not in result.output
    assert result.exit_code not in (0, 1), result.output


def test_a_confirmation_after_the_sign_up_ended_takes_no_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A join is refused once ``signup_until`` passed, but ``confirming`` asks only whether the
    game is still open: a confirmation that comes after the end (before ``tick`` closes the
    game) still takes a seat, and can fill the game past its end."""
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-01T12:00:00+00:00")
    table = OpenTable(tmp_path, seats={"min": 2, "max": 3}, signup={"signup_until": "3d"})
    table.seat("alice")
    table.mail(table.join_file("bob"), "bob@example.org")
    monkeypatch.setenv("ADJUDICATOR_NOW", "2026-12-05T12:00:00+00:00")
    late = table.join_file("carol")
    assert "refused" in table.mail(late, "carol@example.org"), "a join after the end"
    out = table.confirm("bob")
    assert "seated" not in out, out
    assert table.status()["seats"]["taken"] == ["alice"]


def test_a_strangers_unconfirmed_join_does_not_keep_a_name_from_its_player(
    tmp_path: Path,
) -> None:
    """A join nobody confirmed holds its name until the start: a stranger who reads on the
    forum "I'll join as alice" sends a join named alice (their own key, any address, no
    confirmation ever) and the real alice is refused, "the name 'alice' is taken"; so with
    every name announced. An unconfirmed join should not keep a confirmed player out."""
    table = OpenTable(tmp_path, seats=2)
    squat = table.join_file("alice", key_of="dave", email="nobody@example.net")
    assert "accepted" in table.mail(squat, "mallory@example.net")
    out = table.mail(table.join_file("alice"), "alice@example.org")
    assert "accepted" in out, out


def test_the_site_of_a_game_that_started_is_written(tmp_path: Path) -> None:
    """``site/index.html.j2`` now asks ``{% if phase == "signup" %}``, but ``site.build``
    passes ``phase`` only before the deal: the site of every dealt game, open or not, crashes
    (``UndefinedError``, exit 1); tests/test_site.py fails on main too."""
    table = OpenTable(tmp_path, seats=2)
    for name in ("alice", "bob"):
        table.seat(name)
    assert table.status()["turn"] == 1
    try:
        result = run("site", table.gamedir, "-o", tmp_path / "site")
    except Exception as error:  # the CLI runner lets the crash through
        pytest.fail(f"adjudicator site crashed: {error!r}")
    assert result.exit_code == 0, result.output
    assert "example.org" not in (tmp_path / "site" / "index.html").read_text()


@pytest.mark.seconds
def test_verify_of_a_full_archive_wants_the_join_file_of_every_joins_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_joins`` skips a join whose file the archive lacks ("a public archive; a full one
    that lacks it is named by _files"), but ``_files`` names only the files a line's
    ``files`` lists. A game master who records another share for bob's join and keeps no
    signed join (only the address and code the seat needs) deals from their share, and a full
    archive verifies."""
    table = OpenTable(tmp_path, seats=2)
    take = signup._take

    def forged(handle: Any, body: dict[str, Any], *args: Any) -> None:
        take(handle, body, *args)
        join = handle.seating["joins"][-1]
        if join["name"] == "bob":  # another share, and the join kept without what bob signed
            join["share"] = "c" * 32
            kept = json.loads((table.gamedir / join["file"]).read_text())
            del kept["join"], kept["signature"]
            (table.gamedir / join["file"]).write_text(json.dumps(kept))

    monkeypatch.setattr(signup, "_take", forged)
    for name in ("alice", "bob"):
        table.seat(name)
    monkeypatch.undo()
    table.names = ["alice", "bob"]
    while not table.status()["over"]:
        table.play_turn()
    archive = tmp_path / "game.archive"
    assert run("archive", table.gamedir, "-o", archive).exit_code == 0
    result = run("verify", archive)
    assert result.exit_code == 3, result.output


@pytest.mark.parametrize("kind", ["a pipe", "a device", "a link to a device", "a folder"])
def test_join_refuses_a_key_that_is_no_file_without_reading_it(tmp_path: Path, kind: str) -> None:
    """``--key /dev/zero`` read until memory ran out, a pipe waited for ever: each is refused
    at once, as every other key file is. Run as a process of its own, so that a wait fails."""
    import os
    import subprocess
    import sys

    key = tmp_path / "key.pub"
    if kind == "a pipe":
        os.mkfifo(key)
    elif kind == "a device":
        key = Path("/dev/zero")
    elif kind == "a link to a device":
        key.symlink_to("/dev/zero")
    else:
        key.mkdir()
    argv = [sys.executable, "-m", "adjudicator", "join", "bazaar", "--name", "alice"]
    argv += ["--email", "alice@example.org", "--key", str(key)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == (2 if kind == "a folder" else 3), done.stderr  # 2: click's own
    assert str(key) in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "address",
    [
        # an encoded word the mail header decodes: a line break, then headers and a body
        "a@=?utf-8?q?evil.example=0D=0ACc=3A_victim=40third.example=0D=0A=0D=0Abody?=",
        "=?utf-8?q?a=0D=0ACc=3A_victim=40third.example?=@example.org",
        "a@=?utf-8?q?evil.org=2C_victim=40third.org?=",  # a comma: two recipients
        "\u00fcx@example.org",  # not ASCII: no SMTP server takes it as it is
        "a\u009b@example.org",
        "a@example.org.",  # an empty last label: the server's recipient would be <>
        "a@-example.org",
        "a..b@example.org",
    ],
)
def test_a_join_address_that_mail_would_read_otherwise_is_refused(
    tmp_path: Path, address: str
) -> None:
    """A join's address is one a stranger gives, and the game mails it. One that passed the
    check but that a mail header reads as something else (an encoded word decoded into line
    breaks, headers, more recipients), or that no server takes, was taken: the confirmation
    request then carried the stranger's headers to anyone, or held the game's mail for ever."""
    table = OpenTable(tmp_path, seats=3)
    path = table.join_file("alice", email=address)
    answer = table.mail(path, "mallory@example.net")
    assert "refused" in answer and "is not one mail address" in answer, answer
    assert run("send", table.gamedir, "--config", table.config).exit_code == 0
    for mail in (table.gamedir / "outbox").glob("*.eml"):
        head = mail.read_bytes().split(b"\r\n\r\n", 1)[0].lower()
        assert b"third" not in head and b"victim" not in head, head


def test_a_refused_joins_name_is_quoted_short_and_refused_for_one_reason(tmp_path: Path) -> None:
    """A join's name is a stranger's text, quoted back in the receipt to the address the mail
    says it came from (which anyone can write). A long name was quoted whole, twice: once as no
    valid name, once as a name YAML reads as true or false, which it was not."""
    table = OpenTable(tmp_path, seats=3)
    name = "URGENT from the game master: log in at http://evil.example/login " * 3
    path = table.join_file("alice", name=name, email="victim@example.net")
    answer = table.mail(path, "victim@example.net")
    assert "refused" in answer, answer
    [receipt] = table.outbox("victim@example.net")
    body = str(receipt.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert "evil.example" not in body and "true, false" not in body, body
    assert body.count("URGENT from the game master") == 1, body
