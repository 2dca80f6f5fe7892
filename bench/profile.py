"""Where a request's time goes: the gateway app in this process (its ASGI app, without
uvicorn's HTTP parsing) under pyinstrument, summed by package and by function."""

from __future__ import annotations

import os
from collections import defaultdict
from datetime import timedelta
from typing import Any

import httpx
from pyinstrument import Profiler
from pyinstrument.frame import SELF_TIME_FRAME_IDENTIFIER as SELF
from pyinstrument.frame import Frame

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from schema.clock import SystemClock
from schema.principal import DASHBOARD

REQUESTS = 40
TOP = 20


def _package(frame: Frame) -> str:
    path = frame.file_path or ""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0]
    if "/lib/python" in path:
        return "stdlib:" + path.rsplit("/", 1)[-1].removesuffix(".py")
    if "/work/" in path or path.startswith(os.getcwd()):
        parts = os.path.relpath(path).split("/")
        return "/".join(parts[:2]) if len(parts) > 1 else parts[0]
    return frame.function or "?"


def _self_times(root: Frame) -> tuple[dict[str, float], dict[str, float]]:
    by_package: dict[str, float] = defaultdict(float)
    by_function: dict[str, float] = defaultdict(float)
    stack = [root]
    while stack:
        frame = stack.pop()
        real = [child for child in frame.children if not child.is_synthetic]
        stack.extend(real)
        # Running time only: time spent awaiting (DynamoDB's answers) is not the gateway's.
        busy = frame.time - sum(child.time for child in frame.children if child.identifier != SELF)
        if frame.is_synthetic or busy <= 0:
            continue
        by_package[_package(frame)] += busy
        where = f"{frame.function} ({os.path.basename(frame.file_path or '?')}:{frame.line_no})"
        by_function[where] += busy
    return by_package, by_function


def _top(times: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(times.items(), key=lambda entry: entry[1], reverse=True)[:TOP]


async def _profiled(
    endpoint: str, secret: str, token: str, body: dict[str, Any], requests: int = REQUESTS
) -> tuple[dict[str, float], dict[str, float]]:
    settings = Settings.from_environ(
        {
            "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
            "INSIGHT_AUTH_HS256_SECRET": secret,
            "INSIGHT_RATE_LIMIT_USER": "999999999/second",  # charged, never exhausted
        }
    )
    app = create_app(settings)
    headers = {"Authorization": f"Bearer {token}"}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
            for _ in range(3):
                (await client.post("/graphql", json=body, headers=headers)).raise_for_status()
            profiler = Profiler(interval=0.0005, async_mode="enabled")
            with profiler:
                for _ in range(requests):
                    response = await client.post("/graphql", json=body, headers=headers)
                    response.raise_for_status()
    session = profiler.last_session
    assert session is not None
    root = session.root_frame()
    assert root is not None
    return _self_times(root)


async def profile_gateway(endpoint: str, secret: str, user_ids: list[str], query: str) -> None:
    token = mint_token(secret, "bench", [DASHBOARD], timedelta(hours=1), SystemClock())
    body: dict[str, Any] = {"query": query, "variables": {"ids": user_ids}}
    by_package, by_function = await _profiled(endpoint, secret, token, body)
    total = sum(by_package.values()) or 1.0
    print(
        f"profile: {REQUESTS} requests of users(ids: {len(user_ids)} ids) with every field, "
        f"in process, {total / REQUESTS * 1000:.1f} ms running per request (awaits excluded)"
    )
    print(f"{'self time by package':<48}{'share':>7}")
    for package, seconds in _top(by_package):
        print(f"  {package:<46}{seconds / total:7.1%}")
    print(f"{'self time by function':<80}{'share':>7}")
    for function, seconds in _top(by_function):
        print(f"  {function[:78]:<78}{seconds / total:7.1%}")


#: The parts of a request's running time, by the packages (as `_package` names them) that
#: spend it; anything else is "other".
LAYERS = (
    (
        "the DynamoDB client (aiobotocore, botocore, aiohttp, the JSON parse)",
        ("aiobotocore", "botocore", "aiohttp", "yarl", "multidict", "loads", "socket."),
    ),
    ("the DynamoDB calls' own code and decoding items into rows (loaders/)", ("loaders/",)),
    ("GraphQL execution (graphql-core, strawberry, schema/)", ("graphql", "strawberry", "schema/")),
    (
        "HTTP, auth, metrics, budgets (gateway/, joserfc, limits, prometheus_client)",
        ("gateway/", "joserfc", "limits", "prometheus_client"),
    ),
    ("ASGI (starlette, and httpx: the in-process client)", ("starlette", "httpx", "h11", "anyio")),
    ("asyncio and the rest of the standard library", ("stdlib:", "epoll.", "select")),
)


OTHER = "builtins called from all of these (isinstance, __init__, dict.get, ...)"
FRONTEND_REQUESTS = 200


async def profile_frontend(endpoint: str, secret: str, sub: str, query: str) -> None:
    """The frontend query as `sub`, over `endpoint` (the replayer: no wait is DynamoDB's),
    summed by layer."""
    token = mint_token(secret, sub, [], timedelta(hours=1), SystemClock())
    by_package, _ = await _profiled(endpoint, secret, token, {"query": query}, FRONTEND_REQUESTS)
    total = sum(by_package.values()) or 1.0
    layers = dict.fromkeys([name for name, _ in LAYERS] + [OTHER], 0.0)
    for package, seconds in by_package.items():
        layer = next((name for name, starts in LAYERS if package.startswith(starts)), OTHER)
        layers[layer] += seconds
    print(
        f"profile: {FRONTEND_REQUESTS} frontend requests over replayed DynamoDB, in process,"
        " self time by layer (shares: the profiler inflates the time itself)"
    )
    for name, seconds in layers.items():
        print(f"  {name:<78}{seconds / total:7.1%}")
