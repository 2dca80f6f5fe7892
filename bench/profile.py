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


async def profile_gateway(endpoint: str, secret: str, user_ids: list[str], query: str) -> None:
    settings = Settings.from_environ(
        {"INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint, "INSIGHT_AUTH_HS256_SECRET": secret}
    )
    app = create_app(settings)
    token = mint_token(secret, "bench", [DASHBOARD], timedelta(hours=1), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    body: dict[str, Any] = {"query": query, "variables": {"ids": user_ids}}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
            for _ in range(3):
                (await client.post("/graphql", json=body, headers=headers)).raise_for_status()
            profiler = Profiler(interval=0.0005, async_mode="enabled")
            with profiler:
                for _ in range(REQUESTS):
                    response = await client.post("/graphql", json=body, headers=headers)
                    response.raise_for_status()
    session = profiler.last_session
    assert session is not None
    root = session.root_frame()
    assert root is not None
    by_package, by_function = _self_times(root)
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
