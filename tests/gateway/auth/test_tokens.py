from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import ECKey, KeySet, RSAKey

from gateway.auth import tokens
from gateway.auth.jwks import parse_jwks
from gateway.auth.tokens import (
    TokenVerifier,
    Unauthenticated,
    hs256_key_from_secret,
    mint_token,
)
from gateway.settings import Settings, SettingsError
from schema.principal import Principal
from support import jwt_factory
from support.fixed_clock import FixedClock

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
T = int(NOW.timestamp())
SECRET = "s" * 40
OTHER_SECRET = "o" * 40

RSA_KEY = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
EC_KEY = ECKey.generate_key("P-256", parameters={"kid": "ec-1"})
RSA_PEM = RSA_KEY.as_pem(private=False)


def claims(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"sub": "u-1", "exp": T + 600, "iat": T}
    base.update(overrides)
    return {key: value for key, value in base.items() if value is not None}


def public_jwks() -> KeySet:
    return parse_jwks({"keys": [RSA_KEY.as_dict(private=False), EC_KEY.as_dict(private=False)]})


@pytest.fixture
def verifier() -> TokenVerifier:
    """HS256 and RS256/ES256 all configured, leeway 30 s, at NOW."""
    return TokenVerifier(
        clock=FixedClock(NOW),
        hs256_key=hs256_key_from_secret(SECRET),
        jwks=public_jwks(),
        leeway_seconds=30,
    )


def hs(**overrides: Any) -> str:
    return jwt_factory.hs256(SECRET.encode(), claims(**overrides))


ACCEPTED: list[tuple[str, Callable[[], str], Principal]] = [
    ("hs256 no roles", lambda: hs(), Principal("u-1")),
    (
        "hs256 roles",
        lambda: hs(roles=["dashboard", "writer"]),
        Principal("u-1", frozenset({"dashboard", "writer"})),
    ),
    ("roles null", lambda: hs(roles=None), Principal("u-1")),
    ("exp within leeway", lambda: hs(exp=T - 20), Principal("u-1")),
    ("nbf within leeway", lambda: hs(nbf=T + 20), Principal("u-1")),
    ("nbf passed", lambda: hs(nbf=T - 60), Principal("u-1")),
    (
        "rs256 by kid",
        lambda: jwt_factory.asymmetric(RSA_KEY, "RS256", claims(), "rsa-1"),
        Principal("u-1"),
    ),
    (
        "es256 by kid",
        lambda: jwt_factory.asymmetric(EC_KEY, "ES256", claims(roles=["dashboard"]), "ec-1"),
        Principal("u-1", frozenset({"dashboard"})),
    ),
]


@pytest.mark.parametrize(
    ("token", "principal"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED]
)
def test_accepts(verifier: TokenVerifier, token: Callable[[], str], principal: Principal) -> None:
    assert verifier.verify(token()) == principal


OTHER_RSA = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})

