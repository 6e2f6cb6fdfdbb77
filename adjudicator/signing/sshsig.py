"""OpenSSH signatures (SSHSIG, as made by ``ssh-keygen -Y sign``) over order files.

Only the SSHSIG envelope is encoded and decoded here (see OpenSSH's PROTOCOL.sshsig), and a
registered Ed25519 key line in its one canonical form (a fixed head and the key's 32 bytes);
every other key line is read by ``keys``, and all cryptography is done by the ``cryptography``
library. Layout of the binary signature::

    byte[6]  "SSHSIG"
    uint32   1 (version)
    string   publickey (SSH wire format)
    string   namespace
    string   reserved (empty)
    string   hash_algorithm ("sha512" or "sha256")
    string   signature (string algorithm, string signature bytes)

The key signs ``"SSHSIG" + string(namespace) + string(reserved) + string(hash_algorithm) +
string(H(message))``. The armored form is the base64 of the binary signature, wrapped at 70
columns, between ``-----BEGIN SSH SIGNATURE-----`` and ``-----END SSH SIGNATURE-----`` lines.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adjudicator.rules.contract import Msg, msg

if TYPE_CHECKING:  # cryptography loads when a signature is made or checked (`check` makes none)
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from adjudicator.signing.keys import PrivateKey, PublicKey

NAMESPACE = "adjudicator-orders"
ARMOR_BEGIN = b"-----BEGIN SSH SIGNATURE-----"
ARMOR_END = b"-----END SSH SIGNATURE-----"
MAGIC = b"SSHSIG"
VERSION = 1
#: Hash algorithms PROTOCOL.sshsig allows for the message digest.
HASH_ALGORITHMS: dict[str, Callable[[bytes], hashlib._Hash]] = {
    "sha512": hashlib.sha512,
    "sha256": hashlib.sha256,
}
#: Column at which ssh-keygen wraps the base64 of a signature.
WRAP = 70

_BOM = b"\xef\xbb\xbf"
_BARE_LF = re.compile(rb"(?<!\r)\n")
_RSA_SIGNATURE_HASHES = {"rsa-sha2-512": "SHA512", "rsa-sha2-256": "SHA256"}
_ECDSA_HASHES = {
    "ecdsa-sha2-nistp256": "SHA256",
    "ecdsa-sha2-nistp384": "SHA384",
    "ecdsa-sha2-nistp521": "SHA512",
}
"""The hash of each signature algorithm, by the name of its class in cryptography's ``hashes``."""
MISMATCH = msg("sig-mismatch")


