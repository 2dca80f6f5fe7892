"""Absurd claims in a correctly signed token: time claims that are no date, and a `sub`
that names nobody, are 401 `UNAUTHENTICATED` (never a 500, never accepted)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway.auth.tokens import TokenVerifier, Unauthenticated, hs256_key_from_secret
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from support import jwt_factory
from support.fixed_clock import FixedClock
from support.http_client import SECRET, gateway_client
from tests.conftest import NOW

T = int(NOW.timestamp())


def signed(**overrides: Any) -> str:
    claims: dict[str, Any] = {"sub": "u-1", "iat": T, "exp": T + 600, **overrides}
    return jwt_factory.hs256(SECRET.encode(), claims)


def signed_raw(payload: str) -> str:
    """A token over a payload written by hand (JSON that `json.dumps` would not write)."""
    return jwt_factory.hs256_raw(
        SECRET.encode(),
        jwt_factory.segment({"alg": "HS256", "typ": "JWT"}),
        jwt_factory.b64(payload.encode()),
    )


ABSURD = [
    pytest.param(signed(exp=10**400), "'exp' claim is not accepted: not a date", id="exp 10**400"),
    pytest.param(signed(exp=1e308), "'exp' claim is not accepted: not a date", id="exp 1e308"),
    pytest.param(
        signed(exp="tomorrow"), "'exp' claim is not accepted: not a date", id="exp a string"
    ),
    pytest.param(signed(exp=True), "'exp' claim is not accepted: not a date", id="exp true"),
    pytest.param(signed(exp=-1), "'exp' claim is not accepted: not a date", id="exp negative"),
    pytest.param(signed(nbf=10**400), "'nbf' claim is not accepted: not a date", id="nbf 10**400"),
    pytest.param(signed(iat=[T]), "'iat' claim is not accepted: not a date", id="iat a list"),
    pytest.param(
        signed_raw(f'{{"sub":"u-1","exp":NaN,"iat":{T}}}'),
        "'exp' claim is not accepted: not a date",
        id="exp NaN",
    ),
    pytest.param(
        signed_raw('{"sub":"u-1","exp":Infinity}'),
        "'exp' claim is not accepted: not a date",
        id="exp Infinity",
    ),
    pytest.param(
        signed(sub="   "), "'sub' claim is not accepted: it names nobody", id="sub spaces"
    ),
    pytest.param(signed(sub=""), "'sub' claim is not accepted: it names nobody", id="sub empty"),
    pytest.param(signed(sub=42), "'sub' claim is not accepted: it names nobody", id="sub a number"),
]


@pytest.mark.parametrize(("token", "message"), ABSURD)
def test_absurd_claims_are_unauthenticated(token: str, message: str) -> None:
    verifier = TokenVerifier(clock=FixedClock(NOW), hs256_key=hs256_key_from_secret(SECRET))
    with pytest.raises(Unauthenticated) as refused:
        verifier.verify_session(f"Bearer {token}")
    assert message in refused.value.message


@pytest.mark.parametrize(("token", "message"), ABSURD)
async def test_over_http_they_are_401(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, token: str, message: str
) -> None:
    async with gateway_client(settings, dynamo, clock) as client:
        response = await client.post(
            "/graphql",
            content=json.dumps({"query": "{ viewer { id } }"}),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
    assert response.status_code == 401
    (error,) = response.json()["errors"]
    assert error["extensions"] == {"code": "UNAUTHENTICATED"}
    assert message in error["message"]
    assert response.headers["x-request-id"]
