"""The entry point for uvicorn's own command line (the image's CMD):
`uvicorn --factory gateway.asgi:create_app_from_environ`.

It gives the gateway what `insight-gateway serve` gives it, log lines on stderr with the
request id (JSON, unless INSIGHT_LOG_FORMAT or a terminal says otherwise), and takes its
configuration only from the environment.
"""

from __future__ import annotations

import logging.config

from starlette.applications import Starlette

from gateway.app import create_app
from gateway.observability.logs import log_config
from gateway.settings import Settings
from gateway.subscriptions.capacity import raise_open_file_limit


def create_app_from_environ() -> Starlette:
    """The app for uvicorn's `--factory`: settings from the environment, `serve`'s logging."""
    warnings: list[str] = []
    settings = Settings.from_environ(warn=warnings.append)
    # uvicorn has configured its plain-text logging by the time it calls the factory;
    # this replaces it, uvicorn's own loggers included, before the first request.
    logging.config.dictConfig(log_config(settings.log_format))
    # Logged once the log lines have their production format (JSON), not uvicorn's.
    for line in warnings:
        logging.getLogger("gateway.settings").warning(line)
    # Each socket is a file descriptor: the soft limit goes up to the container's hard one.
    raise_open_file_limit(settings.subscriptions_max_sockets)
    return create_app(settings)