class SignatureError(Exception):
    """A signature that cannot be accepted; ``reason`` tells a player why (its words are in
    texts/keys.yaml; a verdict gives it as ``bad-signature``'s ``why``)."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.code)
        self.reason = reason


# --- SSH wire encoding -------------------------------------------------------------------------


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _mpint(value: int) -> bytes:
    """A non-negative integer as an SSH mpint (big-endian, leading 0 byte if the top bit is set)."""
    if value < 0:
        raise ValueError("negative mpint")
    return _string(value.to_bytes((value.bit_length() + 8) // 8, "big") if value else b"")


class _Reader:
    """Reads SSH wire fields; every problem is a SignatureError naming ``what`` is being read."""

    def __init__(self, data: bytes, what: Msg) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    def take(self, count: int) -> bytes:
        if self.pos + count > len(self.data):
            raise SignatureError(msg("sig-truncated", what=self.what))
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def u32(self) -> int:
        value: int = struct.unpack(">I", self.take(4))[0]
        return value

    def string(self) -> bytes:
        return self.take(self.u32())

    def text(self, field: Msg) -> str:
        raw = self.string()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SignatureError(msg("sig-field-not-text", field=field, what=self.what)) from None

    def mpint(self) -> int:
        raw = self.string()
        if raw and raw[0] & 0x80:
            raise SignatureError(msg("sig-negative", what=self.what))
        return int.from_bytes(raw, "big")

    def end(self) -> None:
        extra = len(self.data) - self.pos
        if extra:
            raise SignatureError(msg("sig-trailing", what=self.what, extra=extra))


# --- the signature ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Signature:
    """A decoded SSHSIG signature."""

    public_key_blob: bytes
    namespace: str
    hash_algorithm: str
    signature_blob: bytes
    reserved: bytes = b""

    @property
    def fingerprint(self) -> str:
        """The signing key's fingerprint as ``ssh-keygen -l`` prints it ("SHA256:...")."""
        from adjudicator.signing import keys

        return keys.fingerprint(self.public_key_blob)

    @property
    def key_type(self) -> str:
        """The signing key's type name ("ssh-ed25519", "ssh-rsa", ...)."""
        reader = _Reader(self.public_key_blob, msg("sig-part-key"))
        return reader.text(msg("sig-field-key-type"))

    @property
    def signature_algorithm(self) -> str:
        """The algorithm of the inner signature ("ssh-ed25519", "rsa-sha2-512", ...)."""
        return _split_signature_blob(self.signature_blob)[0]

    def to_bytes(self) -> bytes:
        """The binary SSHSIG signature."""
        return (
            MAGIC
            + struct.pack(">I", VERSION)
            + _string(self.public_key_blob)
            + _string(self.namespace.encode("utf-8"))
            + _string(self.reserved)
            + _string(self.hash_algorithm.encode("ascii"))
            + _string(self.signature_blob)
        )

    def armored(self) -> bytes:
        """The armored signature, laid out exactly as ssh-keygen writes it."""
        return armor(self.to_bytes())


def armor(blob: bytes) -> bytes:
    """Armor a binary signature like ssh-keygen: base64 wrapped at 70 columns, final newline."""
    encoded = base64.b64encode(blob)
    lines = [encoded[i : i + WRAP] for i in range(0, len(encoded), WRAP)]
    return b"\n".join([ARMOR_BEGIN, *lines, ARMOR_END]) + b"\n"


def _split_signature_blob(blob: bytes) -> tuple[str, bytes]:
    """(algorithm, raw signature bytes) of an SSH signature blob."""
    reader = _Reader(blob, msg("sig-part-data"))
    algorithm = reader.string()
    raw = reader.string()
    reader.end()
    try:
        return algorithm.decode("ascii"), raw
    except UnicodeDecodeError:
        raise SignatureError(msg("sig-algorithm-not-text")) from None


def parse_blob(blob: bytes) -> Signature:
    """Decode a binary SSHSIG signature."""
    if not blob.startswith(MAGIC):
        raise SignatureError(msg("sig-no-magic"))
    reader = _Reader(blob, msg("sig-part-signature"))
    reader.take(len(MAGIC))
    version = reader.u32()
    if version != VERSION:
        raise SignatureError(msg("sig-version", version=version))
    public_key_blob = reader.string()
    namespace = reader.text(msg("sig-field-namespace"))
    reserved = reader.string()
    hash_algorithm = reader.text(msg("sig-field-hash"))
    signature_blob = reader.string()
    reader.end()
    if not public_key_blob:
        raise SignatureError(msg("sig-no-key"))
    _Reader(public_key_blob, msg("sig-part-key")).text(msg("sig-field-key-type"))
    _split_signature_blob(signature_blob)
    return Signature(public_key_blob, namespace, hash_algorithm, signature_blob, reserved)


