"""Parsers of the settings whose type is not a plain `int`, `float`, `bool` or `str`: each takes
(variable, text), raises `SettingsError` naming the variable, and says in its docstring's first
line what it accepts (the configuration page shows it)."""

from __future__ import annotations

import re

from gateway.configuration.fields import SettingsError
from loaders.dynamodb import CALL_PATHS

# scheme://host[:port], nothing after: what a browser sends in `Origin`.
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")
_BUDGET = re.compile(r"\s*([1-9][0-9]{0,8})\s*/\s*(second|minute|hour)\s*")


def origins(name: str, raw: str) -> tuple[str, ...]:
    """comma-separated origins (`https://app.example.com`), or `*`"""
    origins = tuple(part.strip().rstrip("/") for part in raw.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise SettingsError(
                f"{name} must list origins like https://app.example.com, not {origin!r}"
            )
    return origins


# A host name or IPv4 address, an IPv6 address in brackets, or `*.` before a domain.
_HOST = re.compile(r"(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\]")


def hosts(name: str, raw: str) -> tuple[str, ...]:
    """comma-separated host names (`api.example.com`, `*.example.com`, `[::1]`), or `*`"""
    given = tuple(part.strip().lower() for part in raw.split(",") if part.strip())
    for host in given:
        if host != "*" and not _HOST.fullmatch(host):
            raise SettingsError(
                f"{name} must list host names like api.example.com (no scheme, no port), "
                f"not {host!r}"
            )
    return given


def roles(name: str, raw: str) -> frozenset[str]:
    """comma-separated roles, or `none`"""
    if raw == "none":
        return frozenset()
    return frozenset(role.strip() for role in raw.split(",") if role.strip())


def budget(name: str, raw: str) -> str:
    """`N/second`, `N/minute` or `N/hour`"""
    match = _BUDGET.fullmatch(raw)
    if match is None:
        raise SettingsError(f"{name} must be N/second, N/minute or N/hour, not {raw!r}")
    return f"{match.group(1)}/{match.group(2)}"


def storage_uri(name: str, raw: str) -> str:
    """`memory://`, or `redis://host:port/db` (`rediss://` for TLS)"""
    if raw != "memory://" and not raw.startswith(("redis://", "rediss://")):
        raise SettingsError(f"{name} must be memory:// or redis://host:port/db, not {raw!r}")
    return raw


LOG_FORMATS = ("auto", "json", "console")


def log_format_choice(name: str, raw: str) -> str:
    """`auto`, `json` or `console`, in any case"""
    if raw.lower() not in LOG_FORMATS:
        raise SettingsError(f"{name} must be {', '.join(LOG_FORMATS)}, not {raw!r}")
    return raw.lower()


def call_path_choice(name: str, raw: str) -> str:
    """`lean` or `botocore`, in any case"""
    if raw.lower() not in CALL_PATHS:
        raise SettingsError(f"{name} must be {', '.join(CALL_PATHS)}, not {raw!r}")
    return raw.lower()
