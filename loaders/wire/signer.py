"""SigV4 for DynamoDB's JSON protocol (botocore's algorithm, `botocore.auth.SigV4Auth`),
with the derived signing key kept per day: four HMACs a day instead of four a call. The
one HMAC a call is SHA-256 from the key's two padded states, kept with it (RFC 2104, as
the `hmac` module computes it): with the request's two hashes, the call's only crypto is
SHA-256, which interleaved with the socket's waits costs a third of OpenSSL's HMAC
(`python -m bench calls`).

Every request is `POST /` with no query string, so the canonical request is a few joined
strings; the signed headers are the ones botocore signs for these calls (content-type,
host, x-amz-date, the session token when there is one, x-amz-target)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

__all__ = ["DEFAULT_PORTS", "Signer", "SigningCredentials", "host_of"]

SERVICE = "dynamodb"
JSON_TYPE = "application/x-amz-json-1.0"
ALGORITHM = "AWS4-HMAC-SHA256"
#: An endpoint URL's port when it names none (and the one the signed Host leaves out).
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class SigningCredentials:
    """botocore's frozen credentials, as the signer needs them."""

    access_key: str
    secret_key: str
    token: str | None = None
    #: The account the credentials belong to, when the source says (IRSA, Pod Identity).
    account_id: str | None = None


def host_of(url: str) -> str:
    """The Host header botocore signs: lowercase, without a default port or userinfo."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{parts.port}"
    return host


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.digest(key, message.encode(), "sha256")


@dataclass(frozen=True, slots=True)
class _DayKey:
    """The signing key of one secret and day, kept as its HMAC's padded SHA-256 states."""

    secret_key: str
    day: str
    inner: Any
    outer: Any

    @classmethod
    def derive(cls, secret_key: str, day: str, region: str) -> _DayKey:
        key = _hmac(("AWS4" + secret_key).encode(), day)
        for part in (region, SERVICE, "aws4_request"):
            key = _hmac(key, part)
        block = key.ljust(hashlib.sha256().block_size, b"\0")
        inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in block))
        outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in block))
        return cls(secret_key, day, inner, outer)

    def signature(self, message: bytes) -> str:
        """HMAC-SHA256(key, message), in hex."""
        inner = self.inner.copy()
        inner.update(message)
        outer = self.outer.copy()
        outer.update(inner.digest())
        signature: str = outer.hexdigest()
        return signature


class Signer:
    """Signs DynamoDB requests for one region and host."""

    def __init__(self, region: str, host: str) -> None:
        self.region = region
        self.host = host
        # The derived key of one secret and day, replaced when either changes.
        self._key: _DayKey | None = None

    def _day_key(self, secret_key: str, day: str) -> _DayKey:
        kept = self._key
        if kept is None or kept.secret_key != secret_key or kept.day != day:
            kept = self._key = _DayKey.derive(secret_key, day, self.region)
        return kept

    def headers(
        self, target: str, body: bytes, credentials: SigningCredentials, now: datetime
    ) -> dict[str, str]:
        """The signed headers of one request (`now` in UTC), Authorization included."""
        # strftime's own cost, beside the socket, is twice this formatting's.
        stamp = (
            f"{now.year:04}{now.month:02}{now.day:02}T{now.hour:02}{now.minute:02}{now.second:02}Z"
        )
        day = stamp[:8]
        token = credentials.token
        signed, security = "content-type;host;x-amz-date;x-amz-target", ""
        if token is not None:
            signed = "content-type;host;x-amz-date;x-amz-security-token;x-amz-target"
            security = f"x-amz-security-token:{token}\n"
        canonical_headers = (
            f"content-type:{JSON_TYPE}\nhost:{self.host}\nx-amz-date:{stamp}\n"
            f"{security}x-amz-target:{target}\n"
        )
        canonical = f"POST\n/\n\n{canonical_headers}\n{signed}\n{hashlib.sha256(body).hexdigest()}"
        scope = f"{day}/{self.region}/{SERVICE}/aws4_request"
        to_sign = f"{ALGORITHM}\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = self._day_key(credentials.secret_key, day).signature(to_sign.encode())
        headers = {
            "Content-Type": JSON_TYPE,
            "Host": self.host,
            "X-Amz-Date": stamp,
            "X-Amz-Target": target,
            "Authorization": (
                f"{ALGORITHM} Credential={credentials.access_key}/{scope}, "
                f"SignedHeaders={signed}, Signature={signature}"
            ),
        }
        if token is not None:
            headers["X-Amz-Security-Token"] = token
        return headers
