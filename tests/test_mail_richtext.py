"""Orders pasted into an HTML mail (tests/mail/README.md, "Orders pasted into rich text").

A player who composes in HTML pastes the order and its signature into the window; the mail
then holds the order only as HTML (or beside a plain-text version that no longer verifies).
The text of the page as rendered (``adjudicator.mail.richtext``) is read like a plain-text body,
and one of its readings must be the bytes as signed, exactly.
"""

from __future__ import annotations

import email.policy
import time
from email.parser import BytesParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.mail import pasted
from adjudicator.mail.incoming import read_message
from adjudicator.mail.richtext import MAX_HTML, html_texts
from adjudicator.signing import sshsig
from tests.helpers import Table, run
from tests.ssh import ssh_keygen
from tests.test_mail_fixtures import MAKER, SAM, SAMPLES, first_verifying, readings

RICH = {fixture.name: fixture for fixture in MAKER.RICH_FIXTURES}


@pytest.mark.parametrize("name", sorted(RICH))
def test_an_order_pasted_into_html_verifies_as_signed(name: str, tmp_path: Path) -> None:
    fixture = RICH[name]
    raw = (SAMPLES / name).read_bytes()
    found = read_message(raw)
    assert found.problem is None
    (order,) = found.orders
    assert order.pasted
    _, as_signed, signature = first_verifying(order)
    assert as_signed == fixture.order
    (tmp_path / "order.sig").write_bytes(signature)
    done = ssh_keygen(
        "-Y", "verify", "-f", SAMPLES / "allowed_signers", "-I", "sam",
        "-n", sshsig.NAMESPACE, "-s", tmp_path / "order.sig", stdin=as_signed,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(RICH))
def test_rich_fixtures_are_what_the_script_makes(name: str, tmp_path: Path) -> None:
    key = tmp_path / "fixture-key"
    key.write_bytes((SAMPLES / "fixture-key").read_bytes())
    key.chmod(0o600)
    fixture = RICH[name]
    signed = ssh_keygen("-q", "-Y", "sign", "-n", sshsig.NAMESPACE, "-f", key, stdin=fixture.order)
    assert MAKER.build(fixture, signed.stdout) == (SAMPLES / name).read_bytes()
    assert name in (SAMPLES / "README.md").read_text(), f"{name} is not in the README"


@pytest.mark.parametrize("name", ["thunderbird-html-alternative.eml", "gmail-html-divs.eml"])
def test_where_the_text_version_is_mangled_only_the_html_verifies(name: str) -> None:
    """The plain-text alternative alone gives no reading that verifies: the HTML's do."""
    message = BytesParser(policy=email.policy.default).parsebytes((SAMPLES / name).read_bytes())
    plain = message.get_body(("plain",))
    assert plain is not None
    text = plain.get_content().encode("utf-8")
    for order in pasted.pasted_orders(text):
        for data, signature in readings(order):
            with pytest.raises(sshsig.SignatureError):
                sshsig.verify_variants(data, signature, SAM)
    (order,) = read_message((SAMPLES / name).read_bytes()).orders
    assert first_verifying(order)[1] == RICH[name].order


def test_the_text_of_a_page_as_rendered() -> None:
    page = (
        "<html><head><title>x</title><style>p {margin: 0}</style></head><body>\n"
        "<p>Hi&nbsp;GM,</p><p>id: cairo-2026<br>\n   player:\n sam<br><br>\n"
        "&nbsp; - a &amp; b &lt;c&gt;</p><div><br></div><div>x</div>"
        "<blockquote type=cite><pre>\n  kept  as is\n\n</pre><div>in</div>"
        "<blockquote><div>deeper</div></blockquote></blockquote><script>no()</script>"
        "<o:p>&nbsp;</o:p></body></html>"
    )
    tight, gapped = html_texts(page)
    assert tight == (
        "Hi\u00a0GM,\nid: cairo-2026\nplayer: sam\n\n\u00a0 - a & b <c>\n\nx\n"
        ">   kept  as is\n>\n> in\n> > deeper\n"
        "\n"  # Outlook's empty paragraph: <o:p>&nbsp;</o:p>
    )
    assert gapped.startswith("Hi\u00a0GM,\n\nid: cairo-2026\nplayer: sam\n")
    assert html_texts("<div>a</div><div>b</div>") == ["a\nb\n"]


