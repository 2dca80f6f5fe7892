"""moto's DynamoDB served one request at a time: a backend that applies a transaction
atomically under concurrency.

moto's `ThreadedMotoServer` (the suite's session server, `serve --embedded`) serves each
request on its own thread, and moto 5.2's `TransactWriteItems` holds no lock: it copies
the tables, checks and writes item by item, and on a failed check puts the copies back.
Across threads, two transactions conditioned on the same absent item can both pass their
checks and both write, and a failing one's restore can undo what another committed
meanwhile (DynamoDB never does either). Served by one thread, each request is whole
before the next begins, so every transaction is atomic, as DynamoDB's are.

Each answer closes its connection (HTTP/1.0): a kept-alive connection would hold the one
thread and stall every other client."""

from __future__ import annotations

import logging
import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import BaseWSGIServer, make_server

__all__ = ["SerialMotoServer"]


class _OneRequestAConnection(MotoRequestHandler):
    # Named on this class, werkzeug leaves it (it upgrades a handler class to HTTP/1.1,
    # kept-alive, only when the class names no version; the threaded server upgrades
    # moto's own class).
    protocol_version = "HTTP/1.0"


class SerialMotoServer:
    """moto's server on 127.0.0.1 (a free port), one request at a time, on one thread."""

    def __init__(self) -> None:
        self._server: BaseWSGIServer = make_server(
            "127.0.0.1",
            0,
            DomainDispatcherApplication(create_backend_app),
            threaded=False,
            request_handler=_OneRequestAConnection,
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> None:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()
