"""A gateway served on 127.0.0.1 and the clients that read it, named by their headers, for
the tests of the commands that read field usage (`usage`, `schema check`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import httpx

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from schema.principal import DASHBOARD
from support.fixed_clock import FixedClock
from tests.conftest import NOW
from tests.live_server import serve_in_thread

SECRET = "usage-command-secret-0123456789abcdef"


@contextmanager
def served_gateway(settings: Settings) -> Iterator[str]:
    """A gateway that accepts tokens signed with SECRET; yields its base URL."""
    app = create_app(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock=FixedClock(NOW))
    with serve_in_thread(app) as base_url:
        yield base_url


def send(url: str, query: str, client: dict[str, str]) -> None:
    """One operation from a dashboard, naming its client by `client` (headers)."""
    token = mint_token(SECRET, "dash-1", [DASHBOARD], timedelta(hours=1), FixedClock(NOW))
    answer = httpx.post(
        f"{url}/graphql",
        json={"query": query},
        headers={"Authorization": f"Bearer {token}", **client},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
