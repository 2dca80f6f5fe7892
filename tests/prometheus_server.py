"""Debian's `prometheus` on a free 127.0.0.1 port, scraping its targets every second into a
temporary TSDB, with rule files if given: for the `insight-gateway usage` test of its query-API
path and for the live test of the rules and the dashboard (`make test` installs the package when
it is missing)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from support.processes import free_port, stop, wait_until_answered

STARTUP_SECONDS = 30.0


class PrometheusServer:
    """`with PrometheusServer("127.0.0.1:8000") as prometheus:` scrapes that target's /metrics
    (or every one of a list of targets, under one job), evaluating `rules` every second."""

    def __init__(
        self, targets: str | Sequence[str], *, job: str = "gateway", rules: Sequence[Path] = ()
    ) -> None:
        self.targets = [targets] if isinstance(targets, str) else list(targets)
        self.job = job
        self.rules = [str(path) for path in rules]
        self.port = free_port()
        self._folder = tempfile.TemporaryDirectory(prefix="prometheus-")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def query_url(self) -> str:
        return f"{self.url}/api/v1/query"

    def __enter__(self) -> PrometheusServer:
        executable = shutil.which("prometheus")
        if executable is None:
            raise RuntimeError("prometheus is not installed: apt-get install prometheus")
        folder = Path(self._folder.name)
        config = {
            "global": {
                "scrape_interval": "1s",
                "scrape_timeout": "1s",
                "evaluation_interval": "1s",
            },
            "rule_files": self.rules,
            "scrape_configs": [
                {"job_name": self.job, "static_configs": [{"targets": self.targets}]}
            ],
        }
        (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
        log = folder / "prometheus.log"
        with log.open("wb") as output:
            self._process = subprocess.Popen(
                [
                    executable,
                    f"--config.file={folder / 'prometheus.yml'}",
                    f"--storage.tsdb.path={folder / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--log.level=warn",
                ],
                stdout=output,
                stderr=output,
            )
        try:
            wait_until_answered(
                f"{self.url}/-/ready",
                self._process,
                seconds=STARTUP_SECONDS,
                output=lambda: log.read_text()[-2000:],
            )
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._process is not None:
            stop(self._process)
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
