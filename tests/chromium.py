"""Debian's headless Chromium, as the browser tests drive it through Playwright: its path,
its flags (nothing fetched from elsewhere, no sandbox in a container), and the skip when it
is not installed."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
requires_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)
