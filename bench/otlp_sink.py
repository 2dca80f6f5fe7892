"""An OTLP/HTTP endpoint that accepts every export and keeps nothing: the tracing-on gateway
of `make bench` exports its spans here (`python -m bench.otlp_sink PORT`), so the row pays
for making and sending its spans, as in production, and nothing else."""

from __future__ import annotations

import sys

from aiohttp import web


async def accept(request: web.Request) -> web.Response:
    await request.read()
    return web.Response(status=200, content_type="application/x-protobuf", body=b"")


def main(argv: list[str]) -> None:
    app = web.Application()
    app.router.add_post("/{path:.*}", accept)
    web.run_app(app, host="127.0.0.1", port=int(argv[0]), print=None, access_log=None)


if __name__ == "__main__":
    main(sys.argv[1:])
