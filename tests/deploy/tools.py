"""The deploy tests' outside tools (kubectl, promtool, prometheus): a missing one skips its
tests locally, saying why, and fails them in CI (`make test` installs them: support/bootstrap)."""

from __future__ import annotations

import os
import shutil

import pytest


def require(tool: str, hint: str) -> str:
    """The tool's path; skips (locally) or fails (CI=true) when it is not installed."""
    path = shutil.which(tool)
    if path is None:
        reason = f"{tool} is not installed ({hint})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path
