"""Bearer-token verification: who is calling, from a JWT, or `Unauthenticated`."""

from __future__ import annotations

import binascii
import json
from base64 import urlsafe_b64decode
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
)
from joserfc.jwk import Key, KeySet, OctKey
from joserfc.jwt import ClaimsOption, JWTClaimsRegistry

from gateway.auth.jwks import KEY_TYPE_BY_ALGORITHM, load_jwks
from gateway.settings import SettingsError
from gateway.settings.service import ServiceSettings
from loaders.errors import GatewayError
from schema.clock import Clock
from schema.principal import Principal


class Unauthenticated(GatewayError):
    code = "UNAUTHENTICATED"
    default_message = "A valid bearer token is required"


HS256 = "HS256"
# RFC 7518 3.2: an HS256 key must be at least as long as the hash output.
MIN_HS256_SECRET_BYTES = 32
# Far above any real token; keeps a hostile header from costing more than a parse.
MAX_TOKEN_CHARS = 8192
#: The time claims, NumericDate (RFC 7519 2): seconds since the epoch.
TIME_CLAIMS = ("exp", "nbf", "iat")
#: 9999-12-31T23:59:59Z: a time claim past it is no date, only a way to overflow a float
#: (`exp` = 10**400 made `float()` raise, a 500) or to never expire.
MAX_NUMERIC_DATE = 253_402_300_799
#: Tokens a verifier remembers as signed (their claims read, their shapes checked), so that
#: a client's next requests skip the parse and the signature; the time, issuer and audience
#: claims are still checked on every request. The oldest is forgotten first.
KEPT_TOKENS = 1024


