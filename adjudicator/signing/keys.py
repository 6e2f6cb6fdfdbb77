"""Players' SSH keys: generate, load private keys, read OpenSSH public key lines.

All cryptography and key (de)serialisation is done by the ``cryptography`` library; this module
only adds clear error reasons and the few checks the adjudicator needs (supported key types,
key files created private from the start). A registered Ed25519 key line in its canonical form
is read by ``sshsig`` without this module (a signed order's check need not load the library's
serialization modules); any other line, and any line it refuses, is read here.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import struct
from collections.abc import Callable
from typing import TypeAlias, TypeGuard

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_ssh_private_key,
    load_ssh_public_key,
)

from adjudicator.rules.contract import Msg, msg
from adjudicator.store.readfile import FileRefused, read_regular

PrivateKey: TypeAlias = ed25519.Ed25519PrivateKey | rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKey: TypeAlias = ed25519.Ed25519PublicKey | rsa.RSAPublicKey | ec.EllipticCurvePublicKey
StrPath: TypeAlias = str | os.PathLike[str]
_PUBLIC_CLASSES = (ed25519.Ed25519PublicKey, rsa.RSAPublicKey, ec.EllipticCurvePublicKey)
_PRIVATE_CLASSES = (ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)

#: OpenSSH key type names we accept, and the curve of each ECDSA type.
KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
)
ECDSA_CURVES: dict[str, type[ec.EllipticCurve]] = {
    "ecdsa-sha2-nistp256": ec.SECP256R1,
    "ecdsa-sha2-nistp384": ec.SECP384R1,
    "ecdsa-sha2-nistp521": ec.SECP521R1,
}
#: A private key file is a few KiB at most (an RSA key of 16384 bits: about 12.5 KiB).
MAX_PRIVATE_KEY_BYTES = 64 * 1024
MAX_PUBLIC_KEY_BYTES = 16 * 1024
"""A public key line is under 1 KiB (an RSA key of 16384 bits: about 2.8 KiB)."""
#: OpenSSH refuses RSA keys below this size (SSH_RSA_MINIMUM_MODULUS_SIZE).
RSA_MINIMUM_BITS = 1024

_OPENSSH_BEGIN = b"-----BEGIN OPENSSH PRIVATE KEY-----"


class KeyProblem(Exception):
    """A key that cannot be used; ``reason`` tells a player why (words in texts/keys.yaml)."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.code)
        self.reason = reason


class PassphraseNeeded(KeyProblem):
    """The private key is encrypted and no passphrase was given."""


def key_type_name(key: PrivateKey | PublicKey) -> str:
    """The OpenSSH key type name of a key ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256"...)."""
    if isinstance(key, ed25519.Ed25519PrivateKey | ed25519.Ed25519PublicKey):
        return "ssh-ed25519"
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return "ssh-rsa"
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey):
        for name, curve in ECDSA_CURVES.items():
            if isinstance(key.curve, curve):
                return name
        raise KeyProblem(msg("key-unsupported-curve", curve=key.curve.name))
    raise KeyProblem(msg("key-unsupported-class", type=type(key).__name__))


def public_blob(key: PrivateKey | PublicKey) -> bytes:
    """The SSH wire-format blob of a key's public half."""
    public = key if isinstance(key, _PUBLIC_CLASSES) else key.public_key()
    line = public.public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH)
    return base64.b64decode(line.split()[1])


def _is_public(key: object) -> TypeGuard[PublicKey]:
    return isinstance(key, _PUBLIC_CLASSES)


def public_line(private_key: PrivateKey, comment: str) -> str:
    """The OpenSSH public key line of ``private_key``: "ssh-ed25519 AAAA... comment"."""
    _check_comment(comment)
    key_type = key_type_name(private_key)
    encoded = base64.b64encode(public_blob(private_key)).decode("ascii")
    return f"{key_type} {encoded} {comment}" if comment else f"{key_type} {encoded}"


def _check_comment(comment: str) -> None:
    if "\n" in comment or "\r" in comment:
        raise KeyProblem(msg("key-comment-lines"))


