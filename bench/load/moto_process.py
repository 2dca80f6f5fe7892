"""moto's server as a process of the run's own on a free 127.0.0.1 port: the DynamoDB (and
DynamoDB Streams) of the live phase. dynalite has no streams; an in-process moto would share
the driver's interpreter, so its answers would wait on the driver's thousand sockets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.processes import free_port, stop, wait_until_answered

ROOT = Path(__file__).resolve().parent.parent.parent

STARTUP_SECONDS = 30.0


class MotoServer:
    """`serial`: one request at a time (bench/load/serial_moto.py says why)."""

    def __init__(self, log: Path | None = None, *, serial: bool = False) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._log = log
        self._serial = serial
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
        args = [sys.executable, "-c", code, "-H", "127.0.0.1", "-p", str(self.port)]
        if self._serial:
            args = [sys.executable, "-m", "bench.load.serial_moto", "127.0.0.1", str(self.port)]
        try:
            self._process = subprocess.Popen(args, stdout=output, stderr=output, cwd=ROOT)
        finally:
            if not isinstance(output, int):
                output.close()  # the child has its own copy of the descriptor
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
