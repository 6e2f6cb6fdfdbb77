"""The sample messages of four mail programs, one per program and case (tests/mail/README.md).

Each holds an order signed by ssh-keygen with ``tests/mail/fixture-key`` (``sam``): one of the
readings that :func:`read_message` hands on must verify and be the order's bytes exactly, and
``ssh-keygen -Y verify`` must accept that reading with the signature found.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.mail import pasted
from adjudicator.mail.headers import valid_message_id
from adjudicator.mail.incoming import FoundOrder, Incoming, read_message
from adjudicator.signing import sshsig
from tests.ssh import ssh_keygen

SAMPLES = Path(__file__).parent / "mail"


def _load_maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_fixtures", SAMPLES / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


MAKER = _load_maker()
FIXTURES = {fixture.name: fixture for fixture in MAKER.FIXTURES}
SAM = next(
    line.split(" ", 1)[1]
    for line in (SAMPLES / "allowed_signers").read_text().splitlines()
    if line.startswith("sam ")
)
PROGRAMS = ("thunderbird", "outlook", "apple-mail", "gmail")
CASES = (
    "attachment-pair",
    "forward-attachment",
    "pasted-greeting",
    "quoted-reply",
    "inline-forward",
)


def readings(order: FoundOrder) -> list[tuple[bytes, bytes]]:
    return [(order.order, order.signature), *order.alternatives]


def first_verifying(order: FoundOrder) -> tuple[int, bytes, bytes]:
    """(index of the first reading that verifies, the bytes as signed, the signature)."""
    for index, (data, signature) in enumerate(readings(order)):
        try:
            return index, sshsig.verify_variants(data, signature, SAM), signature
        except sshsig.SignatureError:
            continue
    raise AssertionError(f"none of the {len(readings(order))} readings verifies")


def test_one_fixture_per_program_and_case() -> None:
    names = {f"{program}-{case}.eml" for program in PROGRAMS for case in CASES}
    assert set(FIXTURES) == names
    for name in names:
        assert (SAMPLES / name).is_file(), name
        assert name in (SAMPLES / "README.md").read_text(), f"{name} is not in the README"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_signed_order_is_among_the_readings(name: str, tmp_path: Path) -> None:
    fixture = FIXTURES[name]
    raw = (SAMPLES / name).read_bytes()
    assert b"X-Fixture-Note: " in raw
    found = read_message(raw)
    assert found.problem is None
    assert found.automatic is None
    assert found.message_id is not None and valid_message_id(found.message_id)
    assert found.sender in {"sam@example.org", "sam.example@gmail.com"}
    (order,) = found.orders
    assert order.pasted == (("pasted" in name) or ("quoted" in name) or ("inline" in name)) or (
        name in {"apple-mail-forward-attachment.eml", "gmail-forward-attachment.eml"}
    )
    index, as_signed, signature = first_verifying(order)
    assert as_signed == fixture.order
    # For every one of these everyday shapes the most likely reading is the right one.
    assert index == 0
    # And OpenSSH itself agrees on the stored pair.
    (tmp_path / "order").write_bytes(as_signed)
    (tmp_path / "order.sig").write_bytes(signature)
    done = ssh_keygen(
        "-Y",
        "verify",
        "-f",
        SAMPLES / "allowed_signers",
        "-I",
        "sam",
        "-n",
        sshsig.NAMESPACE,
        "-s",
        tmp_path / "order.sig",
        stdin=as_signed,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def private_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture key with mode 600 (ssh-keygen refuses a private key others may read)."""
    copy = tmp_path_factory.mktemp("key") / "fixture-key"
    copy.write_bytes((SAMPLES / "fixture-key").read_bytes())
    copy.chmod(0o600)
    return copy


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixtures_are_what_the_script_makes(name: str, private_key: Path) -> None:
    """make_fixtures.py writes these bytes (ssh-keygen's Ed25519 signatures are deterministic)."""
    fixture = FIXTURES[name]
    signed = ssh_keygen(
        "-q", "-Y", "sign", "-n", sshsig.NAMESPACE, "-f", private_key, stdin=fixture.order
    )
    assert signed.returncode == 0, signed.stderr
    assert MAKER.build(fixture, signed.stdout) == (SAMPLES / name).read_bytes()


def test_line_ends_as_the_programs_send_them() -> None:
    for name, fixture in FIXTURES.items():
        raw = (SAMPLES / name).read_bytes()
        bare = raw.replace(b"\r\n", b"")
        assert (b"\n" not in bare) if fixture.crlf else (b"\r" not in raw), name


SAMPLE_BYTES = [(SAMPLES / name).read_bytes() for name in sorted(FIXTURES)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SAMPLE_BYTES),
    st.lists(
        st.tuples(st.integers(0, 6000), st.integers(0, 40), st.binary(max_size=12)), max_size=4
    ),
)
def test_damaged_fixtures_never_raise(raw: bytes, edits: list[tuple[int, int, bytes]]) -> None:
    for position, length, replacement in edits:
        position %= len(raw) + 1
        raw = raw[:position] + replacement + raw[position + length :]
    found = read_message(raw)
    assert isinstance(found, Incoming)
    assert found.problem is None or found.orders == ()


LINES = [
    b"",
    b">",
    b"> ",
    b"\t",
    b"id: cairo-2026",
    b"> id: cairo-2026",
    b"# comment",
    b"-- ",
    b"-----BEGIN SSH SIGNATURE-----",
    b"> -----BEGIN SSH SIGNATURE-----",
    b">> -----BEGIN SSH SIGNATURE-----",
    b"\t-----BEGIN SSH SIGNATURE-----",
    b"-----END SSH SIGNATURE-----",
    b"> -----END SSH SIGNATURE-----",
    b">> -----END SSH SIGNATURE-----",
    b"U1NIU0lHAAAAAQ",
    b"> U1NIU0lHAAAAAQ",
]


@pytest.mark.seconds
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=60), st.sampled_from([b"\n", b"\r\n"]))
def test_pasted_orders_on_arbitrary_lines(lines: list[bytes], eol: bytes) -> None:
    """Whatever the lines, the readings stay within their bounds and below the armor."""
    text = eol.join(lines) + eol
    found = pasted.pasted_orders(text)
    assert len(found) <= pasted.MAX_PASTED
    for order in found:
        assert len(order.alternatives) < pasted.MAX_READINGS
        for data, signature in [(order.order, order.signature), *order.alternatives]:
            assert data.strip()
            assert signature.startswith(b"-----BEGIN SSH SIGNATURE-----\n")
            assert signature.endswith(b"-----END SSH SIGNATURE-----\n")
            assert b"-----BEGIN SSH SIGNATURE-----" not in data
