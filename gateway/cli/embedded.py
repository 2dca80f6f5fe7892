"""The embedded DynamoDB: moto's server in this process, on 127.0.0.1, for local use."""

from __future__ import annotations

import logging
import os

from moto.server import ThreadedMotoServer


class EmbeddedDynamoDB:
    """moto's DynamoDB as a real HTTP server on a free loopback port (moto's in-process
    mock does not intercept aiobotocore reliably)."""

    def __init__(self) -> None:
        # Port 0: the kernel picks it as the server binds, so that no other process on the
        # machine can take it between a free-port probe and the bind.
        self.port = 0
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        # moto accepts any credentials; these keep botocore from looking for real ones.
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "embedded")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "embedded")
        # werkzeug logs every request moto serves; the gateway's own logs are what matter.
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]

    def stop(self) -> None:
        self._server.stop()
