"""`insight-gateway`: run the gateway and its local tooling."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Callable, Sequence
from functools import partial

from gateway.auth.token_command import add_token_command
from gateway.cli.admin import AdminError, create_local_tables, seed_local_demo
from gateway.cli.documents import add_documents_command
from gateway.cli.explain import add_explain_command
from gateway.cli.schema_check import add_check_command
from gateway.cli.sdl import entry_points_first
from gateway.cli.serve import run_serve
from gateway.cli.usage import add_usage_command
from gateway.settings import Settings, SettingsError
from schema.clock import SystemClock
from schema.graphql_schema import graphql_schema
from schema.root import build_schema

EXIT_CODES = (
    "exit codes: 0 done, 1 the task failed (e.g. DynamoDB unreachable), 2 bad usage or settings"
)
SERVE_EXIT_CODES = (
    "exit codes: 0 stopped, 1 the gateway failed to start, 2 bad usage or settings, or the "
    "port is taken (nothing is printed or started then)"
)
SCHEMA_EXIT_CODES = (
    "exit codes: 0 printed, 2 bad usage or settings; `schema check -h` for the check's own"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="insight-gateway",
        description=__doc__,
        epilog=EXIT_CODES + "; settings come from INSIGHT_* variables (see docs/configuration.md)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the GraphQL gateway", epilog=SERVE_EXIT_CODES)
    serve.add_argument(
        "--embedded",
        action="store_true",
        help="start an embedded DynamoDB (moto) with the tables and demo users, and "
        "print tokens signed with the checkout's development secret (.insight-dev-secret)",
    )
    serve.add_argument(
        "--endpoint",
        metavar="URL",
        help="DynamoDB endpoint (default: INSIGHT_DYNAMODB_ENDPOINT_URL, else AWS itself)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    serve.set_defaults(run=run_serve)

    schema = commands.add_parser(
        "schema",
        help="print the GraphQL schema (SDL), as in schema.graphql; `schema check` checks its "
        "changes against the clients' field usage",
        description="Print the gateway's GraphQL schema in SDL; schema.graphql is its output. "
        "`insight-gateway schema check` checks the schema's changes since its release against "
        "what clients read.",
        epilog=SCHEMA_EXIT_CODES,
    )
    schema.add_argument(
        "--federation",
        action="store_true",
        help="print the Apollo Federation 2 subgraph SDL (as INSIGHT_FEDERATION=true serves it "
        "in `_service { sdl }`), for a router's composition",
    )
    schema.set_defaults(run=run_schema)
    add_check_command(
        schema.add_subparsers(dest="schema_command", required=False, metavar="SUBCOMMAND")
    )

    # The commands for a local DynamoDB endpoint.
    for name, run, summary, description in (
        (
            "create-tables",
            run_create_tables,
            "create the tables (the five and the idempotency keys') at a local DynamoDB endpoint",
            "Create those of the tables (names from INSIGHT_TABLE_*) that do not exist yet at a "
            "local DynamoDB endpoint (DynamoDB Local, moto), with TTL on `ttl`.",
        ),
        (
            "seed-demo",
            run_seed_demo,
            "write the demo users' items at a local DynamoDB endpoint",
            "Write the demo users (demo-ada, demo-bob, demo-cy, demo-dee) into the tables at a "
            "local DynamoDB endpoint, dated from now; run create-tables first.",
        ),
    ):
        local = commands.add_parser(name, help=summary, description=description, epilog=EXIT_CODES)
        local.add_argument(
            "--endpoint",
            metavar="URL",
            help="the DynamoDB endpoint (default: INSIGHT_DYNAMODB_ENDPOINT_URL; one is required)",
        )
        local.set_defaults(run=partial(_at_local_endpoint, run))
    add_token_command(commands.add_parser)
    add_documents_command(commands.add_parser)
    add_explain_command(commands)
    add_usage_command(commands)
    return parser


def _at_local_endpoint(
    run: Callable[[Settings], int], args: argparse.Namespace, settings: Settings
) -> int:
    """A command for a local endpoint: `run` with the settings naming it (2 without one),
    its AdminError the command's failure (1)."""
    if args.endpoint:
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=args.endpoint)
    elif not settings.dynamodb_endpoint_url:
        print(
            f"insight-gateway {args.command}: give --endpoint URL or "
            "INSIGHT_DYNAMODB_ENDPOINT_URL; this is for a local DynamoDB (in AWS the tables "
            "belong to the Insight Service's infrastructure)",
            file=sys.stderr,
        )
        return 2
    try:
        return run(settings)
    except AdminError as error:
        print(f"insight-gateway {args.command}: {error}", file=sys.stderr)
        return 1


def run_schema(args: argparse.Namespace, settings: Settings) -> int:
    print(schema_sdl(federation=args.federation), end="")
    return 0


def schema_sdl(*, federation: bool = False) -> str:
    """The printed schema, newline-terminated: the content of schema.graphql, its entry
    points first; with `federation`, the subgraph's SDL exactly as its `_service { sdl }`
    answers it."""
    built = build_schema(federation=federation)
    if federation:
        return built.as_str() + "\n"
    return entry_points_first(built.as_str(), graphql_schema(built)) + "\n"


def run_create_tables(local: Settings) -> int:
    created = asyncio.run(create_local_tables(local))
    existing = sorted(set(local.tables.all().values()) - set(created))
    for name in created:
        print(f"created {name}")
    for name in existing:
        print(f"exists  {name}")
    return 0


def run_seed_demo(local: Settings) -> int:
    count = asyncio.run(seed_local_demo(local, SystemClock().now()))
    print(f"wrote {count} demo items at {local.dynamodb_endpoint_url}")
    return 0


def _warn(line: str) -> None:
    # Before any logging is set up, and whichever command runs: a plain line on stderr.
    print(f"insight-gateway: warning: {line}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_environ(warn=_warn)
    except SettingsError as error:
        print(f"insight-gateway: {error}", file=sys.stderr)
        return 2
    code: int = args.run(args, settings)
    return code


if __name__ == "__main__":
    sys.exit(main())
