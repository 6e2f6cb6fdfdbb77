"""Orders inside Outlook's winmail.dat (application/ms-tnef), and hostile TNEF streams.

The stream is written by ``tests/tnef.py`` after [MS-OXTNEF] as Outlook writes it; the files in
it are taken as if attached directly. A stream that cannot be read makes the message unreadable
with words that say why (``ingest`` sets it aside and exits 0), in time linear in its size.
"""

from __future__ import annotations

import base64
import struct
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.mail import tnef as tnef_module
from adjudicator.mail.incoming import Incoming, read_message
from adjudicator.present.words import say
from adjudicator.signing import sshsig
from tests import tnef
from tests.helpers import Table, run
from tests.ssh import make_key, pub_line, ssh_sign

ORDER = (
    b"# Sultan, game cairo-2026, turn 4: sam's order.\r\n"
    b"id: cairo-2026\r\nplayer: sam\r\nturn: 4\r\nbid: {cushion: 2, card: 12}\r\n"
)  # saved by Notepad: CRLF


def outlook(winmail: bytes, *, content_type: str = "application/ms-tnef") -> bytes:
    """A message as Outlook sends one in Rich Text to the Internet: a text version and the
    winmail.dat holding everything attached (MS-OXCMAIL 2.1.3.1.4), base64 at 76."""
    encoded = base64.encodebytes(winmail).replace(b"\n", b"\r\n")
    boundary = b"_000_AM0PR07MB6115A1B2C3D4E5F6071829AB3C4DAM0PR07MB6115eurp_"
    return (
        b'From: Sam Example <sam@example.org>\r\nTo: "gm@example.net" <gm@example.net>\r\n'
        b"Subject: Orders turn 4\r\nThread-Topic: Orders turn 4\r\n"
        b"Date: Wed, 25 Nov 2026 09:02:11 +0000\r\n"
        b"Message-ID:\r\n <AM0PR07MB6115A1B2C3D4E5F6071829AB3C4D@AM0PR07MB6115.eurprd07.prod."
        b"outlook.com>\r\nContent-Language: en-GB\r\nX-MS-Has-Attach: yes\r\n"
        b"X-MS-TNEF-Correlator: <AM0PR07MB6115A1B2C3D4E5F6071829AB3C4D@AM0PR07MB6115.eurprd07."
        b'prod.outlook.com>\r\nContent-Type: multipart/mixed;\r\n\tboundary="' + boundary + b'"\r\n'
        b"MIME-Version: 1.0\r\n\r\n--" + boundary + b"\r\n"
        b'Content-Type: text/plain; charset="us-ascii"\r\n'
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\nMy orders are attached.\r\n\r\n"
        b"Sam\r\n\r\n--" + boundary + b"\r\nContent-Type: " + content_type.encode() + b";\r\n"
        b'\tname="winmail.dat"\r\nContent-Description: winmail.dat\r\n'
        b'Content-Disposition: attachment;\r\n\tfilename="winmail.dat"; size='
        + str(len(winmail)).encode()
        + b"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + encoded
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )


@pytest.fixture(scope="module")
def sam(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, str]:
    """(the signature of ORDER, sam's public key line)."""
    folder = tmp_path_factory.mktemp("sam")
    key = make_key(folder / "keys", "sam")
    order = folder / "sam.yaml"
    order.write_bytes(ORDER)
    return ssh_sign(key, order).read_bytes(), pub_line(key)


def said(found: Incoming) -> str:
    assert found.problem is not None
    return say(found.problem)


def test_the_pair_inside_winmail_dat_is_found_and_verifies(sam: tuple[bytes, str]) -> None:
    signature, public = sam
    found = read_message(outlook(tnef.tnef([("sam.yaml", ORDER), ("sam.yaml.sig", signature)])))
    assert found.problem is None
    (order,) = found.orders
    assert (order.name, order.order, order.signature, order.pasted) == (
        "sam.yaml",
        ORDER,
        signature,
        False,
    )
    assert sshsig.verify_variants(order.order, order.signature, public) == ORDER
    assert found.sender == "sam@example.org"


def test_an_appended_signature_inside_winmail_dat(sam: tuple[bytes, str]) -> None:
    signature, public = sam
    found = read_message(outlook(tnef.tnef([("Orders (signed).yaml", ORDER + signature)])))
    (order,) = found.orders
    assert sshsig.verify_variants(order.order, order.signature, public) == ORDER


def test_winmail_dat_by_its_bytes_whatever_its_content_type(sam: tuple[bytes, str]) -> None:
    signature, _ = sam
    winmail = tnef.tnef([("sam.yaml", ORDER), ("sam.yaml.sig", signature)])
    found = read_message(outlook(winmail, content_type="application/octet-stream"))
    assert [order.order for order in found.orders] == [ORDER]


def test_winmail_dat_with_no_files_leaves_the_text(sam: tuple[bytes, str]) -> None:
    found = read_message(outlook(tnef.tnef([])))
    assert found.problem is None and found.orders == () and found.unsigned == ()


def test_an_unsigned_order_inside_winmail_dat_is_named() -> None:
    found = read_message(outlook(tnef.tnef([("sam.yaml", ORDER)])))
    assert found.orders == () and found.unsigned == ("sam.yaml",)


