"""The gateway's settings, read once from the environment into a frozen object."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from loaders.tables import TableNames
from schema.extensions import QueryLimits

PREFIX = "INSIGHT_"
# scheme://host[:port], nothing after: what a browser sends in `Origin`.
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")


class SettingsError(ValueError):
    """A setting has a value the gateway cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    dynamodb_endpoint_url: str | None = None
    region: str = "us-east-1"
    tables: TableNames = field(default_factory=TableNames)
    auth_hs256_secret: str | None = None
    auth_jwks_file: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    expense_ttl_days: int = 30
    score_ttl_days: int = 30
    max_pool_connections: int = 64
    # Clock skew tolerated on exp/nbf/iat; RFC 7519 suggests "no more than a few minutes".
    auth_leeway_seconds: int = 30
    # Query limits, checked before execution (schema/extensions). See README for the cost model.
    max_query_depth: int = 10
    max_query_aliases: int = 30
    max_query_tokens: int = 2000
    max_query_cost: int = 10_000
    persisted_query_cache_size: int = 1000
    # OpenTelemetry tracing (the `otel` extra); the exporter reads the standard OTEL_* variables.
    otel_enabled: bool = False
    # Plain objects completed in one loop (schema/execution); off, graphql-core's own path.
    compiled_execution: bool = True
    # HTTP hygiene (gateway/http/graphql_view.py). Batching (SPEC 4): up to 10 operations in
    # one JSON array by default; 0 turns it off.
    max_body_bytes: int = 262_144
    max_batch_operations: int = 10
    # Field usage per client (gateway/observability/field_usage.py): distinct client names
    # labelled in `gateway_field_usage_total`; later ones are counted as `other`.
    field_usage_max_clients: int = 50
    graphiql: bool = True
    introspection: bool = True
    cors_origins: tuple[str, ...] = ()
    # Reliability (issue 5): botocore's standard retry mode with this many attempts in all
    # (first try included), socket timeouts per attempt, and one deadline per GraphQL request
    # that bounds every DynamoDB call of the request, retries and UnprocessedKeys rounds too.
    dynamodb_max_attempts: int = 3
    dynamodb_connect_timeout_seconds: float = 1.0
    dynamodb_read_timeout_seconds: float = 2.0
    dynamodb_unprocessed_deadline_seconds: float = 5.0
    request_deadline_seconds: float = 10.0
    readiness_timeout_seconds: float = 2.0
    shutdown_grace_seconds: float = 20.0
    # Serve as an Apollo Federation 2 subgraph (schema/federation.py); off: the plain schema.
    federation: bool = False
    # Per-client protection (issue 12): trusted documents, and per-principal budgets of cost
    # points (`N/second|minute|hour`, the README has the reasoning of the defaults).
    trusted_documents: str = "off"
    trusted_documents_file: str | None = None
    trusted_documents_bypass_roles: frozenset[str] = frozenset({"dashboard"})
    rate_limit_storage_uri: str = "memory://"
    rate_limit_user: str = "3000/minute"
    rate_limit_dashboard: str = "60000/minute"
    rate_limit_writer: str = "60000/minute"
    rate_limit_fail_open: bool = True
    # Live data (SPEC section 7): subscriptions, fed by the tables' DynamoDB Streams; each
    # shard read by one replica at a time under a lease in `locks`; changes shared between
    # replicas through the change feed.
    subscriptions: bool = False
    change_feed_uri: str = "memory://"
    subscriptions_max_per_connection: int = 20
    stream_lease_seconds: float = 10.0
    # The coherent cache (SPEC section 8), trusted only while the change feed is whole.
    cache: bool = False
    cache_max_bytes: int = 268_435_456
    cache_max_lag_seconds: float = 2.0
    # Log lines (gateway/observability/logs.py): `auto` is `console` (plain, coloured lines)
    # when stderr is a terminal, else `json` (one object a line, for production).
    log_format: str = "auto"

    @property
    def query_limits(self) -> QueryLimits:
        return QueryLimits(
            max_tokens=self.max_query_tokens,
            max_depth=self.max_query_depth,
            max_aliases=self.max_query_aliases,
            max_cost=self.max_query_cost,
            introspection=self.introspection,
        )

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read every setting from `environ` (default: the process environment)."""
        env = _Env(os.environ if environ is None else environ)
        settings = cls(
            dynamodb_endpoint_url=env.string("INSIGHT_DYNAMODB_ENDPOINT_URL"),
            region=env.string("AWS_REGION") or "us-east-1",
            tables=TableNames(
                pave=env.string("INSIGHT_TABLE_PAVE") or "site-pave",
                income_detection=env.string("INSIGHT_TABLE_INCOME_DETECTION")
                or "site-incomedetection",
                datacapture=env.string("INSIGHT_TABLE_DATACAPTURE") or "site-fmdatacapture",
                balance_settings=env.string("INSIGHT_TABLE_BALANCE_SETTINGS")
                or "user-balance-settings",
                locks=env.string("INSIGHT_TABLE_LOCKS") or "locks",
            ),
            auth_hs256_secret=env.string("INSIGHT_AUTH_HS256_SECRET"),
            auth_jwks_file=env.string("INSIGHT_AUTH_JWKS_FILE"),
            auth_issuer=env.string("INSIGHT_AUTH_ISSUER"),
            auth_audience=env.string("INSIGHT_AUTH_AUDIENCE"),
            expense_ttl_days=env.integer("INSIGHT_EXPENSE_TTL_DAYS", 30, minimum=0),
            score_ttl_days=env.integer("INSIGHT_SCORE_TTL_DAYS", 30, minimum=0),
            max_pool_connections=env.integer(
                "INSIGHT_DYNAMODB_MAX_POOL_CONNECTIONS", 64, minimum=1, maximum=1024
            ),
            auth_leeway_seconds=env.integer(
                "INSIGHT_AUTH_LEEWAY_SECONDS", 30, minimum=0, maximum=300
            ),
            max_query_depth=env.integer("INSIGHT_MAX_QUERY_DEPTH", 10, minimum=1),
            max_query_aliases=env.integer("INSIGHT_MAX_QUERY_ALIASES", 30, minimum=0),
            max_query_tokens=env.integer("INSIGHT_MAX_QUERY_TOKENS", 2000, minimum=1),
            max_query_cost=env.integer("INSIGHT_MAX_QUERY_COST", 10_000, minimum=1),
            persisted_query_cache_size=env.integer(
                "INSIGHT_PERSISTED_QUERY_CACHE_SIZE", 1000, minimum=0, maximum=1_000_000
            ),
            otel_enabled=env.boolean("INSIGHT_OTEL_ENABLED", False),
            compiled_execution=env.boolean("INSIGHT_COMPILED_EXECUTION", True),
            max_body_bytes=env.integer(
                "INSIGHT_MAX_BODY_BYTES", 262_144, minimum=1024, maximum=64 * 1024 * 1024
            ),
            max_batch_operations=env.integer(
                "INSIGHT_MAX_BATCH_OPERATIONS", 10, minimum=0, maximum=100
            ),
            field_usage_max_clients=env.integer(
                "INSIGHT_FIELD_USAGE_MAX_CLIENTS", 50, minimum=0, maximum=1000
            ),
            graphiql=env.boolean("INSIGHT_GRAPHIQL", True),
            introspection=env.boolean("INSIGHT_INTROSPECTION", True),
            cors_origins=env.origins("INSIGHT_CORS_ORIGINS"),
            dynamodb_max_attempts=env.integer(
                "INSIGHT_DYNAMODB_MAX_ATTEMPTS", 3, minimum=1, maximum=10
            ),
            dynamodb_connect_timeout_seconds=env.number(
                "INSIGHT_DYNAMODB_CONNECT_TIMEOUT_SECONDS", 1.0, minimum=0.01, maximum=60
            ),
            dynamodb_read_timeout_seconds=env.number(
                "INSIGHT_DYNAMODB_READ_TIMEOUT_SECONDS", 2.0, minimum=0.01, maximum=60
            ),
            dynamodb_unprocessed_deadline_seconds=env.number(
                "INSIGHT_DYNAMODB_UNPROCESSED_DEADLINE_SECONDS", 5.0, minimum=0.01, maximum=60
            ),
            request_deadline_seconds=env.number(
                "INSIGHT_REQUEST_DEADLINE_SECONDS", 10.0, minimum=0.01, maximum=300
            ),
            readiness_timeout_seconds=env.number(
                "INSIGHT_READINESS_TIMEOUT_SECONDS", 2.0, minimum=0.01, maximum=60
            ),
            shutdown_grace_seconds=env.number(
                "INSIGHT_SHUTDOWN_GRACE_SECONDS", 20.0, minimum=0, maximum=600
            ),
            federation=env.boolean("INSIGHT_FEDERATION", False),
            log_format=env.choice("INSIGHT_LOG_FORMAT", LOG_FORMATS, "auto"),
        )
        return _with_live_data(_with_protection(settings, env), env)


_BUDGET = re.compile(r"\s*([1-9][0-9]{0,8})\s*/\s*(second|minute|hour)\s*")
TRUSTED_DOCUMENTS_MODES = ("off", "audit", "enforce")
LOG_FORMATS = ("auto", "json", "console")


def _with_protection(settings: Settings, env: _Env) -> Settings:
    """The trusted-documents and rate-limit settings (issue 12), checked together."""
    mode = env.string("INSIGHT_TRUSTED_DOCUMENTS") or "off"
    if mode not in TRUSTED_DOCUMENTS_MODES:
        raise SettingsError(
            f"INSIGHT_TRUSTED_DOCUMENTS must be off, audit or enforce, not {mode!r}"
        )
    manifest = env.string("INSIGHT_TRUSTED_DOCUMENTS_FILE")
    if mode != "off" and manifest is None:
        raise SettingsError(
            f"INSIGHT_TRUSTED_DOCUMENTS={mode} needs INSIGHT_TRUSTED_DOCUMENTS_FILE (the manifest)"
        )
    roles = env.string("INSIGHT_TRUSTED_DOCUMENTS_BYPASS_ROLES") or "dashboard"
    uri = env.string("INSIGHT_RATE_LIMIT_STORAGE_URI") or "memory://"
    if uri != "memory://" and not uri.startswith(("redis://", "rediss://")):
        raise SettingsError(
            f"INSIGHT_RATE_LIMIT_STORAGE_URI must be memory:// or redis://host:port/db, not {uri!r}"
        )
    return dataclasses.replace(
        settings,
        trusted_documents=mode,
        trusted_documents_file=manifest,
        trusted_documents_bypass_roles=frozenset(
            role.strip() for role in roles.split(",") if role.strip() and roles != "none"
        ),
        rate_limit_storage_uri=uri,
        rate_limit_user=env.budget("INSIGHT_RATE_LIMIT_USER", "3000/minute"),
        rate_limit_dashboard=env.budget("INSIGHT_RATE_LIMIT_DASHBOARD", "60000/minute"),
        rate_limit_writer=env.budget("INSIGHT_RATE_LIMIT_WRITER", "60000/minute"),
        rate_limit_fail_open=env.boolean("INSIGHT_RATE_LIMIT_FAIL_OPEN", True),
    )


def _with_live_data(settings: Settings, env: _Env) -> Settings:
    """The subscriptions', change feed's and cache's settings (SPEC sections 7 and 8)."""
    feed = env.string("INSIGHT_CHANGE_FEED_URI") or "memory://"
    if feed != "memory://" and not feed.startswith(("redis://", "rediss://")):
        raise SettingsError(
            f"INSIGHT_CHANGE_FEED_URI must be memory:// or redis://host:port/db, not {feed!r}"
        )
    return dataclasses.replace(
        settings,
        subscriptions=env.boolean("INSIGHT_SUBSCRIPTIONS", False),
        change_feed_uri=feed,
        subscriptions_max_per_connection=env.integer(
            "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION", 20, minimum=1, maximum=1000
        ),
        stream_lease_seconds=env.number(
            "INSIGHT_STREAM_LEASE_SECONDS", 10.0, minimum=1, maximum=600
        ),
        cache=env.boolean("INSIGHT_CACHE", False),
        cache_max_bytes=env.integer(
            "INSIGHT_CACHE_MAX_BYTES", 268_435_456, minimum=1_048_576, maximum=2**40
        ),
        cache_max_lag_seconds=env.number(
            "INSIGHT_CACHE_MAX_LAG_SECONDS", 2.0, minimum=0.1, maximum=3600
        ),
    )


