"""`python -m bench.load.serial_moto HOST PORT`: moto's server answering one request at a time
(the writes phase's DynamoDB).

moto's own server (`moto.server.main`) runs each request on a thread of its own, and its
TransactWriteItems is not atomic across threads: it deep-copies every table the transaction
touches, checks the conditions, writes, and on a failed condition puts the copies back,
which erases whatever another thread wrote meanwhile; the copy itself fails with a 500
("dictionary changed size during iteration") when another thread writes. Two transactions
conditioned on one key's absence can also both pass. DynamoDB's transactions are atomic, so
that the writes phase judges the gateway rather than moto's threads, this serves moto's
same application, threaded (keep-alive connections from both replicas), with one lock around
each request.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serialised(app: WsgiApp) -> WsgiApp:
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(host, port, serialised(app), threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
