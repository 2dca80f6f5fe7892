"""`insight-gateway`: run the gateway and its local tooling."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import uvicorn

from gateway.app import create_app
from gateway.auth.token_command import add_token_command, demo_token, generated_secret
from gateway.cli.admin import AdminError, create_local_tables, seed_local_demo
from gateway.cli.demo import ADA, seed_demo
from gateway.cli.documents import add_documents_command
from gateway.cli.examples import demo_user_query
from gateway.http.graphiql import GraphiQLDefaults
from gateway.observability.logs import log_config
from gateway.protection.trusted_documents import ManifestError
from gateway.resources import open_dynamo
from gateway.settings import Settings, SettingsError
from loaders.tables import create_tables
from schema.clock import SystemClock
from schema.root import build_schema

EXIT_CODES = (
    "exit codes: 0 done, 1 the task failed (e.g. DynamoDB unreachable), 2 bad usage or settings"
)


if TYPE_CHECKING:
    from gateway.cli.embedded import EmbeddedDynamoDB as EmbeddedDynamoDBType


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="insight-gateway",
        description=__doc__,
        epilog=EXIT_CODES + "; settings come from INSIGHT_* variables (see the README)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the GraphQL gateway", epilog=EXIT_CODES)
    serve.add_argument(
        "--embedded",
        action="store_true",
        help="start an embedded DynamoDB (moto) with the five tables and demo users",
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
        help="print the GraphQL schema (SDL), as in schema.graphql",
        description="Print the gateway's GraphQL schema in SDL; schema.graphql is its output.",
        epilog=EXIT_CODES,
    )
    schema.add_argument(
        "--federation",
        action="store_true",
        help="print the Apollo Federation 2 subgraph SDL (as INSIGHT_FEDERATION=true serves it "
        "in `_service { sdl }`), for a router's composition",
    )
    schema.set_defaults(run=run_schema)

    create = commands.add_parser(
        "create-tables",
        help="create the five tables at a local DynamoDB endpoint",
        description="Create those of the five tables (names from INSIGHT_TABLE_*) that do not "
        "exist yet at a local DynamoDB endpoint (DynamoDB Local, moto), with TTL on `ttl`.",
        epilog=EXIT_CODES,
    )
    _endpoint_argument(create)
    create.set_defaults(run=run_create_tables)

    seed = commands.add_parser(
        "seed-demo",
        help="write the demo users' items at a local DynamoDB endpoint",
        description="Write the demo users (demo-ada, demo-bob, demo-cy) into the tables at a "
        "local DynamoDB endpoint, dated from now; run create-tables first.",
        epilog=EXIT_CODES,
    )
    _endpoint_argument(seed)
    seed.set_defaults(run=run_seed_demo)
    add_token_command(commands)
    add_documents_command(commands)
    return parser


def _endpoint_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="the DynamoDB endpoint (default: INSIGHT_DYNAMODB_ENDPOINT_URL; one is required)",
    )


def _with_endpoint(args: argparse.Namespace, settings: Settings) -> Settings | None:
    if args.endpoint:
        return dataclasses.replace(settings, dynamodb_endpoint_url=args.endpoint)
    if settings.dynamodb_endpoint_url:
        return settings
    print(
        f"insight-gateway {args.command}: give --endpoint URL or INSIGHT_DYNAMODB_ENDPOINT_URL; "
        "this is for a local DynamoDB (in AWS the tables belong to the Insight Service's "
        "infrastructure)",
        file=sys.stderr,
    )
    return None


def run_schema(args: argparse.Namespace, settings: Settings) -> int:
    print(schema_sdl(federation=args.federation), end="")
    return 0


def schema_sdl(*, federation: bool = False) -> str:
    """The printed schema, newline-terminated: the content of schema.graphql; with
    `federation`, the subgraph's SDL (what its `_service { sdl }` answers)."""
    return build_schema(federation=federation).as_str() + "\n"


