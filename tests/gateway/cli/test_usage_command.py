"""`insight-gateway usage`: the deprecated coordinates of a schema and the clients that still
read them, from a running gateway's /metrics."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gateway.cli.main import main, schema_sdl
from gateway.settings import Settings
from tests.gateway.cli.field_clients import send, served_gateway
from tests.prometheus_server import PrometheusServer


@pytest.fixture
def gateway_url(settings: Settings) -> Iterator[str]:
    with served_gateway(settings) as base_url:
        yield base_url


@pytest.fixture
def deprecating_schema(tmp_path: Path) -> Path:
    """The gateway's SDL with `User.alert` and `User.savingsMonths(months:)` deprecated, as a
    schema about to remove them would be."""
    head, user, sdl = schema_sdl().partition("\ntype User {")
    alert = "\n  alert: BalanceAlert\n"
    months = "    months: Int! = 3\n  ): [SavingsMonth!]"
    assert alert in sdl
    assert months in sdl
    sdl = sdl.replace(alert, '\n  alert: BalanceAlert @deprecated(reason: "use lowBalanceAlert")\n')
    sdl = sdl.replace(months, months.replace("= 3", '= 3 @deprecated(reason: "always 3")'))
    path = tmp_path / "next.graphql"
    path.write_text(head + user + sdl)
    return path


def test_usage_lists_each_deprecated_coordinate_with_its_readers(
    gateway_url: str, deprecating_schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ios = {"apollographql-client-name": "ios", "apollographql-client-version": "7.1"}
    for _ in range(3):
        send(gateway_url, '{ user(id: "u-1") { alert { alertSent } } }', ios)
    send(gateway_url, '{ user(id: "u-1") { alert { alertSent } } }', {})
    send(gateway_url, '{ user(id: "u-1") { savingsMonths { month } } }', ios)

    code = main(["usage", f"{gateway_url}/metrics", "--schema", str(deprecating_schema)])
    printed = capsys.readouterr().out
    saved = deprecating_schema.with_name("metrics.txt")
    saved.write_text(httpx.get(f"{gateway_url}/metrics", timeout=30).text)
    from_file = main(["usage", str(saved), "--schema", str(deprecating_schema)])

    assert code == 1
    assert printed == (
        "User.alert  (deprecated: use lowBalanceAlert)\n"
        "    ios 7.1: 3 operations\n"
        "    unknown: 1 operations\n"
        "User.savingsMonths(months:)  (deprecated: always 3)\n"
        "    no reader seen\n"
    )
    # A saved copy of /metrics reads the same.
    assert from_file == 1
    assert capsys.readouterr().out == printed


def test_usage_is_quiet_when_no_deprecated_coordinate_is_read(
    gateway_url: str, deprecating_schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    send(gateway_url, '{ user(id: "u-1") { payday { nextDate } } }', {})

    assert main(["usage", f"{gateway_url}/metrics", "--schema", str(deprecating_schema)]) == 0
    assert capsys.readouterr().out.count("    no reader seen\n") == 2
    # The gateway's own schema deprecates nothing (yet).
    assert main(["usage", f"{gateway_url}/metrics"]) == 0
    assert capsys.readouterr().out == "The schema has no deprecated coordinate.\n"


def test_usage_exit_codes_for_what_it_cannot_read(
    gateway_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["usage", f"{gateway_url}/nothing-here"]) == 3
    assert "answered HTTP 404" in capsys.readouterr().err
    broken = tmp_path / "broken.graphql"
    broken.write_text("type {")
    assert main(["usage", f"{gateway_url}/metrics", "--schema", str(broken)]) == 2
    assert main(["usage", f"{gateway_url}/metrics", "--window", "30d"]) == 3
    assert "--window needs a Prometheus query API URL" in capsys.readouterr().err


def test_usage_reads_a_prometheus_query_api(
    gateway_url: str, deprecating_schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    web = {"graphql-client-name": "web"}
    for _ in range(2):
        send(gateway_url, '{ user(id: "u-1") { alert { alertSent } } }', web)
    with PrometheusServer(gateway_url.removeprefix("http://")) as prometheus:
        prometheus.wait_for(
            lambda answer: bool(answer["data"]["result"]),
            'gateway_field_usage_total{coordinate="User.alert"}',
        )
        code = main(["usage", prometheus.query_url, "--schema", str(deprecating_schema)])
        printed = capsys.readouterr().out
        # A window counts what grew inside it: two more reads, once Prometheus has seen two.
        for _ in range(2):
            send(gateway_url, '{ user(id: "u-1") { alert { alertSent } } }', web)
        prometheus.wait_for(
            lambda answer: bool(answer["data"]["result"]),
            'gateway_field_usage_total{coordinate="User.alert"} == 4',
        )
        windowed = main(
            ["usage", prometheus.query_url, "--window", "5m", "--schema", str(deprecating_schema)]
        )
        windowed_out = capsys.readouterr().out
        with pytest.raises(SystemExit) as refused:
            main(["usage", prometheus.query_url, "--window", "five minutes"])

    assert code == 1
    assert printed == (
        "User.alert  (deprecated: use lowBalanceAlert)\n"
        "    web: 2 operations\n"
        "User.savingsMonths(months:)  (deprecated: always 3)\n"
        "    no reader seen\n"
    )
    # increase() extrapolates to the window's edges: only the reader is certain, not the count.
    assert windowed == 1
    assert "User.alert  (deprecated: use lowBalanceAlert)\n    web: " in windowed_out
    # A window Prometheus would refuse is bad usage, said before anything is asked.
    assert refused.value.code == 2
    assert "'five minutes' is not a Prometheus duration" in capsys.readouterr().err