def test_an_order_in_both_versions_is_one_order() -> None:
    raw = (SAMPLES / "gmail-pasted-greeting.eml").read_bytes()
    assert b"text/html" in raw
    found = read_message(raw)
    (order,) = found.orders
    assert first_verifying(order)[0] == 0  # the text version's reading, still the first


HOSTILE = [
    "<div>" * 100_000,
    "<!--" + "a" * 500_000,
    "<p " + 'a="' * 200_000,
    "<br>" * 200_000 + "SIGNATURE-----",
    ("<div>-----BEGIN SSH SIGNATURE-----<br>QUJD<br>-----END SSH SIGNATURE-----</div>" * 20_000),
    "&" * 500_000 + "SIGNATURE-----",
    "<blockquote>" * 50_000 + "-----BEGIN SSH SIGNATURE-----<br>-----END SSH SIGNATURE-----",
    "<pre>" + "\n" * 400_000 + "SIGNATURE-----</pre>",
]


@pytest.mark.seconds
@pytest.mark.parametrize("page", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_html_is_read_in_bounded_time_and_never_raises(page: str) -> None:
    body = page.encode()
    raw = (
        b"From: a@example.org\r\nMessage-ID: <h@x>\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\n" + body
    )
    start = time.process_time()  # this process's own time: a loaded machine does not add to it
    found = read_message(raw)
    assert time.process_time() - start < 20
    assert found.problem is None
    assert len(found.orders) <= pasted.MAX_PASTED
    for order in found.orders:
        assert len(order.alternatives) < pasted.MAX_READINGS


def test_an_html_part_is_read_up_to_its_cap() -> None:
    signed = (SAMPLES / "apple-mail-html-only.eml").read_bytes()
    head, body = signed.split(b"\n\n", 1)
    assert read_message(head + b"\n\n" + body).orders
    padded = head + b"\n\n" + b"<!-- " + b"x" * MAX_HTML + b" -->" + body
    assert read_message(padded).orders == ()


def test_ingest_takes_an_order_pasted_into_html(tmp_path: Path) -> None:
    table = Table(tmp_path, players=3)
    player = str(table.status()["waiting_for"][0])
    path = table.signed(player, table.legal(player), name="pasted.yaml")
    pasted = (path.read_bytes() + Path(f"{path}.sig").read_bytes()).decode()
    lines = "<br>\n      ".join(MAKER.gecko_spaces(line) for line in pasted.split("\n")[:-1])
    raw = (
        f"From: {player}@example.org\r\nTo: gm-bot@example.org\r\nSubject: orders\r\n"
        "Message-ID: <rich@example.org>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        f"<html><body><p>Hi GM,</p><p>{lines}<br></p></body></html>\r\n"
    ).encode()
    config = tmp_path / "mail.toml"
    config.write_text('[mail]\nfrom = "gm-bot@example.org"\ngm = "gm@example.org"\n')
    result = run("ingest", table.gamedir, "--config", config, input=raw)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"<rich@example.org> cairo-2026 {player} 1 accepted"]
    assert player in table.status()["received"]


RICH_BYTES = [(SAMPLES / name).read_bytes() for name in sorted(RICH)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RICH_BYTES),
    st.lists(
        st.tuples(st.integers(0, 6000), st.integers(0, 40), st.binary(max_size=12)), max_size=4
    ),
)
def test_damaged_rich_fixtures_never_raise(raw: bytes, edits: list[tuple[int, int, bytes]]) -> None:
    for position, length, replacement in edits:
        position %= len(raw) + 1
        raw = raw[:position] + replacement + raw[position + length :]
    found = read_message(raw)
    assert found.problem is None or found.orders == ()
    for order in found.orders:
        assert len(order.alternatives) < pasted.MAX_READINGS