def parse_armored(data: bytes) -> Signature:
    """Decode an armored signature (any line endings, surrounding whitespace or BOM allowed)."""
    text = data.strip()
    if text.startswith(_BOM):
        text = text[len(_BOM) :].strip()
    if not text.startswith(ARMOR_BEGIN):
        if ARMOR_BEGIN in text:
            raise SignatureError(msg("sig-text-before"))
        raise SignatureError(msg("sig-no-block"))
    lines = [line.strip() for line in text.splitlines()]
    if lines[0] != ARMOR_BEGIN:
        raise SignatureError(msg("sig-text-after-begin"))
    try:
        end = lines.index(ARMOR_END)
    except ValueError:
        raise SignatureError(msg("sig-cut-off")) from None
    if any(lines[end + 1 :]):
        raise SignatureError(msg("sig-text-after-end"))
    body = b"".join(lines[1:end])
    if not body:
        raise SignatureError(msg("sig-empty"))
    try:
        blob = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError(msg("sig-not-base64")) from None
    return parse_blob(blob)


# --- signing ------------------------------------------------------------------------------------


def _signed_data(namespace: str, reserved: bytes, hash_algorithm: str, message: bytes) -> bytes:
    digest = HASH_ALGORITHMS[hash_algorithm](message).digest()
    return (
        MAGIC
        + _string(namespace.encode("utf-8"))
        + _string(reserved)
        + _string(hash_algorithm.encode("ascii"))
        + _string(digest)
    )


def _hash(name: str) -> hashes.HashAlgorithm:
    from cryptography.hazmat.primitives import hashes

    algorithm: hashes.HashAlgorithm = getattr(hashes, name)()
    return algorithm


def sign(
    message: bytes,
    private_key: PrivateKey,
    namespace: str = NAMESPACE,
    hash_algorithm: str = "sha512",
) -> bytes:
    """The armored signature of ``message``, byte for byte as ``ssh-keygen -Y sign`` lays it out.

    Ed25519 keys sign with ssh-ed25519, RSA keys with rsa-sha2-512, ECDSA keys with the
    ecdsa-sha2-nistp* algorithm of their curve.
    """
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    from adjudicator.signing import keys

    if hash_algorithm not in HASH_ALGORITHMS:
        raise SignatureError(msg("sig-sign-hash", hash=hash_algorithm))
    if not namespace:
        raise SignatureError(msg("sig-no-namespace"))
    try:
        key_type = keys.key_type_name(private_key)
        public_key_blob = keys.public_blob(private_key)
    except keys.KeyProblem as exc:
        raise SignatureError(exc.reason) from None
    to_sign = _signed_data(namespace, b"", hash_algorithm, message)
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        algorithm, raw = key_type, private_key.sign(to_sign)
    elif isinstance(private_key, rsa.RSAPrivateKey):
        algorithm = "rsa-sha2-512"
        raw = private_key.sign(to_sign, padding.PKCS1v15(), _hash("SHA512"))
    elif isinstance(private_key, ec.EllipticCurvePrivateKey):
        algorithm = key_type
        der = private_key.sign(to_sign, ec.ECDSA(_hash(_ECDSA_HASHES[key_type])))
        r, s = decode_dss_signature(der)
        raw = _mpint(r) + _mpint(s)
    else:  # pragma: no cover - key_type_name refused it already
        raise SignatureError(msg("key-unsupported-class", type=type(private_key).__name__))
    signature_blob = _string(algorithm.encode("ascii")) + _string(raw)
    return Signature(public_key_blob, namespace, hash_algorithm, signature_blob).armored()


# --- verifying ----------------------------------------------------------------------------------


def _registered_key(public_key_line: str) -> tuple[bytes, PublicKey]:
    """A registered key's wire blob and key. An Ed25519 key in its canonical form is read
    without cryptography's serialization modules (a signed command's start need not load them);
    any other line is read in full, and refused, when it must be, with the reason."""
    blob = _ed25519_blob(public_key_line)
    if blob is not None:
        return blob, _ed25519_key(blob)
    from adjudicator.signing import keys

    try:
        return _read_key_line(public_key_line)
    except keys.KeyProblem as exc:
        raise SignatureError(msg("sig-registered-key", problem=exc.reason)) from None


def registered_blob(public_key_line: str) -> bytes:
    """The wire blob of a registered key line; SignatureError (``sig-registered-key``) when
    the line cannot be read."""
    return _registered_key(public_key_line)[0]


