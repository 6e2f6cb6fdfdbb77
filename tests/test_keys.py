"""Key generation and loading against the real ssh-keygen (OpenSSH)."""

from __future__ import annotations

import base64
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.present.words import say
from adjudicator.signing import keys, sshsig
from adjudicator.signing.keys import KeyProblem, PassphraseNeeded
from tests.ssh import WHY, make_key, pub_line, ssh_keygen
from tests.tools import require_tool

KEY_TYPES = {
    "ed25519": (["-t", "ed25519"], ed25519.Ed25519PrivateKey),
    "rsa": (["-t", "rsa", "-b", "2048"], rsa.RSAPrivateKey),
    "ecdsa256": (["-t", "ecdsa", "-b", "256"], ec.EllipticCurvePrivateKey),
    "ecdsa384": (["-t", "ecdsa", "-b", "384"], ec.EllipticCurvePrivateKey),
    "ecdsa521": (["-t", "ecdsa", "-b", "521"], ec.EllipticCurvePrivateKey),
}


@contextmanager
def refused(kind: type[Exception], match: str) -> Iterator[None]:
    """Like ``pytest.raises(kind, match=...)``, matching the words of the error's reason."""
    with pytest.raises(kind) as caught:
        yield
    words = say(caught.value.reason)  # type: ignore[attr-defined]
    assert re.search(match, words), words


def keygen_fingerprint(public_file: Path) -> str:
    done = ssh_keygen("-l", "-E", "sha256", "-f", public_file)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().split()[1]


@pytest.fixture(scope="module")
def key_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("ssh-keygen", WHY)
    directory = tmp_path_factory.mktemp("keys")
    for name, (type_args, _) in KEY_TYPES.items():
        make_key(directory, name, type_args)
    make_key(directory, "locked", ["-t", "ed25519"], passphrase="secret")
    return directory


# --- loading ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_load_ssh_keygen_keys(kind: str, key_dir: Path) -> None:
    require_tool("ssh-keygen", WHY)
    key = keys.load_private(key_dir / kind)
    assert isinstance(key, KEY_TYPES[kind][1])
    line = keys.public_line(key, f"{kind}@test")
    assert line == pub_line(key_dir / kind)
    assert keys.fingerprint(line) == keygen_fingerprint(Path(f"{key_dir / kind}.pub"))


def test_passphrase_protected_key(key_dir: Path) -> None:
    require_tool("ssh-keygen", WHY)
    path = key_dir / "locked"
    assert b"aes256-ctr" in base64.b64decode(b"".join(path.read_bytes().splitlines()[1:-1]))
    key = keys.load_private(path, b"secret")
    assert keys.public_line(key, "locked@test") == pub_line(path)

    with pytest.raises(PassphraseNeeded) as needed:
        keys.load_private(path)
    assert isinstance(needed.value, KeyProblem)
    assert "passphrase" in say(needed.value.reason) and str(path) in say(needed.value.reason)

    with pytest.raises(KeyProblem) as wrong:
        keys.load_private(path, b"Secret")
    assert not isinstance(wrong.value, PassphraseNeeded)
    assert say(wrong.value.reason) == f"wrong passphrase for {path}"


