"""`insight-gateway serve`: the port first, then (with `--embedded`) a DynamoDB of its own with
the demo users and tokens to paste, then uvicorn on the socket already bound."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import errno
import ipaddress
import math
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from gateway.app import create_app
from gateway.auth.dev_secret import DevSecretError, dev_secret_path, load_or_create_dev_secret
from gateway.auth.token_command import MAX_LIFETIME
from gateway.auth.tokens import mint_token
from gateway.cli.demo import ADA, seed_demo
from gateway.cli.examples import demo_user_query
from gateway.http.graphiql import GraphiQLDefaults
from gateway.live_http.server_protocol import GatewayHttpProtocol
from gateway.observability.logs import log_config
from gateway.operations.hosts import LOOPBACK_HOSTS
from gateway.protection.trusted_documents import ManifestError
from gateway.resources import open_dynamo
from gateway.settings import Settings
from gateway.subscriptions.capacity import raise_open_file_limit
from gateway.subscriptions.server_protocol import GatewayWebSocketProtocol
from loaders.tables import create_tables
from schema.clock import SystemClock
from schema.principal import DASHBOARD, WRITER

if TYPE_CHECKING:
    from gateway.cli.embedded import EmbeddedDynamoDB


@dataclass(frozen=True, slots=True)
class DemoToken:
    """One of the embedded mode's printed tokens, and the shell variable it is printed as."""

    variable: str
    sub: str
    roles: tuple[str, ...]
    what: str


DEMO_TOKENS = (
    DemoToken("TOKEN", ADA, (), "an end user: reads only their own user (viewer)"),
    DemoToken(
        "DASHBOARD_TOKEN",
        "demo-dashboard",
        (DASHBOARD,),
        "a dashboard: reads any user (users(ids:))",
    ),
    DemoToken("WRITER_TOKEN", "demo-writer", (WRITER,), "a writer: calls the mutations"),
)


class PortTaken(Exception):
    """The address cannot be listened on; the message says why, in one line."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to `host:port`, before anything else starts, so that a taken port stops
    serve at once; uvicorn then serves on this very socket (no window for another process)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    # As uvicorn binds: a port left in TIME_WAIT by the last run is free to take again.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortTaken(
                f"port {port} on {host} is already in use; choose another with --port "
                f"(make serve PORT={port + 1 if port < 65535 else 8001})"
            ) from error
        raise PortTaken(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
    sock.set_inheritable(True)
    return sock


def demo_tokens(settings: Settings) -> dict[str, str]:
    """The embedded mode's tokens by variable name (TOKEN, DASHBOARD_TOKEN, WRITER_TOKEN)."""
    assert settings.auth_hs256_secret is not None
    clock = SystemClock()
    return {
        demo.variable: mint_token(
            settings.auth_hs256_secret,
            demo.sub,
            list(demo.roles),
            # Long enough to sit in an app's `.env`; only the checkout's secret opens them.
            MAX_LIFETIME,
            clock,
            issuer=settings.auth_issuer,
            audience=settings.auth_audience,
        )
        for demo in DEMO_TOKENS
    }


def embedded_graphiql(token: str | None) -> GraphiQLDefaults:
    """What GraphiQL opens with in the embedded mode: a demo user's query, and the token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return GraphiQLDefaults(query=demo_user_query(ADA), headers=headers)


def embedded_hosts(host: str) -> tuple[str, ...]:
    """The hosts `serve --embedded` answers when INSIGHT_ALLOWED_HOSTS is unset: the
    loopback names, and the address it listens on when that is one address of this
    machine's (not every address: `0.0.0.0` or `::`)."""
    named = f"[{host}]" if ":" in host else host
    if named in LOOPBACK_HOSTS or host in ("0.0.0.0", "::", ""):
        return LOOPBACK_HOSTS
    return (*LOOPBACK_HOSTS, named.lower())


