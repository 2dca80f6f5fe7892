"""moto's server as a process of the run's own on a free 127.0.0.1 port: the DynamoDB (and
DynamoDB Streams) of the live phase. dynalite has no streams; an in-process moto would share
the driver's interpreter, so its answers would wait on the driver's thousand sockets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.processes import free_port, stop, wait_until_answered

STARTUP_SECONDS = 30.0


class MotoServer:
    def __init__(self, log: Path | None = None) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._log = log
        self.port = 0

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        code = "import sys; from moto.server import main; main(sys.argv[1:])"
        output = self._log.open("wb") if self._log else subprocess.DEVNULL
        self._process = subprocess.Popen(
            [sys.executable, "-c", code, "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=output,
            stderr=output,
        )
        try:
            # Any answer, whatever its status, means it is up.
            wait_until_answered(
                self.endpoint_url + "/moto-api/",
                self._process,
                seconds=STARTUP_SECONDS,
                ready=lambda _: True,
            )
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        if self._process is not None:
            stop(self._process)