def run_create_tables(args: argparse.Namespace, settings: Settings) -> int:
    local = _with_endpoint(args, settings)
    if local is None:
        return 2
    try:
        created = asyncio.run(create_local_tables(local))
    except AdminError as error:
        print(f"insight-gateway create-tables: {error}", file=sys.stderr)
        return 1
    existing = sorted(set(local.tables.all().values()) - set(created))
    for name in created:
        print(f"created {name}")
    for name in existing:
        print(f"exists  {name}")
    return 0


def run_seed_demo(args: argparse.Namespace, settings: Settings) -> int:
    local = _with_endpoint(args, settings)
    if local is None:
        return 2
    try:
        count = asyncio.run(seed_local_demo(local, SystemClock().now()))
    except AdminError as error:
        print(f"insight-gateway seed-demo: {error}", file=sys.stderr)
        return 1
    print(f"wrote {count} demo items at {local.dynamodb_endpoint_url}")
    return 0


def embedded_graphiql(token: str | None) -> GraphiQLDefaults:
    """What GraphiQL opens with in the embedded mode: a demo user's query, and the token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return GraphiQLDefaults(query=demo_user_query(ADA), headers=headers)


def run_serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.endpoint:
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=args.endpoint)
    embedded: EmbeddedDynamoDBType | None = None
    graphiql: GraphiQLDefaults | None = None
    if args.embedded:
        if settings.dynamodb_endpoint_url:
            print(
                "insight-gateway: --embedded starts its own DynamoDB; "
                "drop --endpoint / INSIGHT_DYNAMODB_ENDPOINT_URL",
                file=sys.stderr,
            )
            return 2
        try:
            from gateway.cli.embedded import EmbeddedDynamoDB
        except ImportError:
            print(
                "insight-gateway: --embedded needs moto's server: "
                "pip install 'insight-gateway[embedded]'",
                file=sys.stderr,
            )
            return 2
        embedded = EmbeddedDynamoDB()
        embedded.start()
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=embedded.endpoint_url)
        count = asyncio.run(_prepare_embedded(settings))
        print(f"Embedded DynamoDB at {embedded.endpoint_url}: five tables, {count} demo items")
        # The embedded gateway is for exploring: GraphiQL, introspection and the
        # subscriptions are always on.
        settings = dataclasses.replace(
            settings, graphiql=True, introspection=True, subscriptions=True
        )
        if not settings.auth_hs256_secret:
            settings = dataclasses.replace(settings, auth_hs256_secret=generated_secret())
        token = demo_token(settings)
        print(f"Bearer token (dashboard, writer; 12 h), pre-filled in GraphiQL:\n{token}")
        graphiql = embedded_graphiql(token=token)
    try:
        try:
            app = create_app(settings, graphiql=graphiql)
        except ManifestError as error:
            print(f"insight-gateway: INSIGHT_TRUSTED_DOCUMENTS_FILE: {error}", file=sys.stderr)
            return 2
        print(f"GraphiQL: http://{args.host}:{args.port}/graphql", flush=True)
        # On SIGTERM uvicorn stops accepting, lets in-flight requests finish (up to the
        # grace period), then runs the lifespan's exit, which closes the DynamoDB client.
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level="info",
            log_config=log_config(),
            access_log=False,
            timeout_graceful_shutdown=math.ceil(settings.shutdown_grace_seconds),
            # A WebSocket frame over the body bound is refused (1009) before it is buffered.
            ws_max_size=settings.max_body_bytes,
        )
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


async def _prepare_embedded(settings: Settings) -> int:
    async with open_dynamo(settings) as dynamo:
        await create_tables(dynamo.client, settings.tables)
        return await seed_demo(dynamo, SystemClock().now(), settings)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_environ()
    except SettingsError as error:
        print(f"insight-gateway: {error}", file=sys.stderr)
        return 2
    code: int = args.run(args, settings)
    return code


if __name__ == "__main__":
    sys.exit(main())