def fingerprint(line_or_blob: str | bytes) -> str:
    """The SHA256 fingerprint as ``ssh-keygen -l`` prints it, of a public key line or wire blob."""
    blob = parse_public_line(line_or_blob) if isinstance(line_or_blob, str) else line_or_blob
    digest = hashlib.sha256(blob).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def fingerprint_of(line: object) -> str | None:
    """The fingerprint of a public key line kept in a game (a journal's, a game file's), or
    None when it is none."""
    try:
        return fingerprint(str(line))
    except KeyProblem:
        return None


def _blob_type(blob: bytes) -> str | None:
    """The key type string that starts a wire blob, or None if the blob doesn't start with one."""
    if len(blob) < 4:
        return None
    (length,) = struct.unpack(">I", blob[:4])
    if len(blob) < 4 + length:
        return None
    try:
        return blob[4 : 4 + length].decode("ascii")
    except UnicodeDecodeError:
        return None


def bare(line: str) -> str:
    """An OpenSSH public key line without its comment (``ssh-ed25519 AAAA...``): the comment
    is any text (often an address), and says nothing of the key."""
    return " ".join(line.strip().split(None, 2)[:2])


def parse_public_line(line: str) -> bytes:
    """The key's wire blob from an OpenSSH public key line ("ssh-ed25519 AAAA... comment")."""
    fields = line.strip().split(None, 2)
    if len(fields) < 2:
        raise KeyProblem(msg("key-not-a-line"))
    key_type, encoded = fields[0], fields[1]
    if key_type not in KEY_TYPES:
        raise KeyProblem(_unsupported_type_reason(key_type))
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise KeyProblem(msg("key-not-base64", key_type=key_type)) from None
    inner = _blob_type(blob)
    if inner != key_type:
        raise KeyProblem(
            msg("key-type-mismatch", inner=inner, key_type=key_type)
            if inner
            else msg("key-data-corrupt", key_type=key_type)
        )
    try:
        key = load_ssh_public_key(key_type.encode("ascii") + b" " + encoded.encode("ascii"))
    except (ValueError, UnsupportedAlgorithm):
        raise KeyProblem(msg("key-data-corrupt", key_type=key_type)) from None
    if isinstance(key, rsa.RSAPublicKey) and key.key_size < RSA_MINIMUM_BITS:
        raise KeyProblem(msg("key-rsa-too-small", bits=key.key_size, minimum=RSA_MINIMUM_BITS))
    if not _is_public(key) or public_blob(key) != blob:
        raise KeyProblem(msg("key-not-canonical", key_type=key_type))
    return blob


def _unsupported_type_reason(key_type: str) -> Msg:
    if key_type.startswith(("sk-", "sk-ssh-")) or "@openssh.com" in key_type:
        if "-cert-" in key_type:
            return msg("key-certificate", key_type=key_type)
        return msg("key-security-key", key_type=key_type)
    if key_type == "ssh-dss":
        return msg("key-dsa")
    if key_type.startswith(("ssh-", "ecdsa-")):
        return msg("key-unsupported-type", key_type=key_type)
    return msg("key-not-a-line")


def public_key_from_blob(blob: bytes) -> PublicKey:
    """The ``cryptography`` public key object of a wire blob (of a supported key type)."""
    key_type = _blob_type(blob)
    if key_type not in KEY_TYPES:
        raise KeyProblem(_unsupported_type_reason(key_type or "?"))
    line = key_type.encode("ascii") + b" " + base64.b64encode(blob)
    try:
        key = load_ssh_public_key(line)
    except (ValueError, UnsupportedAlgorithm):
        raise KeyProblem(msg("key-blob-corrupt", key_type=key_type)) from None
    if not _is_public(key):  # pragma: no cover - excluded by KEY_TYPES
        raise KeyProblem(msg("key-unsupported-blob", key_type=key_type))
    return key


