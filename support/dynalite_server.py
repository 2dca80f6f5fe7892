"""dynalite (npm), a second and independent DynamoDB implementation, as a node process on
a free 127.0.0.1 port. Installed by `make` into tests/dynalite (package-lock.json)."""

from __future__ import annotations

import select
import subprocess
import time
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "dynalite"
STARTUP_SECONDS = 20.0


class DynaliteServer:
    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if not (FOLDER / "node_modules" / "dynalite").is_dir():
            raise RuntimeError("dynalite is not installed: run `make` (npm ci in tests/dynalite)")
        self._process = subprocess.Popen(
            ["node", "serve.js"], cwd=FOLDER, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], STARTUP_SECONDS)
        line = self._process.stdout.readline() if ready else b""
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError("dynalite did not start")
        self.port = int(line)

    def stop(self) -> None:
        if self._process is None:
            return
        assert self._process.stdin is not None
        self._process.stdin.close()
        deadline = time.monotonic() + 5
        while self._process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        assert self._process.stdout is not None
        self._process.stdout.close()
        self._process = None
