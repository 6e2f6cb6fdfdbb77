"""OpenSSH's ssh-keygen for the tests: real keys and real signatures."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.tools import require_tool

WHY = "OpenSSH keys and signatures"


def ssh_keygen(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ssh-keygen with ``args`` (skipped outside CI, failed under CI, when it is missing)."""
    tool = require_tool("ssh-keygen", WHY)
    return subprocess.run(
        [tool, *map(str, args)], input=stdin, capture_output=True, check=False, timeout=60
    )


def make_key(
    directory: Path, name: str, type_args: list[str] | None = None, passphrase: str = ""
) -> Path:
    """A key made by ssh-keygen (Ed25519 unless ``type_args`` say otherwise). An Ed25519 key
    without a passphrase comes from this process's keys made before (:func:`_made`): each test
    gets a key of its own for each time it asks for one of a name, as ssh-keygen made it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if type_args is None and not passphrase:
        made = _made(name)
        for suffix in ("", ".pub"):
            data = Path(f"{made}{suffix}").read_bytes()
            target = Path(f"{path}{suffix}")
            target.unlink(missing_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        return path
    kind = type_args if type_args is not None else ["-t", "ed25519"]
    done = ssh_keygen(*kind, "-q", "-N", passphrase, "-C", f"{name}@test", "-f", path)
    assert done.returncode == 0, done.stderr
    return path


_KEYS: dict[tuple[str, int], Path] = {}
"""The keys ssh-keygen made in this process, by name and by how many of that name a test
asked for before."""
_ASKED: dict[tuple[str, str], int] = {}
_FOLDER: list[Path] = []


_TEMP_AT_START = tempfile.gettempdir()


def _made(name: str) -> Path:
    """The key ``name`` of this test's n-th asking for that name, made by ssh-keygen once in
    this process: ssh-keygen's time (about 10 ms a key) counts, across the suite, in tens of
    seconds; one test's keys stay distinct from each other as they were."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    asked = _ASKED.get((test, name), 0)
    _ASKED[(test, name)] = asked + 1
    made = _KEYS.get((name, asked))
    if made is None:
        if not _FOLDER:
            # not in the temporary folder a test may have made its own (and removes with it)
            home = os.environ.get("TMPDIR") or _TEMP_AT_START
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="adjudicator-test-keys-", dir=home)))
            atexit.register(shutil.rmtree, _FOLDER[0], True)
        made = _FOLDER[0] / f"{name}-{asked}"
        done = ssh_keygen("-t", "ed25519", "-q", "-N", "", "-C", f"{name}@test", "-f", made)
        assert done.returncode == 0, done.stderr
        _KEYS[(name, asked)] = made
    return made


def pub_line(key: Path) -> str:
    return Path(f"{key}.pub").read_text().strip()


def ssh_sign(key: Path, file: Path) -> Path:
    """Sign ``file`` with ``ssh-keygen -Y sign``; returns FILE.sig. The same bytes signed with
    the same key again in this process get the signature ssh-keygen made for them then (a
    signature of those bytes by that key, as valid as a new one; about 9 ms saved each)."""
    signature = file.with_name(file.name + ".sig")
    if signature.exists():  # ssh-keygen overwrites no signature: left to it, as it always was
        _ssh_sign(key, file)
        return signature
    asked = (Path(key).read_bytes(), file.read_bytes())
    made = _SIGNED.get(asked)
    if made is None:
        _ssh_sign(key, file)
        made = _SIGNED[asked] = signature.read_bytes()
    else:
        signature.write_bytes(made)
    return signature


def _ssh_sign(key: Path, file: Path) -> None:
    done = ssh_keygen("-q", "-Y", "sign", "-n", "adjudicator-orders", "-f", key, file)
    assert done.returncode == 0, done.stderr


_SIGNED: dict[tuple[bytes, bytes], bytes] = {}
"""The signatures ssh-keygen made in this process, by private key and signed bytes."""
