"""`insight-gateway token`: mint an HS256 bearer token from the configured secret."""

from __future__ import annotations

import argparse
import secrets
import sys
from datetime import timedelta

from gateway.auth.tokens import mint_token
from gateway.settings import Settings, SettingsError
from schema.clock import SystemClock
from schema.principal import DASHBOARD, WRITER

KNOWN_ROLES = frozenset({DASHBOARD, WRITER})
DEFAULT_LIFETIME = timedelta(hours=12)
MAX_LIFETIME = timedelta(days=30)


def add_token_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    token = commands.add_parser(
        "token",
        help="print a bearer token signed with INSIGHT_AUTH_HS256_SECRET (for local use)",
        description="Print an HS256 bearer token signed with INSIGHT_AUTH_HS256_SECRET, "
        "carrying INSIGHT_AUTH_ISSUER / INSIGHT_AUTH_AUDIENCE when they are set.",
    )
    token.add_argument("--sub", required=True, help="the user id the token speaks for")
    token.add_argument(
        "--roles",
        default="",
        help="comma-separated roles: dashboard (read any user), writer (mutations); "
        "none: an end user",
    )
    token.add_argument(
        "--lifetime",
        type=int,
        default=int(DEFAULT_LIFETIME.total_seconds()),
        metavar="SECONDS",
        help=f"seconds until it expires (default {int(DEFAULT_LIFETIME.total_seconds())})",
    )
    token.set_defaults(run=run_token)


def parse_roles(raw: str) -> list[str]:
    roles = sorted({role.strip() for role in raw.split(",") if role.strip()})
    unknown = [role for role in roles if role not in KNOWN_ROLES]
    if unknown:
        known = ", ".join(sorted(KNOWN_ROLES))
        raise SettingsError(f"unknown role {unknown[0]!r}; the roles are {known}")
    return roles


def run_token(args: argparse.Namespace, settings: Settings) -> int:
    if not settings.auth_hs256_secret:
        print("insight-gateway: INSIGHT_AUTH_HS256_SECRET is not set", file=sys.stderr)
        return 2
    lifetime = timedelta(seconds=args.lifetime)
    if not timedelta(seconds=1) <= lifetime <= MAX_LIFETIME:
        print(
            f"insight-gateway: --lifetime must be 1 to {int(MAX_LIFETIME.total_seconds())} seconds",
            file=sys.stderr,
        )
        return 2
    if not args.sub.strip():
        print("insight-gateway: --sub must not be empty", file=sys.stderr)
        return 2
    try:
        token = mint_token(
            settings.auth_hs256_secret,
            args.sub,
            parse_roles(args.roles),
            lifetime,
            SystemClock(),
            issuer=settings.auth_issuer,
            audience=settings.auth_audience,
        )
    except SettingsError as error:
        print(f"insight-gateway: {error}", file=sys.stderr)
        return 2
    print(token)
    return 0


def generated_secret() -> str:
    """A fresh HS256 secret (256 bits) for a gateway that has none: the embedded mode."""
    return secrets.token_urlsafe(32)


DEMO_SUB = "demo-dashboard"


def demo_token(settings: Settings) -> str:
    """The embedded mode's ready token: a dashboard and writer, so every demo query runs."""
    assert settings.auth_hs256_secret is not None
    return mint_token(
        settings.auth_hs256_secret,
        DEMO_SUB,
        [DASHBOARD, WRITER],
        DEFAULT_LIFETIME,
        SystemClock(),
        issuer=settings.auth_issuer,
        audience=settings.auth_audience,
    )
