"""Debian's `redis-server` on a free 127.0.0.1 port, with no persistence, for the budget
tests (`make test` installs the package when it is missing). It can be stopped and started
again on the same port, as a Redis that goes away and comes back."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time

from support.processes import free_port

STARTUP_SECONDS = 10.0


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is not installed: apt-get install redis-server")
        self._process = subprocess.Popen(
            [
                executable,
                "--bind", "127.0.0.1",
                "--port", str(self.port),
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "yes",
                "--loglevel", "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Kill it (SIGKILL: a crash, not a shutdown), and wait until the port is closed."""
        if self._process is None:
            return
        self._process.send_signal(signal.SIGCONT)  # a paused one must be able to die
        self._process.kill()
        self._process.wait(timeout=10)
        self._process = None

    def pause(self) -> None:
        """Freeze it (SIGSTOP): connections are still accepted, nothing is answered."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    def flush(self) -> None:
        """Forget every budget (FLUSHALL), so that each test starts from full ones."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            if not sock.recv(16).startswith(b"+OK"):
                raise RuntimeError("redis-server refused FLUSHALL")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False