def exposed_token_warning(host: str) -> str | None:
    """The embedded mode's GraphiQL page holds a dashboard token (any user's data): on an
    address other machines reach, anyone who opens the page has it."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False  # a name: it may well resolve to an interface others reach
    if loopback:
        return None
    return (
        f"warning: --embedded on {host}, not a loopback address: its GraphiQL page holds a "
        "dashboard token that reads every user's data, and anyone who can reach this address "
        "can open it; use --host 127.0.0.1 unless this is a throwaway machine"
    )


def run_serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.embedded and (warning := exposed_token_warning(args.host)):
        print(f"insight-gateway: {warning}", file=sys.stderr, flush=True)
    if args.endpoint:
        settings = dataclasses.replace(settings, dynamodb_endpoint_url=args.endpoint)
    if args.embedded and settings.dynamodb_endpoint_url:
        _fail("--embedded starts its own DynamoDB; drop --endpoint / INSIGHT_DYNAMODB_ENDPOINT_URL")
        return 2
    try:
        sock = listening_socket(args.host, args.port)
    except PortTaken as taken:
        _fail(str(taken))
        return 2
    with sock:
        return _serve(args, settings, sock)


def _serve(args: argparse.Namespace, settings: Settings, sock: socket.socket) -> int:
    embedded: EmbeddedDynamoDB | None = None
    graphiql: GraphiQLDefaults | None = None
    if args.embedded:
        try:
            from gateway.cli.embedded import EmbeddedDynamoDB
        except ImportError:
            _fail("--embedded needs moto's server: pip install 'insight-gateway[embedded]'")
            return 2
        secret, origin = _embedded_secret(settings)
        if secret is None:
            return 2
        embedded = EmbeddedDynamoDB()
        embedded.start()
        settings = dataclasses.replace(
            settings,
            dynamodb_endpoint_url=embedded.endpoint_url,
            auth_hs256_secret=secret,
            # The embedded gateway is for exploring: GraphiQL, introspection and the
            # subscriptions are always on.
            graphiql=True,
            introspection=True,
            subscriptions=True,
            allowed_hosts=settings.allowed_hosts or embedded_hosts(args.host),
        )
        count = asyncio.run(_prepare_embedded(settings))
        print(f"Embedded DynamoDB at {embedded.endpoint_url}: six tables, {count} demo items")
        tokens = demo_tokens(settings)
        _print_tokens(tokens, origin)
        graphiql = embedded_graphiql(token=tokens["DASHBOARD_TOKEN"])
    try:
        try:
            app = create_app(settings, graphiql=graphiql)
        except ManifestError as error:
            _fail(f"INSIGHT_TRUSTED_DOCUMENTS_FILE: {error}")
            return 2
        print(f"GraphiQL: http://{args.host}:{args.port}/graphql", flush=True)
        raise_open_file_limit(settings.subscriptions_max_sockets)
        # On SIGTERM uvicorn stops accepting, lets in-flight requests finish (up to the
        # grace period), then runs the lifespan's exit, which closes the DynamoDB client.
        config = uvicorn.Config(
            app,
            log_level="info",
            log_config=log_config(settings.log_format),
            access_log=False,
            timeout_graceful_shutdown=math.ceil(settings.shutdown_grace_seconds),
            # A WebSocket frame over the body bound is refused (1009) before it is buffered.
            ws_max_size=settings.max_body_bytes,
            # Compression as INSIGHT_SUBSCRIPTIONS_COMPRESSION says; sockets closed with 1012
            # spread over the grace period at SIGTERM (as the image's `--ws`).
            ws=GatewayWebSocketProtocol,
            # The request head bounded, and the live HTTP streams ended with `retry:` at SIGTERM
            # (as the image's `--http`).
            http=GatewayHttpProtocol,
        )
        server = uvicorn.Server(config)
        server.run(sockets=[sock])
        if not server.started:
            return 1  # the app did not start (its lifespan failed): uvicorn logged why
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def _embedded_secret(settings: Settings) -> tuple[str | None, str]:
    """The key of the embedded gateway's tokens, and where it comes from: the variable when
    set, else the checkout's development secret (made on first use, kept across restarts)."""
    if settings.auth_hs256_secret:
        return settings.auth_hs256_secret, "INSIGHT_AUTH_HS256_SECRET"
    path = dev_secret_path()
    try:
        secret, made = load_or_create_dev_secret(path)
    except DevSecretError as error:
        _fail(str(error))
        return None, ""
    return secret, f"the development secret {_shown(path)}{' (made now)' if made else ''}"


def _shown(path: Path) -> str:
    try:
        return "./" + str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _print_tokens(tokens: dict[str, str], origin: str) -> None:
    days = MAX_LIFETIME.days
    print(f"Tokens for {days} days, signed with {origin};")
    print("`.venv/bin/insight-gateway token` run in this checkout signs with it too.")
    print("Paste into a shell:")
    for demo in DEMO_TOKENS:
        print(f"# {demo.sub}, {demo.what}")
        print(f"export {demo.variable}={tokens[demo.variable]}")
    print("GraphiQL's Headers hold $DASHBOARD_TOKEN.")


async def _prepare_embedded(settings: Settings) -> int:
    async with open_dynamo(settings) as dynamo:
        await create_tables(dynamo.client, settings.tables)
        return await seed_demo(dynamo, SystemClock().now(), settings)


def _fail(message: str) -> None:
    print(f"insight-gateway: {message}", file=sys.stderr)
