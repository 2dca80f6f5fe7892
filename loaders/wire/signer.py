"""SigV4 for DynamoDB's JSON protocol (botocore's algorithm, `botocore.auth.SigV4Auth`),
with the derived signing key kept per day: four HMACs a day instead of four a call.

Every request is `POST /` with no query string, so the canonical request is a few joined
strings; the signed headers are the ones botocore signs for these calls (content-type,
host, x-amz-date, the session token when there is one, x-amz-target)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

__all__ = ["Signer", "SigningCredentials", "host_of"]

SERVICE = "dynamodb"
JSON_TYPE = "application/x-amz-json-1.0"
ALGORITHM = "AWS4-HMAC-SHA256"
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class SigningCredentials:
    """botocore's frozen credentials, as the signer needs them."""

    access_key: str
    secret_key: str
    token: str | None = None


def host_of(url: str) -> str:
    """The Host header botocore signs: lowercase, without a default port or userinfo."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != _DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{parts.port}"
    return host


def _hmac(key: bytes, message: str) -> bytes:
    # hmac.digest: OpenSSL's one-shot HMAC, without an hmac object a call.
    return hmac.digest(key, message.encode(), "sha256")


class Signer:
    """Signs DynamoDB requests for one region and host."""

    def __init__(self, region: str, host: str) -> None:
        self.region = region
        self.host = host
        # (secret key, day) -> the derived key; one entry, replaced when either changes.
        self._key: tuple[str, str, bytes] | None = None

    def signing_key(self, secret_key: str, day: str) -> bytes:
        kept = self._key
        if kept is not None and kept[0] == secret_key and kept[1] == day:
            return kept[2]
        key = _hmac(("AWS4" + secret_key).encode(), day)
        for part in (self.region, SERVICE, "aws4_request"):
            key = _hmac(key, part)
        self._key = (secret_key, day, key)
        return key

    def headers(
        self, target: str, body: bytes, credentials: SigningCredentials, now: datetime
    ) -> dict[str, str]:
        """The signed headers of one request (`now` in UTC), Authorization included."""
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        day = stamp[:8]
        if credentials.token is None:
            signed = "content-type;host;x-amz-date;x-amz-target"
            canonical_headers = (
                f"content-type:{JSON_TYPE}\nhost:{self.host}\nx-amz-date:{stamp}\n"
                f"x-amz-target:{target}\n"
            )
        else:
            signed = "content-type;host;x-amz-date;x-amz-security-token;x-amz-target"
            canonical_headers = (
                f"content-type:{JSON_TYPE}\nhost:{self.host}\nx-amz-date:{stamp}\n"
                f"x-amz-security-token:{credentials.token}\nx-amz-target:{target}\n"
            )
        canonical = f"POST\n/\n\n{canonical_headers}\n{signed}\n{hashlib.sha256(body).hexdigest()}"
        scope = f"{day}/{self.region}/{SERVICE}/aws4_request"
        to_sign = f"{ALGORITHM}\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = _hmac(self.signing_key(credentials.secret_key, day), to_sign).hex()
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
        if credentials.token is not None:
            headers["X-Amz-Security-Token"] = credentials.token
        return headers
