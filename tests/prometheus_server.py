"""Debian's `prometheus` on a free 127.0.0.1 port, scraping one target every second into a
temporary TSDB, for the `insight-gateway usage` test of its query-API path (`.ci/run`
installs the package when it is missing)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.redis_server import free_port

STARTUP_SECONDS = 30.0


class PrometheusServer:
    """`with PrometheusServer("127.0.0.1:8000") as prometheus:` scrapes that target's /metrics."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.port = free_port()
        self._folder = tempfile.TemporaryDirectory(prefix="prometheus-")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def query_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1/query"

    def __enter__(self) -> PrometheusServer:
        executable = shutil.which("prometheus")
        if executable is None:
            raise RuntimeError("prometheus is not installed: apt-get install prometheus")
        folder = Path(self._folder.name)
        config = folder / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n  - job_name: gateway\n"
            f"    static_configs:\n      - targets: ['{self.target}']\n"
        )
        self._process = subprocess.Popen(
            [
                executable,
                f"--config.file={config}",
                f"--storage.tsdb.path={folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.wait_for(lambda answer: answer.get("status") == "success", "up")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
            self._process = None
        self._folder.cleanup()

    def query(self, expression: str) -> dict[str, Any]:
        url = f"{self.query_url}?{urllib.parse.urlencode({'query': expression})}"
        with urllib.request.urlopen(url, timeout=5) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def wait_for(
        self, ready: Callable[[dict[str, Any]], bool], expression: str, seconds: float = 30.0
    ) -> dict[str, Any]:
        """Query `expression` until `ready` says its answer will do (bounded in time)."""
        deadline = time.monotonic() + seconds
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError("prometheus exited")
            try:
                answer = self.query(expression)
                if ready(answer):
                    return answer
            except OSError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"prometheus had no answer to {expression!r} in {seconds} s")
            time.sleep(0.2)
