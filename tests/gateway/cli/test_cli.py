"""`insight-gateway`'s subcommands: help, exit codes and messages, and the local tooling
against the test session's moto server."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gateway.cli.admin import _dynamo as local_dynamo
from gateway.cli.demo import DEMO_USERS
from gateway.cli.main import main, schema_sdl
from gateway.settings import Settings
from loaders.dynamodb import DynamoDBFailure
from loaders.tables import Table, TableNames
from support.processes import free_port

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

COMMANDS = ["serve", "schema", "create-tables", "seed-demo", "token"]
EXIT_CODES_SHOWN = {
    (): "exit codes: 0 done, 1 the task failed",
    ("serve",): "exit codes: 0 stopped, 1 the gateway failed to start, 2 bad usage or settings, "
    "or the port is taken",
    ("schema",): "exit codes: 0 printed, 2 bad usage or settings",
    ("create-tables",): "exit codes: 0 done, 1 the task failed",
    ("seed-demo",): "exit codes: 0 done, 1 the task failed",
    ("token",): "exit codes: 0 printed, 2 no secret",
}
_suffixes = itertools.count()


@pytest.fixture
def table_names(monkeypatch: pytest.MonkeyPatch) -> TableNames:
    """Table names no other test uses, given to the CLI through the contract's variables."""
    suffix = f"-cli{next(_suffixes)}-{time.monotonic_ns()}"
    names = TableNames(*(name + suffix for name in TableNames().all().values()))
    for table, variable in {
        Table.PAVE: "INSIGHT_TABLE_PAVE",
        Table.INCOME_DETECTION: "INSIGHT_TABLE_INCOME_DETECTION",
        Table.DATACAPTURE: "INSIGHT_TABLE_DATACAPTURE",
        Table.BALANCE_SETTINGS: "INSIGHT_TABLE_BALANCE_SETTINGS",
        Table.LOCKS: "INSIGHT_TABLE_LOCKS",
        Table.IDEMPOTENCY: "INSIGHT_TABLE_IDEMPOTENCY",
    }.items():
        monkeypatch.setenv(variable, names.name(table))
    monkeypatch.delenv("INSIGHT_DYNAMODB_ENDPOINT_URL", raising=False)
    return names


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_help_describes_each_command_and_exits_0(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])

    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: insight-gateway {' '.join(command)}".rstrip())
    assert EXIT_CODES_SHOWN[tuple(command)] in " ".join(out.split())


def test_schema_help_names_no_dynamodb_failure(capsys: pytest.CaptureFixture[str]) -> None:
    # `schema` never touches DynamoDB: no "unreachable" exit code to promise.
    with pytest.raises(SystemExit):
        main(["schema", "--help"])

    assert "DynamoDB" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--bogus"], "unrecognized arguments: --bogus"),
        (["serve", "--port", "eighty"], "argument --port: invalid int value: 'eighty'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: COMMAND"),
        (["create-tables", "--endpoint"], "argument --endpoint: expected one argument"),
    ],
)
def test_a_bad_flag_exits_2_with_the_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)

    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bad_setting_exits_2_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSIGHT_EXPENSE_TTL_DAYS", "thirty")

    assert main(["schema"]) == 2
    assert "INSIGHT_EXPENSE_TTL_DAYS must be a whole number, not 'thirty'" in (
        capsys.readouterr().err
    )


def test_schema_prints_the_sdl_that_schema_graphql_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema"]) == 0

    assert capsys.readouterr().out == schema_sdl()


def test_the_console_script_prints_the_schema() -> None:
    script = Path(sys.executable).parent / "insight-gateway"
    completed = subprocess.run([script, "schema"], capture_output=True, text=True, timeout=60)

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == schema_sdl()


@pytest.mark.parametrize("command", ["create-tables", "seed-demo"])
def test_local_tooling_without_an_endpoint_exits_2(
    command: str, table_names: TableNames, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command]) == 2
    assert "give --endpoint URL or INSIGHT_DYNAMODB_ENDPOINT_URL" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["create-tables", "seed-demo"])
def test_an_unreachable_endpoint_exits_1_within_seconds(
    command: str, table_names: TableNames, capsys: pytest.CaptureFixture[str]
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()

    assert main([command, "--endpoint", nobody]) == 1

    assert time.monotonic() - started < 15
    assert f"cannot reach DynamoDB at {nobody}" in capsys.readouterr().err


async def test_create_tables_creates_the_six_once_then_reports_them_existing(
    endpoint_url: str,
    table_names: TableNames,
    dynamodb: DynamoDBClient,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert await asyncio.to_thread(main, ["create-tables", "--endpoint", endpoint_url]) == 0
    first = capsys.readouterr().out.splitlines()
    assert await asyncio.to_thread(main, ["create-tables", "--endpoint", endpoint_url]) == 0
    second = capsys.readouterr().out.splitlines()

    names = sorted(table_names.all().values())
    assert sorted(first) == [f"created {name}" for name in names]
    assert sorted(second) == [f"exists  {name}" for name in names]
    pave = await dynamodb.describe_table(TableName=table_names.pave)
    assert [(k["AttributeName"], k["KeyType"]) for k in pave["Table"]["KeySchema"]] == [
        ("PK", "HASH"),
        ("SK", "RANGE"),
    ]
    ttl = await dynamodb.describe_time_to_live(TableName=table_names.pave)
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


async def test_seed_demo_writes_the_demo_users_into_the_tables(
    endpoint_url: str,
    table_names: TableNames,
    dynamodb: DynamoDBClient,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert await asyncio.to_thread(main, ["create-tables", "--endpoint", endpoint_url]) == 0
    capsys.readouterr()

    assert await asyncio.to_thread(main, ["seed-demo", "--endpoint", endpoint_url]) == 0

    out = capsys.readouterr().out
    written = int(out.split()[1])
    stored = 0
    for name in table_names.all().values():
        stored += (await dynamodb.scan(TableName=name, Select="COUNT"))["Count"]
    assert stored == written > 0
    pave = await dynamodb.scan(TableName=table_names.pave)
    assert {item["PK"]["S"].split("#")[-1] for item in pave["Items"]} <= set(DEMO_USERS)


async def test_seed_demo_before_create_tables_exits_1_saying_what_to_do(
    endpoint_url: str, table_names: TableNames, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await asyncio.to_thread(main, ["seed-demo", "--endpoint", endpoint_url]) == 1

    assert "Run `insight-gateway create-tables` first" in capsys.readouterr().err


async def test_local_tooling_without_credentials_reads_through_the_lean_path(
    endpoint_url: str,
    table_names: TableNames,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # No credentials anywhere: the local tools sign with "local", both paths alike.
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    settings = Settings(dynamodb_endpoint_url=endpoint_url, tables=table_names)
    async with local_dynamo(settings) as dynamo:
        assert dynamo._lean is not None
        # Sent, signed, and refused by moto for the table it lacks: no NoCredentialsError.
        with pytest.raises(DynamoDBFailure, match="ResourceNotFoundException"):
            await dynamo.call("get_item", TableName="absent", Key={"PK": {"S": "x"}})
