"""A package as a user installs it: its wheel built and unpacked into a folder that goes on
``sys.path`` (or ``PYTHONPATH``), which is all that installing it would do; nothing is
installed into the environment the tests run in."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


def unpacked_wheel(source: Path, work: Path) -> tuple[Path, list[str]]:
    """The wheel of the package in ``source`` (copied into ``work`` first, caches left out),
    unpacked into ``work/site``; that folder and the names the wheel holds."""
    copy = work / "source"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(copy), "--no-deps", "-q", "-w", str(work)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = work.glob("*.whl")
    site = work / "site"
    with zipfile.ZipFile(wheel) as opened:
        names = opened.namelist()
        opened.extractall(site)
    return site, names