@functools.lru_cache(maxsize=64)
def _read_key_line(public_key_line: str) -> tuple[bytes, PublicKey]:
    """A registered key's wire blob and key, read once a process for each line: every order of
    its player is checked against it (a line refused is read again, and refused again)."""
    from adjudicator.signing import keys

    blob = keys.parse_public_line(public_key_line)
    return blob, keys.public_key_from_blob(blob)


@functools.lru_cache(maxsize=64)
def _ed25519_key(blob: bytes) -> ed25519.Ed25519PublicKey:
    """The key of a canonical Ed25519 wire blob (see ``_ed25519_blob``), made once a process."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(blob[len(_ED25519_HEAD) :])


_ED25519_HEAD = _string(b"ssh-ed25519") + struct.pack(">I", 32)
"""How the wire blob of every Ed25519 public key starts: its type, then its 32 bytes' length."""


def _ed25519_blob(line: str) -> bytes | None:
    """The wire blob of an Ed25519 key line in its one canonical form (the type, the base64 of
    the type and the key's 32 bytes, nothing more, then any comment); None for any other line,
    which ``keys.parse_public_line`` reads in full (and refuses, when it must, with the reason).
    """
    fields = line.strip().split(None, 2)
    if len(fields) < 2 or fields[0] != "ssh-ed25519":
        return None
    try:
        blob = base64.b64decode(fields[1], validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(blob) != len(_ED25519_HEAD) + 32 or not blob.startswith(_ED25519_HEAD):
        return None
    if base64.b64encode(blob) != fields[1].encode("ascii"):  # padding the blob has no need of
        return None
    return blob


def _check(
    signature: Signature, registered_blob: bytes, namespace: str, signer: str
) -> tuple[str, bytes]:
    """Everything but the cryptography: key, namespace, algorithms; returns (algorithm, raw)."""
    if signature.public_key_blob != registered_blob:
        from adjudicator.signing import keys

        made_with, registered = signature.fingerprint, keys.fingerprint(registered_blob)
        raise SignatureError(
            msg("sig-other-key-of", made_with=made_with, signer=signer, registered=registered)
            if signer
            else msg("sig-other-key", made_with=made_with, registered=registered)
        )
    if signature.namespace != namespace:
        raise SignatureError(msg("sig-namespace", given=signature.namespace, namespace=namespace))
    if signature.reserved:
        raise SignatureError(msg("sig-reserved"))
    if signature.hash_algorithm not in HASH_ALGORITHMS:
        raise SignatureError(msg("sig-hash", hash=signature.hash_algorithm))
    algorithm, raw = _split_signature_blob(signature.signature_blob)
    key_type = signature.key_type
    if algorithm == "ssh-rsa":
        raise SignatureError(msg("sig-ssh-rsa"))
    allowed = tuple(_RSA_SIGNATURE_HASHES) if key_type == "ssh-rsa" else (key_type,)
    if algorithm not in allowed:
        raise SignatureError(msg("sig-algorithm-mismatch", algorithm=algorithm, key_type=key_type))
    return algorithm, raw


def _ecdsa_der(raw: bytes) -> bytes | None:
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    try:
        reader = _Reader(raw, msg("sig-part-ecdsa"))
        r, s = reader.mpint(), reader.mpint()
        reader.end()
    except SignatureError:
        return None
    if r <= 0 or s <= 0:
        return None
    return encode_dss_signature(r, s)


def _valid(
    signature: Signature, algorithm: str, raw: bytes, key: PublicKey, message: bytes
) -> bool:
    """Whether the signature's cryptography checks out for exactly ``message``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric import ed25519

    signed = _signed_data(
        signature.namespace, signature.reserved, signature.hash_algorithm, message
    )
    try:
        if isinstance(key, ed25519.Ed25519PublicKey):
            if len(raw) != 64:
                return False
            key.verify(raw, signed)
            return True
        # the other key types' modules, loaded only for them
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

        if isinstance(key, rsa.RSAPublicKey):
            size = (key.key_size + 7) // 8
            if len(raw) > size:
                return False
            # OpenSSH accepts (and some signers make) signatures shorter than the modulus.
            padded = raw.rjust(size, b"\0")
            key.verify(padded, signed, padding.PKCS1v15(), _hash(_RSA_SIGNATURE_HASHES[algorithm]))
        else:
            der = _ecdsa_der(raw)
            if der is None:
                return False
            key.verify(der, signed, ec.ECDSA(_hash(_ECDSA_HASHES[algorithm])))
    except InvalidSignature:
        return False
    return True


def verify(
    message: bytes,
    armored: bytes,
    public_key_line: str,
    namespace: str = NAMESPACE,
    *,
    signer: str = "",
) -> Signature:
    """The signature, if it is valid for exactly ``message``, by that key, in that namespace.

    ``public_key_line`` is an OpenSSH public key line; ``signer`` (a player's name) only makes
    the reasons clearer. Raises SignatureError otherwise.
    """
    signature = parse_armored(armored)
    blob, key = _registered_key(public_key_line)
    algorithm, raw = _check(signature, blob, namespace, signer)
    if not _valid(signature, algorithm, raw, key, message):
        raise SignatureError(MISMATCH)
    return signature


def _with_crlf(data: bytes) -> bytes:
    return _BARE_LF.sub(b"\r\n", data)


def _with_lf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def variants(message: bytes) -> Iterator[bytes]:
    """The forms ``message`` may have had when it was signed, as received first, no repeats.

    As received, CRLF → LF, bare LF → CRLF, then the same three with a leading UTF-8 BOM removed.
    """
    bases = [message]
    if message.startswith(_BOM):
        bases.append(message[len(_BOM) :])
    seen: set[bytes] = set()
    for base in bases:
        for variant in (base, _with_lf(base), _with_crlf(base)):
            if variant not in seen:
                seen.add(variant)
                yield variant


def verify_variants(
    message: bytes,
    armored: bytes,
    public_key_line: str,
    namespace: str = NAMESPACE,
    *,
    signer: str = "",
) -> bytes:
    """The bytes as signed: ``message`` or the first of its line-ending/BOM variants that verifies.

    Each variant is verified exactly; if none does, raises the as-received attempt's error.
    """
    signature = parse_armored(armored)
    blob, key = _registered_key(public_key_line)
    # Key, namespace and algorithms do not depend on the message: a mismatch there is reported
    # as such, exactly as the as-received attempt would.
    algorithm, raw = _check(signature, blob, namespace, signer)
    for variant in variants(message):
        if _valid(signature, algorithm, raw, key, variant):
            return variant
    raise SignatureError(MISMATCH)


# --- files with the signature appended ---------------------------------------------------------


def split_appended(data: bytes) -> tuple[bytes, bytes] | None:
    """(signed bytes, armored signature) of a file ending in a signature block, else None.

    The signature starts at the last line that starts with ``-----BEGIN SSH SIGNATURE-----``;
    the signed bytes are everything before that line, final newline included.
    """
    position = len(data)
    while True:  # linear: each step looks back from the last BEGIN text, copying nothing
        position = data.rfind(ARMOR_BEGIN, 0, position)
        if position < 0:
            return None
        at_line_start = position == 0 or data[position - 1] in b"\r\n"
        if at_line_start or (position == len(_BOM) and data.startswith(_BOM)):
            return data[:position], data[position:]


def looks_armored(data: bytes) -> bool:
    """Whether ``data`` (after optional whitespace and BOM) starts with the BEGIN line."""
    text = data.lstrip()
    if text.startswith(_BOM):
        text = text[len(_BOM) :].lstrip()
    return text.startswith(ARMOR_BEGIN)
