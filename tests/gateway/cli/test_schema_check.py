"""`insight-gateway schema check`: a schema's changes since its release, each classed by what
scripted clients really read through a running gateway, from a real Prometheus that scraped
it and from its saved /metrics text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import build_ast_schema, find_schema_changes, parse

from gateway.cli.main import main, schema_sdl
from gateway.cli.schema_changes import newest_release
from gateway.settings import Settings
from schema.root import build_schema
from tests.gateway.cli.field_clients import send, served_gateway
from tests.prometheus_server import PrometheusServer

IOS = {"apollographql-client-name": "ios", "apollographql-client-version": "7.1"}
WEB = {"graphql-client-name": "web", "graphql-client-version": "2.0"}
#: (client headers, query, times): 6 operations in all.
CLIENTS: list[tuple[dict[str, str], str, int]] = [
    (IOS, '{ user(id: "u-1") { alert { alertSent } } }', 3),
    (WEB, '{ user(id: "u-1") { savingsMonths(months: 2) { month } } }', 2),
    ({}, '{ user(id: "u-1") { savingsMonths { month } } }', 1),  # the default months
]
OPERATIONS = sum(times for _, _, times in CLIENTS)


def without_field(sdl: str, field: str) -> str:
    """`sdl` without the `User` field whose line is `field`, and its description."""
    line = f"\n  {field}\n"
    end = sdl.index(line, sdl.index("\ntype User {")) + len(line)
    start = sdl.rindex("\n\n", 0, end) + 1
    return sdl[:start] + sdl[end:]


def replaced(sdl: str, old: str, new: str) -> str:
    assert sdl.count(old) == 1, old
    return sdl.replace(old, new)


BASE = schema_sdl()
#: Each working schema as a team would edit it, and what the check says of it.
VARIANTS = {
    "removes a field one client read": without_field(BASE, "alert: BalanceAlert"),
    "removes a field nobody read": without_field(BASE, "paveLabel: PaveLabel"),
    "narrows an argument a client sends": replaced(
        BASE, "    months: Int! = 3\n", "    months: MonthCount! = 3\n"
    )
    + '\n"""1 to 12."""\nscalar MonthCount\n',
    "adds an optional field": replaced(
        BASE, "\ntype User {\n", "\ntype User {\n  nickname: String\n\n"
    ),
}


@pytest.fixture
def gateway_url(settings: Settings) -> Iterator[str]:
    with served_gateway(settings) as base_url:
        yield base_url


@pytest.fixture
def schemas(tmp_path: Path) -> dict[str, Path]:
    """The released schema (today's) and each working variant, as files."""
    files = {"released": tmp_path / "released.graphql"}
    files["released"].write_text(BASE)
    for n, (name, sdl) in enumerate(VARIANTS.items()):
        files[name] = tmp_path / f"variant-{n}.graphql"
        files[name].write_text(sdl)
    return files


def run_clients(url: str) -> None:
    for client, query, times in CLIENTS:
        for _ in range(times):
            send(url, query, client)


def classes(document: dict[str, Any]) -> list[tuple[str, str, str, list[tuple[str, str]]]]:
    return [
        (
            change["coordinate"],
            change["change"],
            change["class"],
            [(reader["client"], reader["version"]) for reader in change["readers"]],
        )
        for change in document["changes"]
    ]


EXPECTED = {
    "removes a field one client read": (
        1,
        [("User.alert", "FIELD_REMOVED", "broken", [("ios", "7.1")])],
    ),
    "removes a field nobody read": (
        0,
        [("User.paveLabel", "FIELD_REMOVED", "unaffected", [])],
    ),
    # Only the client that sends `months` is broken, not the one that leaves it to its default.
    "narrows an argument a client sends": (
        1,
        [
            ("User.savingsMonths(months:)", "ARG_CHANGED_KIND", "broken", [("web", "2.0")]),
            ("MonthCount", "TYPE_ADDED", "safe", []),
        ],
    ),
    "adds an optional field": (0, [("User.nickname", "FIELD_ADDED", "safe", [])]),
}


def run_check(
    capsys: pytest.CaptureFixture[str], schemas: dict[str, Path], variant: str, *args: str
) -> tuple[int, dict[str, Any]]:
    argv = ["schema", "check", "--schema", str(schemas[variant])]
    code = main([*argv, "--against", str(schemas["released"]), *args, "--json"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert document["exit"] == code
    return code, document


@pytest.fixture
def saved_metrics(gateway_url: str, tmp_path: Path) -> Path:
    """The gateway's /metrics after the scripted clients, saved as a team would save it."""
    run_clients(gateway_url)
    path = tmp_path / "metrics.txt"
    path.write_text(httpx.get(f"{gateway_url}/metrics", timeout=30).text)
    return path


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_change_is_classed_by_who_read_it_from_saved_metrics(
    variant: str,
    saved_metrics: Path,
    schemas: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, document = run_check(capsys, schemas, variant, "--metrics", str(saved_metrics))

    expected_code, expected = EXPECTED[variant]
    assert code == expected_code
    assert classes(document) == expected
    assert document["usage"] == {"source": str(saved_metrics), "window": None, "operations": 6}
    assert document["broken"] == [c for c, _, klass, _ in expected if klass == "broken"]


def test_the_same_from_a_prometheus_that_scraped_the_gateway(
    gateway_url: str, schemas: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with PrometheusServer(gateway_url.removeprefix("http://")) as prometheus:
        # increase() counts growth between scrapes: the clients run once before Prometheus
        # has seen their series and once after, and the window holds the second round.
        for round_ in (1, 2):
            run_clients(gateway_url)
            prometheus.wait_for(
                lambda answer: bool(answer["data"]["result"]),
                f"sum(gateway_graphql_operations_total) == {round_ * OPERATIONS}",
            )
        found = {
            variant: run_check(capsys, schemas, variant, "--prometheus", prometheus.url)
            for variant in sorted(VARIANTS)
        }
        windowed = run_check(
            capsys,
            schemas,
            "removes a field one client read",
            "--prometheus",
            prometheus.query_url,
            "--window",
            "1h",
            "--threshold",
            "90",
        )

    for variant, (code, document) in found.items():
        expected_code, expected = EXPECTED[variant]
        assert (code, classes(document)) == (expected_code, expected), variant
        assert document["usage"]["window"] == "30d"
        assert document["usage"]["source"] == prometheus.url
        # increase() extrapolates to the window's edges: a count of at least one round.
        assert document["usage"]["operations"] >= OPERATIONS
    ios = found["removes a field one client read"][1]["changes"][0]["readers"][0]
    assert ios["operations"] >= 3
    # The one reader reads in a third of the operations: under 90 percent, it passes.
    code, document = windowed
    assert code == 0
    assert document["usage"]["window"] == "1h"
    assert document["changes"][0]["class"] == "broken"
    assert document["changes"][0]["allowed"] == "--threshold"
    assert document["changes"][0]["share"] == pytest.approx(0.5, abs=0.1)


def test_a_broken_change_passes_by_name_or_under_the_threshold(
    saved_metrics: Path, schemas: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    removal = "removes a field one client read"
    metrics = ["--metrics", str(saved_metrics)]

    allowed = run_check(capsys, schemas, removal, *metrics, "--allow", "User.alert")
    under = run_check(capsys, schemas, removal, *metrics, "--threshold", "50.1")
    at = run_check(capsys, schemas, removal, *metrics, "--threshold", "50%")
    code = main(
        [
            "schema",
            "check",
            "--schema",
            str(schemas[removal]),
            "--against",
            str(schemas["released"]),
            *metrics,
            "--allow",
            "User.alerts",
        ]
    )
    captured = capsys.readouterr()

    assert allowed[0] == 0
    assert allowed[1]["changes"][0]["allowed"] == "--allow"
    assert allowed[1]["broken"] == []
    # ios read User.alert in 3 of the 6 operations: 50 percent.
    assert under[0] == 0
    assert under[1]["changes"][0]["share"] == 0.5
    assert under[1]["changes"][0]["allowed"] == "--threshold"
    assert at[0] == 1
    assert at[1]["broken"] == ["User.alert"]
    assert code == 1
    assert "warning: --allow User.alerts names no change" in captured.err


def test_the_report_as_a_reader_sees_it(
    saved_metrics: Path, schemas: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    released = schemas["released"]
    code = main(
        [
            "schema",
            "check",
            "--schema",
            str(schemas["removes a field one client read"]),
            "--against",
            str(released),
            "--metrics",
            str(saved_metrics),
        ]
    )

    assert code == 1
    assert capsys.readouterr().out == (
        f"{schemas['removes a field one client read']} against {released}\n"
        f"usage: {saved_metrics} (totals, 6 operations)\n"
        "\n"
        "broken      User.alert  Field User.alert was removed.\n"
        "            read by 50.00% of the operations\n"
        "              ios 7.1: 3 operations\n"
        "\n"
        "failed: broken, not allowed: User.alert\n"
    )


def test_deprecated_coordinates_are_ready_to_remove_unless_read(
    saved_metrics: Path, schemas: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    deprecating = schemas["released"].with_name("deprecating.graphql")
    sdl = replaced(
        BASE,
        '\n  alert: BalanceAlert\n\n  """\n  The recurring',
        '\n  alert: BalanceAlert @deprecated(reason: "use lowBalanceAlert")\n\n'
        '  """\n  The recurring',
    )
    deprecating.write_text(
        replaced(
            sdl,
            "\n  paveLabel: PaveLabel\n",
            '\n  paveLabel: PaveLabel @deprecated(reason: "unused")\n',
        )
    )
    schemas["deprecating"] = deprecating

    code, document = run_check(capsys, schemas, "deprecating", "--metrics", str(saved_metrics))
    main(
        [
            "schema",
            "check",
            "--schema",
            str(deprecating),
            "--against",
            str(schemas["released"]),
            "--metrics",
            str(saved_metrics),
        ]
    )
    printed = capsys.readouterr().out

    assert code == 0
    assert document["deprecated"] == [
        {
            "coordinate": "User.alert",
            "reason": "use lowBalanceAlert",
            "ready_to_remove": False,
            "readers": [{"client": "ios", "version": "7.1", "operations": 3.0}],
        },
        {
            "coordinate": "User.paveLabel",
            "reason": "unused",
            "ready_to_remove": True,
            "readers": [],
        },
    ]
    assert (
        "deprecated  User.alert  (use lowBalanceAlert): still read\n"
        "              ios 7.1: 3 operations\n"
        "deprecated  User.paveLabel  (unused): ready to remove\n"
    ) in printed


def test_what_it_refuses_and_what_it_cannot_read(
    saved_metrics: Path,
    schemas: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    broken = tmp_path / "broken.graphql"
    broken.write_text("type {")
    no_operations = tmp_path / "no-operations.txt"
    no_operations.write_text("# nothing counted yet\n")
    base = ["schema", "check", "--against", str(schemas["released"])]
    metrics = ["--metrics", str(saved_metrics)]

    assert main([*base, *metrics, "--window", "30d"]) == 2
    assert "--window needs --prometheus" in capsys.readouterr().err
    assert main([*base, *metrics, "--schema", str(broken)]) == 2
    assert "cannot read a schema" in capsys.readouterr().err
    assert main([*base, "--metrics", str(tmp_path / "absent.txt")]) == 3
    assert "cannot read" in capsys.readouterr().err
    assert main([*base, "--metrics", str(no_operations), "--threshold", "1"]) == 3
    assert "--threshold needs the operations served" in capsys.readouterr().err
    assert main([*base, "--prometheus", "http://127.0.0.1:9/"]) == 3
    assert "did not answer" in capsys.readouterr().err
    assert main(["schema", "--federation", "check", *metrics]) == 2
    assert "--federation only prints" in capsys.readouterr().err
    for bad in (["--threshold", "101"], ["--window", "a month"], []):
        with pytest.raises(SystemExit) as refused:
            main([*base, *(metrics if bad else []), *bad])
        assert refused.value.code == 2


def test_the_projects_own_schema_against_its_newest_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `make test` checks of the project itself: the built schema against
    schema/released/, with no client recorded, is unaffected (the full schema, each change)."""
    empty = tmp_path / "metrics.txt"
    empty.write_text("")

    code = main(["schema", "check", "--metrics", str(empty), "--json"])
    document = json.loads(capsys.readouterr().out)

    released = newest_release()
    assert code == 0
    assert document["against"] == str(released.path)
    assert document["schema"] == "built"
    changes = find_schema_changes(
        build_ast_schema(parse(released.path.read_text())), build_schema()._schema
    )
    assert len(document["changes"]) == len(changes) > 0
    assert {c["class"] for c in document["changes"] if c["kind"] == "breaking"} <= {"unaffected"}
    assert all(c["readers"] == [] for c in document["changes"])
