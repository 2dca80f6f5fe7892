"""Logs: one JSON object a line for production, or a plain (coloured) line for a person at a
terminal (`INSIGHT_LOG_FORMAT`), each carrying the request id of the request it was written
for (the same id as the X-Request-ID header and a masked error's `requestId`), and an access
log line per HTTP request."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_request_id: ContextVar[str | None] = ContextVar("log_request_id", default=None)

access_logger = logging.getLogger("gateway.access")

#: `extra=` fields that the JSON line carries (others stay out: they may be anything).
EXTRA_FIELDS = (
    "method",
    "path",
    "status",
    "duration_ms",
    # GraphQL operations the request carried (a batch: its length).
    "operations",
    # A DynamoDB failure (gateway.observability.dynamodb_failures).
    "dynamodb_operation",
    "tables",
    "error_code",
    "attempts",
    "elapsed_ms",
    "aws_request_id",
    "suppressed",
)


def bind_request_id(request_id: str) -> None:
    """Every log line written from here on in this request's task (and the tasks it
    starts) carries `request_id`."""
    _request_id.set(request_id)


def current_request_id() -> str | None:
    return _request_id.get()


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id:
            line["request_id"] = request_id
        for name in EXTRA_FIELDS:
            if hasattr(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


_LEVEL_COLOURS = {
    "DEBUG": "\033[2m",
    "INFO": "\033[32m",
    "WARNING": "\033[33m",
    "ERROR": "\033[31m",
    "CRITICAL": "\033[1;31m",
}
_DIM, _RESET = "\033[2m", "\033[0m"


class ConsoleFormatter(logging.Formatter):
    """One plain line a record, for a person at a terminal: time, level, logger, message, then
    the request id and the extra fields as `name=value`; coloured levels when `colour`."""

    def __init__(self, colour: bool = False) -> None:
        super().__init__()
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created).strftime("%H:%M:%S.%f")[:-3]
        level = f"{record.levelname:<7}"
        if self.colour:
            level = f"{_LEVEL_COLOURS.get(record.levelname, '')}{level}{_RESET}"
        details = [
            f"{name}={getattr(record, name)}"
            for name in ("request_id", *EXTRA_FIELDS)
            if name not in _SHOWN_IN_MESSAGE and getattr(record, name, None) is not None
        ]
        tail = "  " + " ".join(details) if details else ""
        if self.colour and tail:
            tail = f"{_DIM}{tail}{_RESET}"
        line = f"{moment} {level} {record.name}: {record.getMessage()}{tail}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


#: The access line's message already says these.
_SHOWN_IN_MESSAGE = frozenset({"method", "path", "status"})


def resolve_log_format(log_format: str, stream: Any = None) -> str:
    """`json` or `console`: `auto` is `console` when the stream (stderr) is a terminal."""
    if log_format != "auto":
        return log_format
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return "console" if callable(isatty) and isatty() else "json"


def log_config(log_format: str = "json", level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` (and uvicorn `log_config`) sending every logger,
    uvicorn's too, to stderr, as JSON lines or as plain lines (`log_format`: `json`,
    `console` or `auto`, see `resolve_log_format`). uvicorn's own access log is replaced by
    `AccessLog`, which knows the request id."""
    chosen = resolve_log_format(log_format)
    # Colour only for a terminal, and never when NO_COLOR is set (no-color.org).
    colour = chosen == "console" and sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {
            "json": {"()": JsonFormatter},
            "console": {"()": ConsoleFormatter, "colour": colour},
        },
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": chosen,
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            # botocore's DEBUG/INFO is per-attempt noise; its warnings still show.
            "botocore": {"level": "WARNING"},
            "aiobotocore": {"level": "WARNING"},
        },
    }


class AccessLog:
    """One `gateway.access` line per HTTP request: method, path, status, duration, and the
    request id the gateway answered with (X-Request-ID)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_logger.isEnabledFor(logging.INFO):
            # Off (a level above INFO): no line would be written, so nothing is gathered.
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        request_id: str | None = None

        async def sending(message: Message) -> None:
            nonlocal status, request_id
            if message["type"] == "http.response.start":
                status = message["status"]
                request_id = MutableHeaders(scope=message).get("x-request-id")
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            extra: dict[str, Any] = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                "request_id": request_id,
            }
            # Set by the GraphQL view on the request's state (gateway/http/graphql_view.py).
            operations = (scope.get("state") or {}).get("graphql_operations")
            if operations is not None:
                extra["operations"] = operations
            access_logger.info("%s %s %s", scope["method"], scope["path"], status, extra=extra)