def generate(path: StrPath, comment: str) -> str:
    """Make a new Ed25519 key in ``path`` (private, mode 600) and ``path``.pub.

    Returns the public line; refuses to overwrite either file.
    """
    _check_comment(comment)
    private_path = os.fspath(path)
    public_path = private_path + ".pub"
    for existing in (private_path, public_path):
        if os.path.lexists(existing):
            raise KeyProblem(msg("key-exists", path=existing))
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption())
    line = public_line(key, comment)
    _write_new(private_path, pem, 0o600)
    try:
        _write_new(public_path, (line + "\n").encode("utf-8"), 0o644)
    except KeyProblem:
        with contextlib.suppress(OSError):
            os.unlink(private_path)
        raise
    return line


def _write_new(path: str, data: bytes, mode: int) -> None:
    """Create ``path`` (never an existing file) with ``mode`` from the start and write ``data``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyProblem(msg("key-exists", path=path)) from None
    except OSError as exc:
        raise KeyProblem(msg("key-cannot-create", path=path, error=exc.strerror)) from None
    try:
        os.fchmod(fd, mode)  # the umask may have removed bits; never adds any to 0o600
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    except OSError as exc:
        raise KeyProblem(msg("key-cannot-write", path=path, error=exc.strerror)) from None


def _key_file(name: str, cap: int) -> bytes:
    """The bytes of the key file ``name`` (at most ``cap``); KeyProblem saying why not."""
    try:
        return read_regular(name, cap)
    except FileRefused as error:
        if error.missing:
            raise KeyProblem(msg("key-file-missing", path=name)) from None
        if os.path.isdir(name):
            raise KeyProblem(msg("key-file-folder", path=name)) from None
        raise KeyProblem(msg("key-file-unreadable", why=error.why)) from None


def load_public(path: StrPath) -> str:
    """The public key line in ``path`` (a ``.pub`` file as ``ssh-keygen`` writes it), checked."""
    data = _key_file(os.fspath(path), MAX_PUBLIC_KEY_BYTES)
    line = data.decode("utf-8", errors="replace").strip()
    parse_public_line(line)
    return line


def load_private(path: StrPath, passphrase: bytes | None = None) -> PrivateKey:
    """The private key in ``path`` (OpenSSH or PEM format, possibly passphrase-protected)."""
    name = os.fspath(path)
    data = _key_file(name, MAX_PRIVATE_KEY_BYTES)
    stripped = data.lstrip()
    loader: Callable[[bytes, bytes | None], object]
    if stripped.startswith(_OPENSSH_BEGIN):
        loader = load_ssh_private_key
    elif stripped.startswith(b"-----BEGIN ") and b"PRIVATE KEY-----" in stripped:
        loader = load_pem_private_key
    elif stripped.startswith((b"ssh-", b"ecdsa-", b"sk-")):
        raise KeyProblem(msg("key-file-public", path=name))
    else:
        raise KeyProblem(msg("key-file-not-private", path=name))

    try:
        # Without a password, an encrypted key raises TypeError before any decryption.
        key = loader(data, None)
    except TypeError:
        if passphrase is None:
            raise PassphraseNeeded(msg("key-passphrase-needed", path=name)) from None
        try:
            key = loader(data, passphrase)
        except (ValueError, TypeError):
            raise KeyProblem(msg("key-wrong-passphrase", path=name)) from None
        except UnsupportedAlgorithm as exc:
            raise KeyProblem(msg("key-file-algorithm", path=name, error=str(exc))) from None
    except ValueError:
        raise KeyProblem(msg("key-file-invalid", path=name)) from None
    except UnsupportedAlgorithm as exc:
        raise KeyProblem(msg("key-file-algorithm", path=name, error=str(exc))) from None

    if isinstance(key, dsa.DSAPrivateKey):
        raise KeyProblem(msg("key-file-dsa", path=name))
    if not isinstance(key, _PRIVATE_CLASSES):
        raise KeyProblem(msg("key-file-type", path=name, type=type(key).__name__))
    try:
        key_type_name(key)
    except KeyProblem as exc:
        raise KeyProblem(msg("key-file-problem", path=name, problem=exc.reason)) from None
    if isinstance(key, rsa.RSAPrivateKey) and key.key_size < RSA_MINIMUM_BITS:
        raise KeyProblem(msg("key-file-rsa-too-small", path=name, bits=key.key_size))
    return key
