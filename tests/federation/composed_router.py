"""The composed graph of tests/federation/router.js (Apollo's composition and gateway, and a
second subgraph), as a node process on 127.0.0.1. Installed by `make` (npm ci)."""

from __future__ import annotations

import json
import select
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

FOLDER = Path(__file__).parent
STARTUP_SECONDS = 60.0


class ComposedRouter:
    """`node router.js`: composes the insight subgraph's SDL with the accounts subgraph, whose
    `teams` (name: member ids) it serves as `User` references, and routes to both."""

    def __init__(self, insight_url: str, insight_sdl: Path, teams: dict[str, list[str]]) -> None:
        self._arguments = [insight_url, str(insight_sdl), json.dumps(teams)]
        self._process: subprocess.Popen[bytes] | None = None
        self._files = ExitStack()
        self.url = ""

    def __enter__(self) -> ComposedRouter:
        if not (FOLDER / "node_modules" / "@apollo" / "gateway").is_dir():
            raise RuntimeError("Apollo's packages are not installed: run `make` (npm ci)")
        # A file, not a pipe: nothing the router logs can fill a buffer and stall it.
        self._stderr = self._files.enter_context(tempfile.TemporaryFile())
        self._process = subprocess.Popen(
            ["node", "router.js", *self._arguments],
            cwd=FOLDER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.url = self._read_url()
        return self

    def _read_url(self) -> str:
        """The router's address, from the first line of its stdout that is JSON."""
        assert self._process is not None
        assert self._process.stdout is not None
        deadline = time.monotonic() + STARTUP_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self._process.stdout], [], [], left)
            line = self._process.stdout.readline() if ready else b""
            if line.startswith(b"{"):
                return str(json.loads(line)["router"])
            if not line:
                break
        error = self._stop()
        raise RuntimeError(f"the composed router did not start: {error}")

    def __exit__(self, *_: object) -> None:
        self._stop()

    def _stop(self) -> str:
        """Ends the process (closing its stdin ends it); returns what it wrote to stderr."""
        process, self._process = self._process, None
        if process is None:
            self._files.close()
            return ""
        assert process.stdin is not None
        process.stdin.close()
        deadline = time.monotonic() + 5
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()
        self._stderr.seek(0)
        error = self._stderr.read().decode(errors="replace")
        self._files.close()
        return error