REFUSED: list[tuple[str, Callable[[], str], str]] = [
    ("expired", lambda: hs(exp=T - 31), "has expired"),
    ("expired exactly at now-leeway", lambda: hs(exp=T - 30), "has expired"),
    ("no exp", lambda: hs(exp=None), "no 'exp' claim"),
    ("exp not a number", lambda: hs(exp="tomorrow"), "'exp' claim is not accepted"),
    ("nbf in the future", lambda: hs(nbf=T + 31), "not valid yet"),
    ("iat in the future", lambda: hs(iat=T + 3600), "issued in the future"),
    ("no sub", lambda: hs(sub=None), "no 'sub' claim"),
    ("empty sub", lambda: hs(sub=""), "'sub' claim is not accepted"),
    ("roles a string", lambda: hs(roles="dashboard"), "list of strings"),
    ("roles with a number", lambda: hs(roles=["dashboard", 1]), "list of strings"),
    (
        "alg none",
        lambda: jwt_factory.unsigned({"alg": "none"}, claims(roles=["dashboard"])),
        "alg 'none'",
    ),
    (
        "alg NoNe",
        lambda: jwt_factory.unsigned({"alg": "NoNe"}, claims()),
        "alg 'none'",
    ),
    ("no alg", lambda: jwt_factory.unsigned({"typ": "JWT"}, claims()), "no 'alg'"),
    (
        "hs512 not configured",
        lambda: jwt_factory.unsigned({"alg": "HS512"}, claims()) + "c2ln",
        "not accepted here",
    ),
    (
        "re-signed with another secret",
        lambda: jwt_factory.hs256(OTHER_SECRET.encode(), claims(roles=["dashboard"])),
        "signature does not verify",
    ),
    (
        "payload swapped under a valid signature",
        lambda: ".".join(
            [
                hs().split(".")[0],
                jwt_factory.segment(claims(sub="u-2")),
                hs().split(".")[2],
            ]
        ),
        "signature does not verify",
    ),
    (
        "hs256 signed with the public RSA key as the secret",
        lambda: jwt_factory.hs256(RSA_PEM, claims(roles=["dashboard"]), {"kid": "rsa-1"}),
        "signature does not verify",
    ),
    (
        "rs256 by an unknown kid",
        lambda: jwt_factory.asymmetric(RSA_KEY, "RS256", claims(), "rsa-9"),
        "kid",
    ),
    (
        "rs256 without kid",
        lambda: jwt_factory.asymmetric(RSA_KEY, "RS256", claims(), None),
        "no 'kid'",
    ),
    (
        "rs256 signed by another key under our kid",
        lambda: jwt_factory.asymmetric(OTHER_RSA, "RS256", claims(), "rsa-1"),
        "signature does not verify",
    ),
    (
        "es256 naming the rsa kid",
        lambda: jwt_factory.asymmetric(EC_KEY, "ES256", claims(), "rsa-1"),
        "No ES256 key",
    ),
    ("not a jwt", lambda: "not-a-token", "not a well-formed JWT"),
    ("two segments", lambda: "a.b", "not a well-formed JWT"),
    ("header not base64 json", lambda: "!!!.e30.c2ln", "not a well-formed JWT"),
    ("header a list", lambda: jwt_factory.segment([1]) + ".e30.c2ln", "not a well-formed JWT"),
    (
        "payload not json",
        lambda: jwt_factory.hs256_raw(
            SECRET.encode(), jwt_factory.segment({"alg": "HS256"}), jwt_factory.b64(b"notjson")
        ),
        "not a well-formed JWT",
    ),
    ("too long", lambda: hs(pad="x" * 9000), "longer than 8192"),
]


