"""INSIGHT_LOG_FORMAT: plain, coloured lines for a person at a terminal, JSON lines for
production; `auto` (the default) chooses by whether stderr is a terminal."""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gateway.observability.logs import (
    ConsoleFormatter,
    JsonFormatter,
    log_config,
    resolve_log_format,
)
from gateway.settings import Settings, SettingsError

LOG_ONE_LINE = """
import logging, logging.config
from gateway.observability.logs import log_config
logging.config.dictConfig(log_config("auto"))
logging.getLogger("gateway.access").info(
    "GET /graphql 200", extra={"method": "GET", "path": "/graphql", "status": 200,
    "duration_ms": 1.5, "request_id": "req-7"})
"""


def access_record() -> logging.LogRecord:
    record = logging.LogRecord("gateway.access", logging.INFO, __file__, 1, "%s %s %s", None, None)
    record.args = ("GET", "/graphql", 200)
    record.method, record.path, record.status = "GET", "/graphql", 200
    record.duration_ms = 1.5
    record.request_id = "req-7"
    return record


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, "auto"), ("json", "json"), ("console", "console"), ("Console", "console")],
)
def test_the_setting_reads_its_three_values(raw: str | None, expected: str) -> None:
    environ = {} if raw is None else {"INSIGHT_LOG_FORMAT": raw}
    assert Settings.from_environ(environ).log_format == expected


def test_a_bad_value_names_the_variable_and_the_choices() -> None:
    with pytest.raises(SettingsError, match="INSIGHT_LOG_FORMAT must be auto, json, console"):
        Settings.from_environ({"INSIGHT_LOG_FORMAT": "pretty"})


def test_auto_is_console_on_a_terminal_and_json_elsewhere(tmp_path: Path) -> None:
    primary, secondary = os.openpty()
    try:
        with os.fdopen(secondary, "w", closefd=False) as terminal:
            assert resolve_log_format("auto", terminal) == "console"
        with (tmp_path / "log").open("w") as file:
            assert resolve_log_format("auto", file) == "json"
            assert resolve_log_format("console", file) == "console"
    finally:
        os.close(primary)
        os.close(secondary)


def test_log_config_names_the_chosen_formatter() -> None:
    for chosen in ("json", "console"):
        assert log_config(chosen)["handlers"]["stderr"]["formatter"] == chosen


def test_a_console_line_is_plain_and_coloured_only_when_asked() -> None:
    plain = ConsoleFormatter().format(access_record())
    coloured = ConsoleFormatter(colour=True).format(access_record())

    assert plain.endswith(
        " INFO    gateway.access: GET /graphql 200  request_id=req-7 duration_ms=1.5"
    )
    assert "\033[" not in plain
    assert "\033[32mINFO" in coloured
    assert json.loads(JsonFormatter().format(access_record()))["request_id"] == "req-7"


def test_a_process_writing_to_a_terminal_writes_plain_coloured_lines() -> None:
    primary, secondary = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    try:
        completed = subprocess.run(
            [sys.executable, "-c", LOG_ONE_LINE],
            stderr=secondary,
            env=env,
            timeout=60,
            check=True,
        )
        assert completed.returncode == 0
        written = b""
        deadline = time.monotonic() + 10
        while b"\n" not in written and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if ready:
                written += os.read(primary, 4096)
    finally:
        os.close(primary)
        os.close(secondary)

    line = written.decode().splitlines()[0]
    assert "\033[32mINFO" in line
    assert "gateway.access: GET /graphql 200" in line
    assert not line.lstrip().startswith("{")


def test_a_process_writing_to_a_pipe_writes_json_lines() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", LOG_ONE_LINE], capture_output=True, text=True, timeout=60
    )

    assert completed.returncode == 0, completed.stderr
    line = json.loads(completed.stderr.splitlines()[0])
    assert line["message"] == "GET /graphql 200"
    assert line["request_id"] == "req-7"
