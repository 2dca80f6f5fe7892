"""`insight-gateway`: run the gateway and its local tooling."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Sequence

import uvicorn

from gateway.app import create_app
from gateway.clock import SystemClock
from gateway.demo import seed_demo
from gateway.embedded import EmbeddedDynamoDB
from gateway.resources import open_dynamo
from gateway.settings import Settings, SettingsError
from loaders.tables import create_tables


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="insight-gateway", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the GraphQL gateway")
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
    return parser


def run_serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.endpoint:
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=args.endpoint)
    embedded: EmbeddedDynamoDB | None = None
    if args.embedded:
        if settings.dynamodb_endpoint_url:
            print(
                "insight-gateway: --embedded starts its own DynamoDB; "
                "drop --endpoint / INSIGHT_DYNAMODB_ENDPOINT_URL",
                file=sys.stderr,
            )
            return 2
        embedded = EmbeddedDynamoDB()
        embedded.start()
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=embedded.endpoint_url)
        count = asyncio.run(_prepare_embedded(settings))
        print(f"Embedded DynamoDB at {embedded.endpoint_url}: five tables, {count} demo items")
    try:
        app = create_app(settings)
        print(f"GraphiQL: http://{args.host}:{args.port}/graphql", flush=True)
        uvicorn.run(app, host=args.host, port=args.port, log_level="info")
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
