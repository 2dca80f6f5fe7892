"""`python -m bench requests` calls the gateway's app directly: its caller is answered as an
HTTP client is, and a refused request stops the run instead of being timed."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from bench.request_cpu import caller
from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import SECRET


async def test_a_request_is_answered_and_a_refusal_raises(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    app = create_app(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock=clock)
    app.state.resources = Resources(dynamo)
    token = mint_token(SECRET, "u-1", [], timedelta(hours=1), clock)
    await caller(app, "{ __typename }", token)()
    await caller(app, "{ __typename }", token)()
    with pytest.raises(RuntimeError, match="answered 401"):
        await caller(app, "{ __typename }", "not-a-token")()
    with pytest.raises(RuntimeError, match=r"answered 200: .*errors"):
        await caller(app, "{ nothing }", token)()
