"""OpenSSH's ssh-keygen for the tests: real keys and real signatures."""

from __future__ import annotations

import subprocess
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
    """A new key made by ssh-keygen (Ed25519 unless ``type_args`` say otherwise)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    kind = type_args if type_args is not None else ["-t", "ed25519"]
    done = ssh_keygen(*kind, "-q", "-N", passphrase, "-C", f"{name}@test", "-f", path)
    assert done.returncode == 0, done.stderr
    return path


def pub_line(key: Path) -> str:
    return Path(f"{key}.pub").read_text().strip()


def ssh_sign(key: Path, file: Path) -> Path:
    """Sign ``file`` with ``ssh-keygen -Y sign``; returns FILE.sig."""
    done = ssh_keygen("-q", "-Y", "sign", "-n", "adjudicator-orders", "-f", key, file)
    assert done.returncode == 0, done.stderr
    return file.with_name(file.name + ".sig")
