"""`INSIGHT_FEDERATION`: read once, and the app serves the subgraph only when it is set."""

from __future__ import annotations

import pytest

from gateway.settings import Settings, SettingsError
from loaders.dynamodb import Dynamo
from support.fixed_clock import FixedClock
from support.http_client import END_USER, OTHER_USER, gateway_client, tokens

ENTITIES = (
    "query($r: [_Any!]!) { _entities(representations: $r) "
    "{ ... on User { id alert { alertSent } } } }"
)


@pytest.mark.parametrize(("raw", "federation"), [(None, False), ("true", True), ("0", False)])
def test_the_setting_is_read_as_a_boolean(raw: str | None, federation: bool) -> None:
    environ = {} if raw is None else {"INSIGHT_FEDERATION": raw}
    assert Settings.from_environ(environ).federation is federation


def test_a_bad_value_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="INSIGHT_FEDERATION must be true or false"):
        Settings.from_environ({"INSIGHT_FEDERATION": "subgraph"})


async def test_the_app_serves_entities_when_federation_is_on(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    token = tokens(clock)["dashboard"]()
    headers = {"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"}
    representations = [{"__typename": "User", "id": u} for u in (END_USER, OTHER_USER)]
    async with gateway_client(settings, dynamo, clock, federation=True) as client:
        response = await client.post(
            "/graphql",
            json={"query": ENTITIES, "variables": {"r": representations}},
            headers=headers,
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"] == {
        "_entities": [{"id": END_USER, "alert": None}, {"id": OTHER_USER, "alert": None}]
    }
    assert body["extensions"]["cost"]["dynamodbCalls"] == 1
    assert body["extensions"]["cost"]["roundTrips"] == 1


async def test_the_app_serves_the_plain_schema_by_default(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    headers = {"Authorization": f"Bearer {tokens(clock)['dashboard']()}"}
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql", json={"query": "{ _service { sdl } }"}, headers=headers
        )
    errors = response.json()["errors"]
    assert [error["extensions"]["code"] for error in errors] == ["GRAPHQL_VALIDATION_FAILED"]