@dataclass(frozen=True, slots=True)
class _Env:
    environ: Mapping[str, str]

    def string(self, name: str) -> str | None:
        value = self.environ.get(name, "").strip()
        return value or None

    def integer(
        self, name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        raw = self.string(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise SettingsError(f"{name} must be a whole number, not {raw!r}") from None
        if minimum is not None and value < minimum:
            raise SettingsError(f"{name} must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise SettingsError(f"{name} must be at most {maximum}, not {value}")
        return value

    def origins(self, name: str) -> tuple[str, ...]:
        """Comma-separated browser origins (`https://app.example.com`), or `*` for any."""
        raw = self.string(name)
        if raw is None:
            return ()
        origins = tuple(part.strip().rstrip("/") for part in raw.split(",") if part.strip())
        for origin in origins:
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise SettingsError(
                    f"{name} must list origins like https://app.example.com, not {origin!r}"
                )
        return origins

    def number(
        self,
        name: str,
        default: float,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> float:
        raw = self.string(name)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise SettingsError(f"{name} must be a number, not {raw!r}") from None
        if not math.isfinite(value):
            raise SettingsError(f"{name} must be a finite number, not {raw!r}")
        if minimum is not None and value < minimum:
            raise SettingsError(f"{name} must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise SettingsError(f"{name} must be at most {maximum}, not {value}")
        return value

    def budget(self, name: str, default: str) -> str:
        """A budget of cost points per window: `N/second`, `N/minute` or `N/hour`."""
        raw = self.string(name) or default
        match = _BUDGET.fullmatch(raw)
        if match is None:
            raise SettingsError(f"{name} must be N/second, N/minute or N/hour, not {raw!r}")
        return f"{match.group(1)}/{match.group(2)}"

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        """One of `choices` (case-insensitive)."""
        raw = self.string(name)
        if raw is None:
            return default
        if raw.lower() not in choices:
            raise SettingsError(f"{name} must be {', '.join(choices)}, not {raw!r}")
        return raw.lower()

    def boolean(self, name: str, default: bool) -> bool:
        raw = self.string(name)
        if raw is None:
            return default
        lowered = raw.lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise SettingsError(f"{name} must be true or false, not {raw!r}")
