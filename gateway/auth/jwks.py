"""The public keys that verify RS256/ES256 tokens, read once from a JWKS document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from joserfc.errors import JoseError
from joserfc.jwk import ECKey, KeySet, RSAKey

from gateway.settings import SettingsError

# The key type each asymmetric algorithm needs. A JWKS document is public, so a
# symmetric ("oct") key in it is refused outright: anyone could sign with it.
KEY_TYPE_BY_ALGORITHM = {"RS256": "RSA", "ES256": "EC"}
_ES256_CURVE = "P-256"
# RFC 7518 6.2.2 and 6.3.2: the members only a private EC or RSA key has.
_PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth")


def load_jwks(path: str) -> KeySet:
    """Read and check the JWKS document at `path`; every failure names the file."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"INSIGHT_AUTH_JWKS_FILE {path!r} cannot be read: {error}") from None
    except ValueError:
        raise SettingsError(f"INSIGHT_AUTH_JWKS_FILE {path!r} is not JSON") from None
    return parse_jwks(document, source=path)


def parse_jwks(document: Any, *, source: str = "the JWKS document") -> KeySet:
    """Check a JWKS document (a dict with `keys`) and import its RSA and P-256 keys."""
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SettingsError(f"{source} must be a JSON object with a non-empty 'keys' list")
    keys: list[RSAKey | ECKey] = []
    for index, entry in enumerate(entries):
        where = f"{source} key {index}"
        if not isinstance(entry, dict):
            raise SettingsError(f"{where} is not a JSON object")
        if not isinstance(entry.get("kid"), str) or not entry["kid"]:
            # Without a kid a token cannot say which key signed it.
            raise SettingsError(f"{where} has no 'kid'")
        if any(member in entry for member in _PRIVATE_MEMBERS):
            # The document is the public half; a private key here is a leaked signing key.
            raise SettingsError(f"{where} holds private key material; publish public keys only")
        kty = entry.get("kty")
        if kty not in {"RSA", "EC"} or (kty == "EC" and entry.get("crv") != _ES256_CURVE):
            raise SettingsError(
                f"{where} has kty {kty!r}; only RSA and EC P-256 public keys are accepted"
            )
        try:
            keys.append(RSAKey.import_key(entry) if kty == "RSA" else ECKey.import_key(entry))
        except (JoseError, ValueError, TypeError) as error:
            raise SettingsError(f"{where} is not a valid {kty} key: {error}") from None
    kids = [key.kid for key in keys]
    if len(set(kids)) != len(kids):
        raise SettingsError(f"{source} has two keys with the same 'kid'")
    return KeySet(list(keys))