@pytest.mark.parametrize(
    ("token", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_refuses(verifier: TokenVerifier, token: Callable[[], str], message: str) -> None:
    with pytest.raises(Unauthenticated, match=message) as raised:
        verifier.verify(token())
    assert raised.value.code == "UNAUTHENTICATED"


def test_hs256_refused_when_only_jwks_is_configured() -> None:
    """The classic confusion: a JWKS-only verifier must not treat its public key as a secret."""
    verifier = TokenVerifier(clock=FixedClock(NOW), jwks=public_jwks())
    assert verifier.algorithms == {"RS256", "ES256"}
    forged = jwt_factory.hs256(RSA_PEM, claims(roles=["dashboard"]), {"kid": "rsa-1"})
    with pytest.raises(Unauthenticated, match="not accepted here"):
        verifier.verify(forged)


def test_rs256_refused_when_only_a_secret_is_configured() -> None:
    verifier = TokenVerifier(clock=FixedClock(NOW), hs256_key=hs256_key_from_secret(SECRET))
    assert verifier.algorithms == {"HS256"}
    with pytest.raises(Unauthenticated, match=r"accepted: HS256\)"):
        verifier.verify(jwt_factory.asymmetric(RSA_KEY, "RS256", claims(), "rsa-1"))


def test_nothing_configured_refuses_everything() -> None:
    with pytest.raises(Unauthenticated, match="none configured"):
        TokenVerifier(clock=FixedClock(NOW)).verify(hs())


@pytest.mark.parametrize(
    ("extra", "accepted"),
    [
        ({"iss": "https://issuer", "aud": "insight"}, True),
        ({"iss": "https://issuer", "aud": ["other", "insight"]}, True),
        ({"aud": "insight"}, False),
        ({"iss": "https://issuer"}, False),
        ({"iss": "https://evil", "aud": "insight"}, False),
        ({"iss": "https://issuer", "aud": "other"}, False),
    ],
)
def test_issuer_and_audience_checked_when_configured(
    verifier: TokenVerifier, extra: dict[str, Any], accepted: bool
) -> None:
    strict = replace(verifier, issuer="https://issuer", audience="insight")
    token = hs(**extra)
    if accepted:
        assert strict.verify(token).sub == "u-1"
    else:
        with pytest.raises(Unauthenticated, match=r"'(iss|aud)' claim"):
            strict.verify(token)
    # Unconfigured, neither claim matters.
    assert verifier.verify(token).sub == "u-1"


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (None, "bearer token is required"),
        ("", "bearer token is required"),
        ("   ", "bearer token is required"),
        ("Basic dTpw", "must be 'Bearer <JWT>'"),
        ("Bearer", "must be 'Bearer <JWT>'"),
        ("Bearer    ", "must be 'Bearer <JWT>'"),
        ("Bearer a b", "not a well-formed JWT"),
    ],
)
def test_authorization_header_shapes(
    verifier: TokenVerifier, header: str | None, message: str
) -> None:
    with pytest.raises(Unauthenticated, match=message):
        verifier.verify_authorization(header)


def test_authorization_scheme_is_case_insensitive(verifier: TokenVerifier) -> None:
    assert verifier.verify_authorization(f"bearer  {hs()}") == Principal("u-1")


def test_verification_follows_the_injected_clock() -> None:
    clock = FixedClock(NOW)
    token = mint_token(SECRET, "u-7", ["writer"], timedelta(minutes=5), clock)
    verifier = TokenVerifier(clock=clock, hs256_key=hs256_key_from_secret(SECRET), leeway_seconds=0)
    assert verifier.verify(token) == Principal("u-7", frozenset({"writer"}))
    clock.advance(timedelta(minutes=5) - timedelta(seconds=1))
    assert verifier.verify(token).sub == "u-7"
    clock.advance(timedelta(seconds=1))
    with pytest.raises(Unauthenticated, match="expired"):
        verifier.verify(token)


def test_minted_token_carries_issuer_and_audience() -> None:
    clock = FixedClock(NOW)
    token = mint_token(
        SECRET, "u-1", [], timedelta(hours=1), clock, issuer="https://issuer", audience="insight"
    )
    verifier = TokenVerifier(
        clock=clock,
        hs256_key=hs256_key_from_secret(SECRET),
        issuer="https://issuer",
        audience="insight",
    )
    assert verifier.verify(token) == Principal("u-1")
    payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert payload == {
        "sub": "u-1",
        "roles": [],
        "iat": T,
        "exp": T + 3600,
        "iss": "https://issuer",
        "aud": "insight",
    }


def test_from_settings_reads_secret_and_jwks_file(tmp_path: Path) -> None:
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps(public_jwks().as_dict(private=False)))
    settings = Settings.from_environ(
        {
            "INSIGHT_AUTH_HS256_SECRET": SECRET,
            "INSIGHT_AUTH_JWKS_FILE": str(jwks_file),
            "INSIGHT_AUTH_ISSUER": "https://issuer",
            "INSIGHT_AUTH_LEEWAY_SECONDS": "5",
        }
    )
    verifier = TokenVerifier.from_settings(settings, FixedClock(NOW))
    assert verifier.algorithms == {"HS256", "RS256", "ES256"}
    assert verifier.issuer == "https://issuer"
    assert verifier.leeway_seconds == 5
    token = jwt_factory.asymmetric(EC_KEY, "ES256", claims(iss="https://issuer"), "ec-1")
    assert verifier.verify(token) == Principal("u-1")