def test_passphrase_protected_key_signs_for_ssh_keygen(key_dir: Path, tmp_path: Path) -> None:
    require_tool("ssh-keygen", WHY)
    path = key_dir / "locked"
    message = b"orders: []\n"
    armored = sshsig.sign(message, keys.load_private(path, b"secret"))
    (tmp_path / "allowed").write_text(f"alice {pub_line(path)}\n")
    (tmp_path / "o.sig").write_bytes(armored)
    done = ssh_keygen(
        "-Y", "verify", "-f", tmp_path / "allowed", "-I", "alice", "-n", sshsig.NAMESPACE,
        "-s", tmp_path / "o.sig", stdin=message,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_passphrase_given_for_an_unencrypted_key_is_ignored(key_dir: Path) -> None:
    require_tool("ssh-keygen", WHY)
    key = keys.load_private(key_dir / "ed25519", b"unused")
    assert keys.public_line(key, "ed25519@test") == pub_line(key_dir / "ed25519")


def test_pem_keys_load(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    plain = tmp_path / "plain.pem"
    plain.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    locked = tmp_path / "locked.pem"
    locked.write_bytes(
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw"))
    )
    expected = keys.public_line(key, "")
    assert keys.public_line(keys.load_private(plain), "") == expected
    assert keys.public_line(keys.load_private(locked, b"pw"), "") == expected
    with pytest.raises(PassphraseNeeded):
        keys.load_private(locked)
    with refused(KeyProblem, "wrong passphrase"):
        keys.load_private(locked, b"nope")


def test_load_problems(tmp_path: Path, key_dir: Path) -> None:
    require_tool("ssh-keygen", WHY)
    with refused(KeyProblem, "no key file"):
        keys.load_private(tmp_path / "missing")
    with refused(KeyProblem, "is a directory"):
        keys.load_private(tmp_path)
    text = tmp_path / "orders.yaml"
    text.write_text("orders: []\n")
    with refused(KeyProblem, "not an OpenSSH or PEM private key"):
        keys.load_private(text)
    with refused(KeyProblem, "is a public key"):
        keys.load_private(Path(f"{key_dir / 'ed25519'}.pub"))
    broken = tmp_path / "broken"
    lines = (key_dir / "ed25519").read_bytes().splitlines(keepends=True)
    broken.write_bytes(b"".join([lines[0], lines[1][:20] + b"\n", lines[-1]]))
    with refused(KeyProblem, "not a valid private key"):
        keys.load_private(broken)
    empty_pem = tmp_path / "empty.pem"
    empty_pem.write_bytes(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    with refused(KeyProblem, "not a valid private key"):
        keys.load_private(empty_pem)


NOBODY = 65534
"""The user and group ``nobody`` of most Unix systems: one that a file's mode binds."""


def without_root(
    folder: Path, check: Callable[[Path], None], path: Path, ready: Callable[[], None]
) -> None:
    """``check(path)`` as a user a file's mode binds: here when that is who runs the tests; as
    root (CI runs so), in a forked child that becomes ``nobody`` first. The child starts in
    ``folder`` and is given ``path`` relative to it, so no folder above need be open to nobody;
    ``ready`` runs in the child before it gives up root, to load what ``check`` will need (the
    Python installation itself may lie in root's home). A failure in the child fails the test,
    with its words."""
    if os.geteuid() != 0:
        check(path)
        return
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: none here
        pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        outcome = "the child did not finish"
        try:
            os.chdir(folder)
            ready()
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            assert os.geteuid() == NOBODY and os.getegid() == NOBODY
            check(path.relative_to(folder))
            outcome = "done"
        except BaseException as error:  # a failed check is a result here
            outcome = f"{type(error).__name__}: {error}"
        finally:
            os.write(write_end, outcome.encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        outcome = pipe.read().decode()
    os.waitpid(pid, 0)
    assert outcome == "done", outcome


def test_unreadable_key_file(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    folder.mkdir()
    folder.chmod(0o711)  # nobody may open a file in it by name, and read what its mode allows
    path = folder / "key"
    keys.generate(path, "me")
    path.chmod(0)

    def check(key: Path) -> None:
        with pytest.raises(PermissionError):
            key.open("rb")  # this user truly cannot read it
        with refused(KeyProblem, "cannot read the key file"):
            keys.load_private(key)

    def ready() -> None:  # the same refusal's words, of a key file that is not there
        with refused(KeyProblem, "no key file"):
            keys.load_private(folder / "missing")

    without_root(folder, check, path, ready)


# --- generating ---------------------------------------------------------------------------------


def test_generate_makes_a_private_key_ssh_keygen_reads(tmp_path: Path) -> None:
    require_tool("ssh-keygen", WHY)
    path = tmp_path / "alice"
    line = keys.generate(path, "alice@example")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    public_file = Path(f"{path}.pub")
    assert public_file.read_text() == line + "\n"
    assert line.startswith("ssh-ed25519 AAAA") and line.endswith(" alice@example")

    derived = ssh_keygen("-y", "-f", path)
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.decode().split()[:2] == line.split()[:2]
    assert keygen_fingerprint(public_file) == keys.fingerprint(line)

    # ssh-keygen signs with the generated key, and we verify it
    message = b"orders: []\n"
    (tmp_path / "o.yaml").write_bytes(message)
    signed = ssh_keygen("-Y", "sign", "-n", sshsig.NAMESPACE, "-f", path, tmp_path / "o.yaml")
    assert signed.returncode == 0, signed.stderr
    armored = (tmp_path / "o.yaml.sig").read_bytes()
    assert sshsig.verify(message, armored, line).fingerprint == keys.fingerprint(line)
    assert armored == sshsig.sign(message, keys.load_private(path))


def test_generate_refuses_existing_files(tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_text("precious")
    with refused(KeyProblem, "already exists"):
        keys.generate(path, "me")
    assert path.read_text() == "precious"
    assert not Path(f"{path}.pub").exists()

    other = tmp_path / "other"
    Path(f"{other}.pub").write_text("precious")
    with refused(KeyProblem, r"other\.pub already exists"):
        keys.generate(other, "me")
    assert not other.exists()
    assert Path(f"{other}.pub").read_text() == "precious"

    fresh = tmp_path / "fresh"
    first = keys.generate(fresh, "me")
    with refused(KeyProblem, "already exists"):
        keys.generate(fresh, "me")
    assert Path(f"{fresh}.pub").read_text() == first + "\n"


def test_generate_refuses_a_multiline_comment(tmp_path: Path) -> None:
    with refused(KeyProblem, "single line"):
        keys.generate(tmp_path / "key", "a\nb")
    assert not (tmp_path / "key").exists()


def test_generate_in_a_missing_directory(tmp_path: Path) -> None:
    with refused(KeyProblem, "cannot create"):
        keys.generate(tmp_path / "nowhere" / "key", "me")


def test_generate_accepts_str_paths(tmp_path: Path) -> None:
    line = keys.generate(str(tmp_path / "k"), "me")
    assert keys.public_line(keys.load_private(str(tmp_path / "k")), "me") == line


# --- public key lines ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_parse_public_line(kind: str, key_dir: Path) -> None:
    require_tool("ssh-keygen", WHY)
    line = pub_line(key_dir / kind)
    blob = keys.parse_public_line(line)
    assert blob == base64.b64decode(line.split()[1])
    assert keys.parse_public_line(line.rsplit(" ", 1)[0]) == blob  # without comment
    assert keys.parse_public_line(f"  {line}  with more words\r\n") == blob
    assert keys.fingerprint(line) == keys.fingerprint(blob)
    assert keys.fingerprint(blob) == keygen_fingerprint(Path(f"{key_dir / kind}.pub"))


ED_LINE = keys.public_line(ed25519.Ed25519PrivateKey.from_private_bytes(bytes(32)), "x")
ED_DATA = ED_LINE.split()[1]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "not an OpenSSH public key line"),
        ("hello", "not an OpenSSH public key line"),
        ("alice " + ED_LINE, "not an OpenSSH public key line"),
        ("ssh-ed25519", "not an OpenSSH public key line"),
        ("ssh-ed25519 !!!!", "not valid base64"),
        ("ssh-ed25519 " + ED_DATA[:-4], "not valid base64|corrupt"),
        ("ssh-ed25519 " + ED_DATA[:40], "not valid base64|corrupt"),
        ("ssh-rsa " + ED_DATA, "says it is a 'ssh-ed25519' key but the line says 'ssh-rsa'"),
        ("ssh-dss AAAAB3NzaC1kc3M=", "DSA keys"),
        ("sk-ssh-ed25519@openssh.com AAAA", "security-key"),
        ("ssh-ed25519-cert-v01@openssh.com AAAA", "certificates"),
        ("ssh-ed448 AAAA", "unsupported key type 'ssh-ed448'"),
        (
            "ssh-ed25519 "
            + base64.b64encode(b"\0\0\0\x0bssh-ed25519\0\0\0\x10" + bytes(16)).decode(),
            "corrupt",
        ),
    ],
)
def test_bad_public_lines(line: str, reason: str) -> None:
    with refused(KeyProblem, reason):
        keys.parse_public_line(line)


def test_small_rsa_key_is_refused() -> None:
    # a 512-bit modulus, e = 65537 (cryptography cannot even make one, so build the blob)
    n = (1 << 511) | 0x1234567 | 1
    e = 65537
    blob = (
        b"\0\0\0\x07ssh-rsa"
        + (3).to_bytes(4, "big")
        + e.to_bytes(3, "big")
        + (65).to_bytes(4, "big")
        + b"\0"
        + n.to_bytes(64, "big")
    )
    with refused(KeyProblem, "too small"):
        keys.parse_public_line("ssh-rsa " + base64.b64encode(blob).decode())


def test_public_line_without_comment() -> None:
    key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(32))
    assert keys.public_line(key, "") == ED_LINE.rsplit(" ", 1)[0]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_property_parse_public_line_only_raises_key_problem(line: str) -> None:
    try:
        blob = keys.parse_public_line(line)
    except KeyProblem as problem:
        assert problem.reason
    else:
        assert keys.fingerprint(blob).startswith("SHA256:")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=120), st.sampled_from(keys.KEY_TYPES))
def test_property_arbitrary_key_data_only_raises_key_problem(data: bytes, kind: str) -> None:
    for blob in (data, b"\0\0\0" + bytes([len(kind)]) + kind.encode() + data):
        try:
            keys.parse_public_line(f"{kind} {base64.b64encode(blob).decode()} comment")
        except KeyProblem as problem:
            assert problem.reason