def test_ingest_takes_an_order_inside_winmail_dat(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    player = str(table.status()["waiting_for"][0])
    path = table.signed(player, table.legal(player), name="orders.yaml")
    winmail = tnef.tnef(
        [("orders.yaml", path.read_bytes()), ("orders.yaml.sig", Path(f"{path}.sig").read_bytes())]
    )
    raw = outlook(winmail).replace(b"sam@example.org", f"{player}@example.org".encode())
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].endswith(f"cairo-2026 {player} 1 accepted")
    assert player in table.status()["received"]


# --- hostile streams -------------------------------------------------------------------------


def stream(*attributes: bytes) -> bytes:
    return struct.pack("<IH", tnef.SIGNATURE, 1) + b"".join(attributes)


def one_file_with_props(props: bytes) -> bytes:
    rendering = tnef.attribute(tnef.ATTACHMENT, tnef.ATTACH_REND_DATA, b"\1\0" + b"\0" * 12)
    return stream(
        tnef.message_attributes(),
        rendering,
        tnef.attribute(tnef.ATTACHMENT, tnef.ATTACH_DATA, ORDER),
        tnef.attribute(tnef.ATTACHMENT, tnef.ATTACHMENT_PROPS, props),
    )


GOOD = tnef.tnef([("sam.yaml", ORDER), ("sam.yaml.sig", b"-----BEGIN SSH SIGNATURE-----\n")])
HOSTILE = {
    "not TNEF at all": (b"PK\3\4 a zip, not a winmail.dat", "does not start as a TNEF file"),
    "only the signature": (GOOD[:4], "cut off"),
    "cut in a header": (GOOD[:45], "cut off"),
    "cut in the data": (GOOD[: len(GOOD) // 2], "cut off"),
    "cut before a checksum": (GOOD[:-1], "cut off"),
    "a length of 4 GiB": (
        stream(struct.pack("<BII", 1, tnef.SUBJECT, 0xFFFFFFFF) + b"x" * 64),
        "cut off",
    ),
    "a wrong checksum": (
        stream(tnef.attribute(1, tnef.SUBJECT, b"Orders\0", checksum=1)),
        "checksum",
    ),
    "too many attributes": (
        stream(*[tnef.attribute(1, tnef.SUBJECT, b"")] * (tnef_module.MAX_ATTRIBUTES + 1)),
        f"more than {tnef_module.MAX_ATTRIBUTES} attributes",
    ),
    "too many files": (
        tnef.tnef([("a.txt", b"a")] * (tnef_module.MAX_FILES + 1)),
        f"more than {tnef_module.MAX_FILES} files",
    ),
    "a winmail.dat inside": (tnef.tnef([("winmail.dat", GOOD)]), "another winmail.dat"),
    "an embedded message": (
        stream(
            tnef.message_attributes(),
            tnef.file_attributes("Orders.msg", b"", data_object=tnef.IMESSAGE + GOOD),
        ),
        "another winmail.dat or an attached message",
    ),
    # The decoder would loop four billion times on each of these: they never reach it.
    "four billion properties": (one_file_with_props(struct.pack("<I", 0xFFFFFFFF)), "cut off"),
    "four billion values": (
        one_file_with_props(struct.pack("<IHHI", 1, 0x1002, 0x3705, 0xFFFFFFFF)),
        "cut off",
    ),
    "a string past the end": (
        one_file_with_props(struct.pack("<IHHII", 1, 0x001F, 0x3707, 1, 4000) + b"x" * 8),
        "cut off",
    ),
    "an unknown property type": (
        one_file_with_props(struct.pack("<IHHI", 1, 0x0999, 0x3705, 0)),
        "make no sense",
    ),
    "an attachment attribute before any file": (
        stream(tnef.attribute(tnef.ATTACHMENT, tnef.ATTACH_DATA, ORDER)),
        "make no sense",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_winmail_dat_is_refused_in_words(name: str) -> None:
    data, words = HOSTILE[name]
    start = time.process_time()  # its own time: a loaded machine does not add to it
    found = read_message(outlook(data))
    assert time.process_time() - start < 5
    assert (found.orders, found.unsigned) == ((), ())
    text = said(found)
    assert text.startswith("the Outlook attachment 'winmail.dat' (TNEF) cannot be read: ")
    assert words in text
    assert found.message_id is not None


def test_a_hostile_winmail_dat_is_set_aside_by_ingest(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    before = table.status()
    raw = outlook(HOSTILE["four billion properties"][0])
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert "set aside: the Outlook attachment 'winmail.dat' (TNEF) cannot be read" in (
        result.output
    )
    assert table.status() == before  # the notice of a message that names no game is no game's


@pytest.mark.seconds
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 16), st.binary(max_size=8)), max_size=4)
)
def test_damaged_winmail_dat_never_raises(edits: list[tuple[int, int, bytes]]) -> None:
    data = GOOD
    for position, length, replacement in edits:
        position %= len(data) + 1
        data = data[:position] + replacement + data[position + length :]
    found = read_message(outlook(data))
    assert isinstance(found, Incoming)
    assert found.problem is None or found.orders == ()


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_the_signature_are_read_or_refused(tail: bytes) -> None:
    data = struct.pack("<I", tnef.SIGNATURE) + tail
    try:
        files = tnef_module.tnef_files(data)
    except tnef_module.TnefError as exc:
        assert exc.code.startswith("mail-tnef-")
    else:
        assert all(isinstance(name, str) and isinstance(body, bytes) for name, body in files)
