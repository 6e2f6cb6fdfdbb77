"""keygen and sign from the command line, checked against the real ssh-keygen."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from tests.helpers import Table, run
from tests.ssh import make_key, ssh_keygen


def verify_with_ssh_keygen(
    pub: Path, file: Path, who: str = "alice"
) -> subprocess.CompletedProcess[bytes]:
    kind, blob = pub.read_text().split()[:2]
    signers = file.parent / "allowed_signers"
    signers.write_text(f"{who} {kind} {blob}\n")
    return ssh_keygen(
        "-Y",
        "verify",
        "-f",
        signers,
        "-I",
        who,
        "-n",
        "adjudicator-orders",
        "-s",
        f"{file}.sig",
        stdin=file.read_bytes(),
    )


def test_keygen_then_sign_verifies_with_ssh_keygen(tmp_path: Path) -> None:
    key = tmp_path / "alice"
    result = run("keygen", key, "--comment", "alice@laptop")
    assert result.exit_code == 0
    assert result.output.startswith("ssh-ed25519 ")
    assert result.output.rstrip().endswith(" alice@laptop")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert Path(f"{key}.pub").read_text() == result.output
    order = tmp_path / "order.yaml"
    order.write_text("id: g\nplayer: alice\nturn: 1\nreturn: white\n")
    result = run("sign", order, "--key", key)
    assert result.exit_code == 0
    assert result.output == f"{order}.sig: signed\n"
    assert verify_with_ssh_keygen(Path(f"{key}.pub"), order).returncode == 0


def test_keygen_refuses_to_overwrite(tmp_path: Path) -> None:
    key = tmp_path / "alice"
    assert run("keygen", key).exit_code == 0
    before = key.read_bytes()
    result = run("keygen", key)
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: {key}: ")
    assert key.read_bytes() == before


def test_sign_prompts_for_the_passphrase(tmp_path: Path) -> None:
    key = make_key(tmp_path, "alice", passphrase="open sesame")
    order = tmp_path / "order.yaml"
    order.write_text("id: g\nplayer: alice\nturn: 1\nreturn: white\n")
    result = run("sign", order, "--key", key, input="open sesame\n")
    assert result.exit_code == 0, result.output
    assert f"Passphrase for {key}" in result.output
    assert verify_with_ssh_keygen(Path(f"{key}.pub"), order).returncode == 0
    result = run("sign", order, "--key", key, input="wrong\n")
    assert result.exit_code == 2
    assert "wrong passphrase" in result.output


def test_sign_a_missing_file(tmp_path: Path) -> None:
    key = make_key(tmp_path, "alice")
    result = run("sign", tmp_path / "nothing.yaml", "--key", key)
    assert result.exit_code == 2
    assert result.output == (
        f"Error: {tmp_path / 'nothing.yaml'}: cannot read the order file (there is no such file)\n"
    )


def test_orders_signed_by_adjudicator_sign_are_accepted(tmp_path: Path) -> None:
    table = Table(tmp_path)
    (player,) = table.status()["owed"]
    path = table.write("mine.yaml", table.order_text(player, table.legal(player)))
    assert run("sign", path, "--key", table.keys[player]).exit_code == 0
    result = run("submit", table.gamedir, path)
    assert result.output == f"{path}: accepted ({player}, turn 1)\n"