@pytest.mark.parametrize(
    ("secret", "message"),
    [
        ("short", "at least 32 bytes"),
        (RSA_PEM.decode(), "must not be a public key"),
    ],
)
def test_unusable_secrets_fail_fast(secret: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        hs256_key_from_secret(secret)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({}, "non-empty 'keys' list"),
        ({"keys": []}, "non-empty 'keys' list"),
        ([], "non-empty 'keys' list"),
        ({"keys": ["x"]}, "key 0 is not a JSON object"),
        ({"keys": [RSA_KEY.as_dict(private=True)]}, "private key material"),
        ({"keys": [EC_KEY.as_dict(private=True)]}, "private key material"),
        ({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "k"}]}, "kty 'oct'"),
        (
            {"keys": [{**EC_KEY.as_dict(private=False), "crv": "P-384"}]},
            "only RSA and EC P-256",
        ),
        ({"keys": [{"kty": "RSA", "kid": "k", "n": "AQAB"}]}, "not a valid RSA key"),
        (
            {"keys": [{k: v for k, v in RSA_KEY.as_dict(private=False).items() if k != "kid"}]},
            "no 'kid'",
        ),
        (
            {"keys": [RSA_KEY.as_dict(private=False), OTHER_RSA.as_dict(private=False)]},
            "same 'kid'",
        ),
    ],
)
def test_bad_jwks_documents_fail_fast(document: Any, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        parse_jwks(document)


@pytest.mark.parametrize(("content", "message"), [(None, "cannot be read"), ("{", "is not JSON")])
def test_bad_jwks_files_fail_fast(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "jwks.json"
    if content is not None:
        path.write_text(content)
    settings = Settings(auth_jwks_file=str(path))
    with pytest.raises(SettingsError, match=message):
        TokenVerifier.from_settings(settings, FixedClock(NOW))


def test_a_kept_token_is_checked_again_at_each_verification() -> None:
    """A token verified once is not parsed again, but its time claims are: one not valid
    yet is refused until its `nbf`, then accepted, then refused once expired."""
    clock = FixedClock(NOW)
    verifier = TokenVerifier(clock=clock, hs256_key=hs256_key_from_secret(SECRET), leeway_seconds=0)
    token = hs(nbf=T + 60, exp=T + 120)
    with pytest.raises(Unauthenticated, match="not valid yet"):
        verifier.verify(token)
    clock.advance(timedelta(seconds=60))
    assert verifier.verify(token) == Principal("u-1")
    assert verifier.verify_session(f"Bearer {token}") == (Principal("u-1"), float(T + 120))
    clock.advance(timedelta(seconds=60))
    with pytest.raises(Unauthenticated, match="expired"):
        verifier.verify(token)


def test_a_kept_token_is_kept_by_its_verifier_alone(verifier: TokenVerifier) -> None:
    token = hs(roles=["dashboard"])
    assert verifier.verify(token).roles == {"dashboard"}
    rotated = replace(verifier, hs256_key=hs256_key_from_secret(OTHER_SECRET))
    with pytest.raises(Unauthenticated, match="signature does not verify"):
        rotated.verify(token)
    strict = replace(verifier, audience="insight")
    with pytest.raises(Unauthenticated, match="'aud' claim"):
        strict.verify(token)


def test_the_kept_tokens_are_bounded(
    verifier: TokenVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "KEPT_TOKENS", 2)
    first, second, third = (hs(sub=f"u-{n}") for n in range(3))
    for token in (first, second, third):
        verifier.verify(token)
    assert list(verifier._signed) == [second, third]
    assert verifier.verify(first).sub == "u-0"
    assert list(verifier._signed) == [third, first]
