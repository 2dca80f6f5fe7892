"""`insight-gateway token`: mint an HS256 bearer token from the configured secret, or in a
checkout with none configured, from the development secret of `serve --embedded`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import timedelta

from gateway.auth.dev_secret import DevSecretError, dev_secret_path, read_dev_secret
from gateway.auth.tokens import mint_token
from gateway.settings import Settings, SettingsError
from schema.clock import SystemClock
from schema.principal import DASHBOARD, WRITER

KNOWN_ROLES = frozenset({DASHBOARD, WRITER})
DEFAULT_LIFETIME = timedelta(hours=12)
MAX_LIFETIME = timedelta(days=30)
EXIT_CODES = (
    "exit codes: 0 printed, 2 no secret (neither INSIGHT_AUTH_HS256_SECRET nor the checkout's "
    "development secret) or a bad flag"
)


def add_token_command(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the command with `add_parser` (the subcommands' `add_parser`)."""
    token = add_parser(
        "token",
        help="print a bearer token signed with INSIGHT_AUTH_HS256_SECRET (for local use)",
        description="Print an HS256 bearer token signed with INSIGHT_AUTH_HS256_SECRET, "
        "carrying INSIGHT_AUTH_ISSUER / INSIGHT_AUTH_AUDIENCE when they are set. With no "
        "secret set, it signs with the checkout's development secret (.insight-dev-secret, "
        "made by `serve --embedded`), so the token works against the embedded gateway.",
        epilog=EXIT_CODES,
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
    try:
        secret = settings.auth_hs256_secret or _dev_secret()
        lifetime = timedelta(seconds=args.lifetime)
        if not timedelta(seconds=1) <= lifetime <= MAX_LIFETIME:
            longest = int(MAX_LIFETIME.total_seconds())
            raise SettingsError(f"--lifetime must be 1 to {longest} seconds")
        if not args.sub.strip():
            raise SettingsError("--sub must not be empty")
        token = mint_token(
            secret,
            args.sub,
            parse_roles(args.roles),
            lifetime,
            SystemClock(),
            issuer=settings.auth_issuer,
            audience=settings.auth_audience,
        )
    except (SettingsError, DevSecretError) as error:
        print(f"insight-gateway: {error}", file=sys.stderr)
        return 2
    print(token)
    return 0


def _dev_secret() -> str:
    path = dev_secret_path()
    secret = read_dev_secret(path)
    if secret is None:
        raise SettingsError(
            "INSIGHT_AUTH_HS256_SECRET is not set, and this checkout has "
            f"no development secret ({path}; `make serve` makes one)"
        )
    return secret
