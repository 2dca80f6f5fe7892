"""A browser at the gateway: `/` leads to GraphiQL, and a link to `/graphql?query=…` opened
without a token opens GraphiQL on that query instead of answering 401."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from gateway.app import create_app
from gateway.cli.serve import embedded_graphiql
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
QUERY = '{ viewer { id savingsMonths { month } } } # </script><script>alert("x")</script>'


def page_config(page: str) -> dict[str, Any]:
    match = re.search(r"const config = (.*);\n", page)
    assert match is not None, page
    config: dict[str, Any] = json.loads(match.group(1))
    return config


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/", "/graphql"),
        ("/?query=%7B+viewer+%7B+id+%7D+%7D", "/graphql?query=%7B+viewer+%7B+id+%7D+%7D"),
    ],
)
async def test_the_root_leads_to_graphiql(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, path: str, location: str
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(path, headers={"Accept": BROWSER})

    assert response.status_code == 307
    assert response.headers["location"] == location


async def test_with_graphiql_off_the_root_stays_a_plain_404(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, graphiql=False) as client:
        response = await client.get("/", headers={"Accept": BROWSER})

    assert response.status_code == 404
    assert "location" not in response.headers


async def test_a_link_to_a_query_opens_graphiql_on_it(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(
            "/graphql",
            params={"query": QUERY, "variables": '{"n": 1}'},
            headers={"Accept": BROWSER},
        )

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    config = page_config(response.text)
    assert config["defaultQuery"] == QUERY
    assert config["defaultVariables"] == '{"n": 1}'
    assert '</script><script>alert("x")' not in response.text


async def test_the_embedded_page_keeps_its_token_for_a_linked_query() -> None:
    app = create_app(Settings(), graphiql=embedded_graphiql(token="a.b.c"))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://gateway"
    ) as browser:
        response = await browser.get(
            "/graphql", params={"query": "{ viewer { id } }"}, headers={"Accept": BROWSER}
        )

    config = page_config(response.text)
    assert config["defaultQuery"] == "{ viewer { id } }"
    assert json.loads(config["defaultHeaders"]) == {"Authorization": "Bearer a.b.c"}


async def test_with_a_token_the_query_is_answered_not_shown(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = tokens(clock)["end user"]()
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.get(
            "/graphql",
            params={"query": "{ viewer { id } }"},
            headers={
                "Accept": "text/html, application/json;q=0.9",
                "Authorization": f"Bearer {token}",
            },
        )

    assert response.status_code == 200
    assert response.json() == {"data": {"viewer": {"id": "u-1"}}}


async def test_with_graphiql_off_a_linked_query_without_a_token_is_still_401(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway_client(settings, dynamo, clock, graphiql=False) as client:
        response = await client.get(
            "/graphql", params={"query": "{ viewer { id } }"}, headers={"Accept": BROWSER}
        )

    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
