"""`INSIGHT_PRICE_READ_UNIT` and `INSIGHT_PRICE_VCPU_HOUR`: read once, checked, and the prices
the served schema's access plan chooses by."""

from __future__ import annotations

import pytest

from gateway.cli.examples import FRONTEND_QUERY
from gateway.settings import Settings, SettingsError
from loaders.dynamodb import Dynamo
from schema.plan_prices import PRICES, Prices
from support.fixed_clock import FixedClock
from support.http_client import gateway_client, tokens
from tests.conftest import CallCounter


def test_the_prices_default_to_todays_and_are_read_as_numbers() -> None:
    assert Settings.from_environ({}).plan_prices == PRICES
    settings = Settings.from_environ(
        {"INSIGHT_PRICE_READ_UNIT": "0.25", "INSIGHT_PRICE_VCPU_HOUR": "0"}
    )
    assert settings.plan_prices == Prices(read_unit=0.25, vcpu_hour=0.0)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"INSIGHT_PRICE_READ_UNIT": "cheap"}, "INSIGHT_PRICE_READ_UNIT must be a number"),
        ({"INSIGHT_PRICE_READ_UNIT": "-0.125"}, "INSIGHT_PRICE_READ_UNIT must be at least 0"),
        ({"INSIGHT_PRICE_VCPU_HOUR": "inf"}, "INSIGHT_PRICE_VCPU_HOUR must be a finite number"),
        ({"INSIGHT_PRICE_VCPU_HOUR": "1000"}, "INSIGHT_PRICE_VCPU_HOUR must be at most 100"),
        (
            {"INSIGHT_PRICE_READ_UNIT": "0", "INSIGHT_PRICE_VCPU_HOUR": "0.0"},
            "INSIGHT_PRICE_READ_UNIT and INSIGHT_PRICE_VCPU_HOUR are both 0",
        ),
    ],
)
def test_a_bad_price_is_refused_naming_the_variable(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_environ(environ)


@pytest.mark.parametrize(("read_unit", "whole"), [(0.125, 2), (0.0, 0)])
async def test_the_app_chooses_its_plan_by_the_settings_prices(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
    read_unit: float,
    whole: int,
) -> None:
    """The frontend's selection: read whole at today's prices (the read units decide), by
    prefixes when read units are free (the same calls, fewer items)."""
    query = FRONTEND_QUERY.replace("viewer", 'users(ids: ["u1", "u2"])')
    headers = {"Authorization": f"Bearer {tokens(clock)['dashboard']()}"}
    async with gateway_client(settings, dynamo, clock, price_read_unit=read_unit) as client:
        response = await client.post("/graphql", json={"query": query}, headers=headers)
    assert response.status_code == 200, response.text
    assert "errors" not in response.json()
    users_queries = [
        params["ExpressionAttributeValues"]
        for name, params in dynamodb_calls.requests
        if name == "Query" and params["ExpressionAttributeValues"][":pk"]["S"].startswith("USERS#")
    ]
    assert len(users_queries) == 2
    assert sum(":prefix" not in values for values in users_queries) == whole