@dataclass(frozen=True, slots=True)
class TokenVerifier:
    """Verifies bearer tokens against the configured keys, at the injected clock's now.

    Only the algorithms that have a key are accepted: HS256 when a shared secret is set,
    RS256/ES256 when a JWKS document is. An HS256 token is only ever checked against the
    shared secret, so a token "signed" with a published RSA/EC key as the HMAC secret fails.
    """

    clock: Clock
    hs256_key: OctKey | None = None
    jwks: KeySet | None = None
    issuer: str | None = None
    audience: str | None = None
    leeway_seconds: int = 30
    #: Verified tokens (see KEPT_TOKENS): the token, then its claims and principal.
    _signed: dict[str, tuple[dict[str, Any], Principal]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: The claims' checks, as configured, at the clock's now whenever they run.
    _registry: JWTClaimsRegistry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        options: dict[str, ClaimsOption] = {
            "exp": {"essential": True},
            "sub": {"essential": True},
        }
        if self.issuer is not None:
            options["iss"] = {"essential": True, "value": self.issuer}
        if self.audience is not None:
            options["aud"] = {"essential": True, "value": self.audience}
        registry = JWTClaimsRegistry(now=self._now, leeway=self.leeway_seconds, **options)
        object.__setattr__(self, "_registry", registry)

    def _now(self) -> int:
        return int(self.clock.now().timestamp())

    @classmethod
    def from_settings(cls, settings: ServiceSettings, clock: Clock) -> TokenVerifier:
        jwks = load_jwks(settings.auth_jwks_file) if settings.auth_jwks_file else None
        hs256_key = (
            hs256_key_from_secret(settings.auth_hs256_secret)
            if settings.auth_hs256_secret
            else None
        )
        return cls(
            clock=clock,
            hs256_key=hs256_key,
            jwks=jwks,
            issuer=settings.auth_issuer,
            audience=settings.auth_audience,
            leeway_seconds=settings.auth_leeway_seconds,
        )

    @property
    def algorithms(self) -> frozenset[str]:
        accepted = {HS256} if self.hs256_key is not None else set()
        if self.jwks is not None:
            accepted |= {alg for alg, kty in KEY_TYPE_BY_ALGORITHM.items() if _has(self.jwks, kty)}
        return frozenset(accepted)

    def verify_authorization(self, authorization: str | None) -> Principal:
        """Verify an `Authorization` header value (`Bearer <JWT>`)."""
        return self.verify_session(authorization)[0]

    def verify_session(self, authorization: str | None) -> tuple[Principal, float]:
        """`verify_authorization`, and the instant (epoch seconds) from which the token is
        refused: its `exp` plus the leeway. A WebSocket closes then (4401)."""
        if authorization is None or not authorization.strip():
            raise Unauthenticated("A bearer token is required: send 'Authorization: Bearer <JWT>'")
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("The Authorization header must be 'Bearer <JWT>'")
        claims, principal = self._verified(token.strip())
        return principal, float(claims["exp"]) + self.leeway_seconds

    def verify(self, token: str) -> Principal:
        return self._verified(token)[1]

    def _verified(self, token: str) -> tuple[dict[str, Any], Principal]:
        """The token's claims and principal, its signature verified (once: KEPT_TOKENS) and
        its claims checked at the clock's now."""
        if len(token) > MAX_TOKEN_CHARS:
            raise Unauthenticated(f"The bearer token is longer than {MAX_TOKEN_CHARS} characters")
        signed = self._signed.get(token)
        if signed is None:
            claims = self._signed_claims(token)
            self._check_claims(claims)
            signed = claims, Principal(sub=claims["sub"], roles=_roles(claims))
            if len(self._signed) >= KEPT_TOKENS:
                del self._signed[next(iter(self._signed))]
            self._signed[token] = signed
        else:
            self._check_claims(signed[0])
        return signed

    def _signed_claims(self, token: str) -> dict[str, Any]:
        """The claims of a token whose signature verifies and whose claims are of the
        right shapes; their values are not checked here."""
        header = _read_header(token)
        alg = header.get("alg")
        if not isinstance(alg, str):
            raise Unauthenticated("The bearer token's header has no 'alg'")
        if alg.lower() == "none":
            raise Unauthenticated("Unsigned tokens (alg 'none') are refused")
        if alg not in self.algorithms:
            accepted = ", ".join(sorted(self.algorithms)) or "none configured"
            raise Unauthenticated(
                f"The bearer token's algorithm is not accepted here (accepted: {accepted})"
            )
        key = self._key_for(alg, header.get("kid"))
        try:
            decoded = jwt.decode(token, key, algorithms=[alg])
        except BadSignatureError as error:
            raise Unauthenticated(
                "The bearer token's signature does not verify", cause=error
            ) from error
        except (JoseError, ValueError) as error:
            raise Unauthenticated(
                "The bearer token is not a well-formed JWT", cause=error
            ) from error
        _check_shapes(decoded.claims)
        return decoded.claims

    def _key_for(self, alg: str, kid: Any) -> Key:
        if alg == HS256:
            assert self.hs256_key is not None  # alg is accepted only when the key is set
            return self.hs256_key
        assert self.jwks is not None
        if not isinstance(kid, str):
            raise Unauthenticated("The bearer token's header has no 'kid' to select its key")
        for key in self.jwks:
            # A key that names its algorithm is used for that algorithm only.
            if (
                key.kid == kid
                and key.key_type == KEY_TYPE_BY_ALGORITHM[alg]
                and key.get("alg") in (None, alg)
            ):
                return key
        raise Unauthenticated(f"No {alg} key has the bearer token's kid")

    def _check_claims(self, claims: dict[str, Any]) -> None:
        try:
            self._registry.validate(claims)
        except ExpiredTokenError as error:
            raise Unauthenticated("The bearer token has expired", cause=error) from error
        except MissingClaimError as error:
            raise Unauthenticated(
                f"The bearer token has no {error.claim!r} claim", cause=error
            ) from error
        except InvalidClaimError as error:
            if error.claim == "nbf":
                raise Unauthenticated(
                    "The bearer token is not valid yet (nbf)", cause=error
                ) from error
            if error.claim == "iat":
                raise Unauthenticated(
                    "The bearer token was issued in the future", cause=error
                ) from error
            raise Unauthenticated(
                f"The bearer token's {error.claim!r} claim is not accepted", cause=error
            ) from error


def hs256_key_from_secret(secret: str) -> OctKey:
    """The HS256 key of a shared secret, refusing one too short or shaped like a public key."""
    raw = secret.encode("utf-8")
    if len(raw) < MIN_HS256_SECRET_BYTES:
        raise SettingsError(
            f"INSIGHT_AUTH_HS256_SECRET must be at least {MIN_HS256_SECRET_BYTES} bytes"
        )
    try:
        return OctKey.import_key(raw)
    except ValueError:
        # joserfc refuses PEM/SSH public keys: they are public, so an HMAC over them proves nothing.
        raise SettingsError("INSIGHT_AUTH_HS256_SECRET must not be a public key") from None


def mint_token(
    secret: str,
    sub: str,
    roles: Iterable[str],
    lifetime: timedelta,
    clock: Clock,
    *,
    issuer: str | None = None,
    audience: str | None = None,
) -> str:
    """An HS256 token for `sub` with `roles`, valid from the clock's now for `lifetime`."""
    now = int(clock.now().timestamp())
    claims: dict[str, Any] = {
        "sub": sub,
        "roles": sorted(set(roles)),
        "iat": now,
        "exp": now + int(lifetime.total_seconds()),
    }
    if issuer is not None:
        claims["iss"] = issuer
    if audience is not None:
        claims["aud"] = audience
    return jwt.encode({"alg": HS256}, claims, hs256_key_from_secret(secret), algorithms=[HS256])


def _read_header(token: str) -> dict[str, Any]:
    segments = token.split(".")
    if len(segments) != 3:
        raise Unauthenticated("The bearer token is not a well-formed JWT")
    encoded = segments[0]
    try:
        header = json.loads(urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (binascii.Error, ValueError) as error:
        raise Unauthenticated("The bearer token is not a well-formed JWT", cause=error) from error
    if not isinstance(header, dict):
        raise Unauthenticated("The bearer token is not a well-formed JWT")
    return header


def _check_shapes(claims: dict[str, Any]) -> None:
    """Refuses, before any comparison, time claims that are no date (not a number, NaN or
    infinite, which Python's JSON reads, negative, or past year 9999) and a `sub` that names
    nobody (not a string, or blank)."""
    for name in TIME_CLAIMS:
        value = claims.get(name)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            # Compared, never converted: NaN fails every comparison, and an int of 400 digits
            # compares where float() would overflow.
            or not 0 <= value <= MAX_NUMERIC_DATE
        ):
            raise Unauthenticated(f"The bearer token's {name!r} claim is not accepted: not a date")
    sub = claims.get("sub")
    if sub is not None and (not isinstance(sub, str) or not sub.strip()):
        raise Unauthenticated("The bearer token's 'sub' claim is not accepted: it names nobody")


def _roles(claims: dict[str, Any]) -> frozenset[str]:
    roles = claims.get("roles")
    if roles is None:
        return frozenset()
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise Unauthenticated("The bearer token's 'roles' claim must be a list of strings")
    return frozenset(roles)


def _has(jwks: KeySet, key_type: str) -> bool:
    return any(key.key_type == key_type for key in jwks)
