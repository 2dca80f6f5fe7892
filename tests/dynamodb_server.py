"""moto's DynamoDB as a real server on 127.0.0.1, for tests (moto's in-process mock does not
intercept aiobotocore reliably)."""

from __future__ import annotations

import socket

from moto.server import ThreadedMotoServer


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class MotoServer:
    def __init__(self) -> None:
        self.port = free_port()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._server.stop()
