"""A script of this folder (graphql-ws, Apollo Client) run by node against a served gateway,
in the test's own event loop: the JSON lines it prints, read one at a time with a bound.
Installed by `make` (npm ci); without node the tests skip, saying why, except in CI."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import pytest

FOLDER = Path(__file__).parent
#: Generous for a loaded 2-core machine: node starts and loads Apollo Client within this.
LINE_SECONDS = 30.0


def require_node() -> None:
    """Skips the test when node is absent (fails it in CI); raises when the packages are not
    installed (`make` installs them)."""
    if shutil.which("node") is None:
        reason = "node is not on PATH: the real-client tests (tests/ws_clients) run on it"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    if not (FOLDER / "node_modules" / "graphql-ws").is_dir():
        raise RuntimeError("the clients are not installed: run `make` (npm ci in tests/ws_clients)")


class NodeClient:
    def __init__(self, process: asyncio.subprocess.Process, stderr: IO[bytes]) -> None:
        self._process = process
        self._stderr = stderr

    async def line(self, within: float = LINE_SECONDS) -> dict[str, Any]:
        """The next JSON line the client printed."""
        assert self._process.stdout is not None
        try:
            text = await asyncio.wait_for(self._process.stdout.readline(), within)
        except TimeoutError:
            raise AssertionError(f"no line from the client in {within} s{self._errors()}") from None
        if not text:
            raise AssertionError(f"the client ended without a line{self._errors()}")
        line: dict[str, Any] = json.loads(text)
        return line

    def _errors(self) -> str:
        self._stderr.seek(0)
        written = self._stderr.read().decode(errors="replace").strip()
        return f"; it wrote: {written}" if written else ""

    async def stop(self) -> None:
        """Closing stdin ends the client (it disposes of its socket); killed after 10 s."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            await asyncio.wait_for(self._process.wait(), 10)
        except TimeoutError:
            self._process.kill()
            await self._process.wait()


@asynccontextmanager
async def node_client(script: str, **arguments: Any) -> AsyncIterator[NodeClient]:
    """`node <script> <arguments as JSON>` in this folder, stopped when the block ends."""
    require_node()
    # A file, not a pipe: nothing node logs can fill a buffer and stall it.
    with tempfile.TemporaryFile() as stderr:
        process = await asyncio.create_subprocess_exec(
            "node",
            script,
            json.dumps(arguments),
            cwd=FOLDER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        client = NodeClient(process, stderr)
        try:
            yield client
        finally:
            await client.stop()
