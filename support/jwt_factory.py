"""Builds JWTs byte by byte, so tests can make the tokens no honest library would sign."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def segment(value: Any) -> str:
    return b64(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def unsigned(header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A token with an empty signature, as `alg: none` tokens are sent."""
    return f"{segment(header)}.{segment(claims)}."


def hs256(secret: bytes, claims: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    """An HS256 token over any bytes as the secret (even a public key's PEM)."""
    header_segment = segment({"alg": "HS256", "typ": "JWT", **(header or {})})
    return hs256_raw(secret, header_segment, segment(claims))


def hs256_raw(secret: bytes, header_segment: str, payload_segment: str) -> str:
    """An HS256 signature over segments as given, however malformed their content."""
    signing_input = f"{header_segment}.{payload_segment}"
    signature = hmac.new(secret, signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


def asymmetric(key: RSAKey | ECKey, alg: str, claims: dict[str, Any], kid: str | None) -> str:
    header: dict[str, Any] = {"alg": alg}
    if kid is not None:
        header["kid"] = kid
    return jwt.encode(header, claims, key, algorithms=[alg])
