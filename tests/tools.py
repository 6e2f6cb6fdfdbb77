"""System tools the tests use: skipped with the reason outside CI, a failure under CI (CI=true)."""

from __future__ import annotations

import os
import shutil

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_tool(name: str, why: str) -> str:
    """The path of system tool ``name``; skip (outside CI) or fail (under CI) when it is missing."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed ({why}); .ci/run installs it"
        if under_ci():
            pytest.fail(message)
        pytest.skip(message)
    return path
