"""The gateway app over httpx's ASGI transport, on the suite's moto tables and clock.

The app's `Dynamo` is the suite's (over the session client), so `dynamodb_calls` counts
every DynamoDB call a request causes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from schema.clock import Clock
from schema.principal import DASHBOARD, WRITER
from support import jwt_factory
from support.fixed_clock import FixedClock

SECRET = "http-tests-secret-0123456789abcdef"
OTHER_SECRET = "another-secret-0123456789abcdefghij"
END_USER = "u-1"
OTHER_USER = "u-2"


@asynccontextmanager
async def gateway_client(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    configured = dataclasses.replace(settings, auth_hs256_secret=SECRET, **overrides)
    app = create_app(configured, clock=clock)
    app.state.resources = Resources(dynamo)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client


@asynccontextmanager
async def app_client(
    settings: Settings,
    clock: Clock,
    *,
    roles: Sequence[str] = (DASHBOARD,),
    headers: Mapping[str, str] | None = None,
    http_timeout: float = 5.0,
) -> AsyncIterator[httpx.AsyncClient]:
    """The app of `settings` with its lifespan running (its own DynamoDB client), reached over
    ASGI with a bearer token of `dash-1` holding `roles`, signed with the settings' secret."""
    assert settings.auth_hs256_secret is not None
    app = create_app(settings, clock=clock)
    token = mint_token(settings.auth_hs256_secret, "dash-1", list(roles), timedelta(hours=1), clock)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app),
            base_url="http://gateway",
            headers={"Authorization": f"Bearer {token}", **(headers or {})},
            timeout=http_timeout,
        ) as client,
    ):
        yield client


def tokens(clock: FixedClock) -> dict[str, Callable[[], str]]:
    """Every kind of token the tests send, by name, minted at the clock's now."""
    now = int(clock.now().timestamp())

    def claims(**extra: Any) -> dict[str, Any]:
        return {"sub": END_USER, "iat": now, "exp": now + 600, **extra}

    def hour(roles: list[str]) -> str:
        return mint_token(SECRET, END_USER, roles, timedelta(hours=1), clock)

    return {
        "end user": lambda: hour([]),
        "dashboard": lambda: hour([DASHBOARD]),
        "writer": lambda: hour([WRITER]),
        "expired": lambda: jwt_factory.hs256(SECRET.encode(), claims(exp=now - 3600)),
        "not yet valid": lambda: jwt_factory.hs256(SECRET.encode(), claims(nbf=now + 3600)),
        "unsigned": lambda: jwt_factory.unsigned({"alg": "none"}, claims(roles=[DASHBOARD])),
        "re-signed": lambda: jwt_factory.hs256(OTHER_SECRET.encode(), claims(roles=[DASHBOARD])),
        "tampered": lambda: ".".join(
            [
                hour([]).split(".")[0],
                jwt_factory.segment(claims(roles=[DASHBOARD])),
                hour([]).split(".")[2],
            ]
        ),
        "no exp": lambda: jwt_factory.hs256(SECRET.encode(), {"sub": END_USER}),
        "roles a string": lambda: jwt_factory.hs256(SECRET.encode(), claims(roles=DASHBOARD)),
        "hs512": lambda: jwt_factory.unsigned({"alg": "HS512"}, claims()) + "c2ln",
    }
