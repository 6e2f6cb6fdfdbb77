"""Orders in mail made by real mail programs: Debian's mutt and s-nail, run in batch mode.

Each program composes a message and "sends" it to a script that writes it to a file (no network;
HOME points at a temporary folder and neither reads a configuration file: mutt ``-n -F
/dev/null``, s-nail ``-:/``). The order in it is signed by ssh-keygen; one reading of what
:func:`read_message` finds must verify and be the order's bytes. Missing tools skip the tests
outside CI and fail them under CI (``.ci/run`` installs both).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from adjudicator.mail.incoming import FoundOrder, Incoming, read_message
from adjudicator.signing import sshsig
from tests.ssh import make_key, pub_line, ssh_sign
from tests.tools import require_tool

WHY = "mail composed by real mail programs"
ORDER = (
    "# Sultan, game cairo-2026, turn 4: sam's order.\n"
    "# Your hand: 3, 7, 12 (Grüße an alle)\n"
    "\n"
    "id: cairo-2026\n"
    "player: sam\n"
    "turn: 4\n"
    "bid:\n"
    "  cushion: 2  # 1 (red), 2 (blue)\n"
    "  card: 12    # one of your cards\n"
).encode()
SENDER = "Sam Example <sam@example.org>"
#: Writes the message on standard input to a new file in the folder named by its argument.
CAPTURE = """#!/bin/sh
n=$(ls "$(dirname "$0")/sent" | wc -l)
cat > "$(dirname "$0")/sent/$n.eml"
"""


@dataclass
class Signed:
    order: Path  # sam.yaml
    signature: Path  # sam.yaml.sig
    public: str

    @property
    def pasted(self) -> bytes:
        """The order with its signature appended, as a player pastes it."""
        return self.order.read_bytes() + self.signature.read_bytes()


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Signed:
    folder = tmp_path_factory.mktemp("sam")
    key = make_key(folder / "keys", "sam")
    order = folder / "sam.yaml"
    order.write_bytes(ORDER)
    return Signed(order, ssh_sign(key, order), pub_line(key))


class Program:
    """One mail program in a folder of its own, sending to files."""

    def __init__(self, name: str, folder: Path) -> None:
        self.tool = require_tool(name, WHY)
        self.folder = folder
        for name in ("home", "sent", "tmp"):
            (folder / name).mkdir(parents=True)
        self.mta = folder / "mta.sh"
        self.mta.write_text(CAPTURE)
        self.mta.chmod(0o755)

    def run(self, args: list[str], stdin: bytes = b"") -> bytes:
        """Run the program with ``args``; the one message it sent."""
        before = set(os.listdir(self.folder / "sent"))
        env = {
            "HOME": str(self.folder / "home"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "TERM": "dumb",
            "MAIL": str(self.folder / "home" / "inbox"),
            "TMPDIR": str(self.folder / "tmp"),
        }
        done = subprocess.run(
            [self.tool, *args],
            input=stdin,
            capture_output=True,
            env=env,
            cwd=self.folder,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        (new,) = set(os.listdir(self.folder / "sent")) - before
        return (self.folder / "sent" / new).read_bytes()


class Mutt(Program):
    def __init__(self, folder: Path) -> None:
        super().__init__("mutt", folder)

    def send(self, *args: str, stdin: bytes = b"", settings: str = "") -> bytes:
        base = (
            f'set sendmail="{self.mta}" from="{SENDER}" use_from=yes hostname=example.org '
            "charset=utf-8 send_charset=utf-8 copy=no " + settings
        )
        return self.run(["-n", "-F", "/dev/null", "-e", base, *args], stdin)


class SNail(Program):
    def __init__(self, folder: Path) -> None:
        super().__init__("s-nail", folder)

    def options(self, *settings: str) -> list[str]:
        out = ["-:/", "-S", "v15-compat", "-S", f"mta={self.mta}", "-S", f"from={SENDER}"]
        out += ["-S", "ttycharset=utf-8", "-S", "sendcharsets=utf-8"]
        for setting in settings:
            out += ["-S", setting]
        return out

    def send(self, *args: str, stdin: bytes = b"", settings: tuple[str, ...] = ()) -> bytes:
        return self.run([*self.options(*settings), *args], stdin)

    def command(self, mbox: Path, command: str, body: bytes, *settings: str) -> bytes:
        """``command`` (reply, forward) on the first message of ``mbox``, in batch mode."""
        return self.run(["-#", *self.options(*settings), "-f", str(mbox)], command.encode() + body)


def mbox_of(folder: Path, raw: bytes) -> Path:
    """An mbox file holding the message ``raw`` (as a mail reader keeps what it received)."""
    path = folder / "received.mbox"
    body = raw.replace(b"\r\n", b"\n")
    path.write_bytes(b"From sam@example.org Wed Nov 25 10:00:00 2026\n" + body + b"\n")
    return path


def readings(order: FoundOrder) -> list[tuple[bytes, bytes]]:
    return [(order.order, order.signature), *order.alternatives]


def signed_order(found: Incoming, public: str) -> bytes:
    """The bytes as signed of the one order in ``found`` (the first reading that verifies)."""
    assert found.problem is None
    (order,) = found.orders
    for data, signature in readings(order):
        try:
            return sshsig.verify_variants(data, signature, public)
        except sshsig.SignatureError:
            continue
    raise AssertionError("no reading of the order verifies")


def check(raw: bytes, signed: Signed, pasted: bool) -> Incoming:
    found = read_message(raw)
    assert signed_order(found, signed.public) == ORDER
    assert found.orders[0].pasted == pasted
    assert found.sender == "sam@example.org"
    assert found.message_id is not None
    assert found.automatic is None
    return found


# --- mutt ---------------------------------------------------------------------------------------


def test_mutt_attachment_pair(tmp_path: Path, signed: Signed) -> None:
    mutt = Mutt(tmp_path)
    raw = mutt.send(
        "-s",
        "Orders turn 4",
        "-a",
        str(signed.order),
        str(signed.signature),
        "--",
        "gm@example.net",
        stdin=b"Hi GM,\n\nmy orders are attached.\n",
    )
    assert b"multipart/mixed" in raw
    found = check(raw, signed, pasted=False)
    assert found.orders[0].name == "sam.yaml"
    assert found.orders[0].order == ORDER


def test_mutt_appended_signature_attached(tmp_path: Path, signed: Signed) -> None:
    mutt = Mutt(tmp_path)
    appended = tmp_path / "sam-signed.yaml"
    appended.write_bytes(signed.pasted)
    raw = mutt.send("-s", "orders", "-a", str(appended), "--", "gm@example.net", stdin=b"here\n")
    check(raw, signed, pasted=False)


@pytest.mark.parametrize(
    "settings",
    ["", "text_flowed=yes", "allow_8bit=no"],
    ids=["8bit", "format=flowed", "quoted-printable"],
)
def test_mutt_pasted_with_greeting_and_signature(
    tmp_path: Path, signed: Signed, settings: str
) -> None:
    """The body file included with ``-i`` (mutt appends no signature file in batch mode)."""
    mutt = Mutt(tmp_path)
    body = tmp_path / "body.txt"
    text = b"Hi GM,\n\nhere are my orders:\n\n" + signed.pasted + b"\nCheers\n-- \nSam\n"
    body.write_bytes(text)
    raw = mutt.send("-s", "orders", "-i", str(body), "--", "gm@example.net", settings=settings)
    assert b"\n-- \n" in raw or b"\n--=20\n" in raw
    if settings == "text_flowed=yes":
        assert b"format=flowed" in raw
    if settings == "allow_8bit=no":
        assert b"quoted-printable" in raw
    check(raw, signed, pasted=True)


def test_mutt_forward_as_attachment(tmp_path: Path, signed: Signed) -> None:
    """A saved message attached whole: mutt makes it a message/rfc822 part, the part its
    mime_forward makes (forwarding itself needs mutt's menus, which batch mode has not)."""
    mutt = Mutt(tmp_path)
    original = mutt.send(
        "-s",
        "Orders turn 4",
        "-a",
        str(signed.order),
        str(signed.signature),
        "--",
        "gm@example.net",
        stdin=b"Hi GM\n",
    )
    eml = tmp_path / "Orders turn 4.eml"
    eml.write_bytes(original)
    raw = mutt.send(
        "-s", "Fwd: Orders turn 4", "-a", str(eml), "--", "gm@example.net", stdin=b"FYI\n"
    )
    assert b"Content-Type: message/rfc822" in raw
    check(raw, signed, pasted=False)


# --- s-nail -------------------------------------------------------------------------------------


def snail_pasted(snail: SNail, signed: Signed) -> bytes:
    body = b"Hi GM,\n\nhere are my orders:\n\n" + signed.pasted + b"\nCheers\n-- \nSam\n"
    return snail.send("-s", "Orders turn 4", "gm@example.net", stdin=body)


def test_snail_attachment_pair(tmp_path: Path, signed: Signed) -> None:
    snail = SNail(tmp_path)
    raw = snail.send(
        "-s",
        "Orders turn 4",
        "-a",
        str(signed.order),
        "-a",
        str(signed.signature),
        "gm@example.net",
        stdin=b"Hi GM,\n\nmy orders are attached.\n",
    )
    found = check(raw, signed, pasted=False)
    assert found.orders[0].order == ORDER


def test_snail_pasted_with_greeting_and_signature(tmp_path: Path, signed: Signed) -> None:
    snail = SNail(tmp_path)
    check(snail_pasted(snail, signed), signed, pasted=True)


def test_snail_forward_as_attachment(tmp_path: Path, signed: Signed) -> None:
    snail = SNail(tmp_path)
    mbox = mbox_of(tmp_path, snail_pasted(snail, signed))
    raw = snail.command(mbox, "forward 1 gm@example.net\n", b"FYI\n", "forward-as-attachment")
    assert b"Content-Type: message/rfc822" in raw
    check(raw, signed, pasted=True)


def test_snail_inline_forward(tmp_path: Path, signed: Signed) -> None:
    snail = SNail(tmp_path)
    mbox = mbox_of(tmp_path, snail_pasted(snail, signed))
    raw = snail.command(mbox, "forward 1 gm@example.net\n", b"FYI, my orders.\n")
    assert b"-------- Original Message --------" in raw
    check(raw, signed, pasted=True)


@pytest.mark.parametrize("prefix", ["", "> "], ids=["tab (default)", "'> '"])
def test_snail_quoted_reply(tmp_path: Path, signed: Signed, prefix: str) -> None:
    snail = SNail(tmp_path)
    original = snail_pasted(snail, signed)
    mbox = mbox_of(tmp_path, original)
    settings = ["quote"] + ([f"indentprefix={prefix}"] if prefix else [])
    raw = snail.command(mbox, "reply 1\n", b"Resending, see above.\n", *settings)
    assert (b"\n> -----BEGIN SSH SIGNATURE-----" if prefix else b"\n\t-----BEGIN") in raw
    found = check(raw, signed, pasted=True)
    assert found.references == (read_message(original).message_id,)
