"""The gateway's settings, read once from the environment into a frozen object.

Each setting is declared once, as a field of `Settings`: its variable, type (the annotation),
default, bounds and one line of documentation. Parsing, the messages naming the variable,
`docs/configuration.md` (`make docs`) and `QueryLimits` are derived from it. A new setting:

    max_query_depth: int = setting(
        "INSIGHT_MAX_QUERY_DEPTH", 10, "deepest selection accepted", minimum=1
    )

`int`, `float`, `bool`, `str` and `str | None` (unset by default) are parsed by their
annotation; any other type names its `parse` (`gateway/configuration/parsers.py`); a check
across settings is a function in `gateway/configuration/checks.py`. Then `make docs` writes
the configuration page again (a test fails until it does).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from gateway.configuration import (
    Declared,
    SettingsError,
    declared,
    read_fields,
    setting,
    setting_group,
)
from gateway.configuration.checks import CHECKS
from gateway.configuration.parsers import budget, log_format_choice, origins, roles, storage_uri
from loaders.tables import TableNames
from schema.extensions import QueryLimits

__all__ = ["VARIABLES", "Settings", "SettingsError"]


@dataclass(frozen=True, slots=True)
class Settings:
    dynamodb_endpoint_url: str | None = setting(
        "INSIGHT_DYNAMODB_ENDPOINT_URL",
        None,
        "DynamoDB endpoint (DynamoDB Local, moto, …); unset: AWS's own endpoint",
    )
    region: str = setting(
        "AWS_REGION",
        "us-east-1",
        "region; credentials come from the standard AWS chain (a task or instance role)",
    )
    # INSIGHT_TABLE_PAVE, …: each of TableNames' fields, defaulting to its default there.
    tables: TableNames = setting_group(TableNames, "INSIGHT_TABLE_", "table name")  # noqa: RUF009 (a field(default_factory=...))
    auth_hs256_secret: str | None = setting(
        "INSIGHT_AUTH_HS256_SECRET", None, "HS256 shared secret (at least 32 bytes)"
    )
    auth_jwks_file: str | None = setting(
        "INSIGHT_AUTH_JWKS_FILE",
        None,
        "JWKS document with the RS256/ES256 public keys (`kid` selects)",
    )
    auth_issuer: str | None = setting("INSIGHT_AUTH_ISSUER", None, "required `iss`, when set")
    auth_audience: str | None = setting("INSIGHT_AUTH_AUDIENCE", None, "required `aud`, when set")
    # RFC 7519 suggests "no more than a few minutes".
    auth_leeway_seconds: int = setting(
        "INSIGHT_AUTH_LEEWAY_SECONDS",
        30,
        "clock skew tolerated on `exp`/`nbf`/`iat`",
        minimum=0,
        maximum=300,
    )
    expense_ttl_days: int = setting(
        "INSIGHT_EXPENSE_TTL_DAYS",
        30,
        "`EXPENSE_TTL`: recurring/ritual rows live until `due_date` + this",
        minimum=0,
    )
    score_ttl_days: int = setting(
        "INSIGHT_SCORE_TTL_DAYS",
        30,
        "`ScoreTTL`: scores live until `scored_at` + this",
        minimum=0,
    )
    max_pool_connections: int = setting(
        "INSIGHT_DYNAMODB_MAX_POOL_CONNECTIONS",
        64,
        "the client's connection pool, and the cap on calls in flight",
        minimum=1,
        maximum=1024,
    )
    # Query limits, checked before execution (schema/extensions); docs/security.md has the
    # cost model.
    max_query_depth: int = setting(
        "INSIGHT_MAX_QUERY_DEPTH", 10, "deepest selection accepted", minimum=1
    )
    max_query_aliases: int = setting(
        "INSIGHT_MAX_QUERY_ALIASES", 30, "aliases accepted in one document", minimum=0
    )
    max_query_tokens: int = setting(
        "INSIGHT_MAX_QUERY_TOKENS", 2000, "lexical tokens accepted in one document", minimum=1
    )
    max_query_cost: int = setting(
        "INSIGHT_MAX_QUERY_COST",
        10_000,
        "estimated DynamoDB cost accepted (list arguments multiply it)",
        minimum=1,
    )
    persisted_query_cache_size: int = setting(
        "INSIGHT_PERSISTED_QUERY_CACHE_SIZE",
        1000,
        "automatic persisted queries kept (LRU; 0 turns them off)",
        minimum=0,
        maximum=1_000_000,
    )
    # The exporter reads the standard OTEL_* variables.
    otel_enabled: bool = setting(
        "INSIGHT_OTEL_ENABLED",
        False,
        "OpenTelemetry tracing (the `otel` extra; see Operations)",
    )
    compiled_execution: bool = setting(
        "INSIGHT_COMPILED_EXECUTION",
        True,
        "complete plain objects in one loop (see Performance); `false`: graphql-core's path, "
        "field by field, the same answers",
    )
    # HTTP hygiene (gateway/http/graphql_view.py).
    max_body_bytes: int = setting(
        "INSIGHT_MAX_BODY_BYTES",
        262_144,
        "largest POST body accepted (413 above it)",
        minimum=1024,
        maximum=64 * 1024 * 1024,
    )
    # Batching (SPEC 4): up to 10 operations in one JSON array by default.
    max_batch_operations: int = setting(
        "INSIGHT_MAX_BATCH_OPERATIONS",
        10,
        "operations allowed in one batched (JSON array) request, more refused whole (400); "
        "0: batching off (see Batching)",
        minimum=0,
        maximum=100,
    )
    field_usage_max_clients: int = setting(
        "INSIGHT_FIELD_USAGE_MAX_CLIENTS",
        50,
        "client names labelled in `gateway_field_usage_total` (first seen first); later ones "
        "count as `other` (see Field usage)",
        minimum=0,
        maximum=1000,
    )
    graphiql: bool = setting(
        "INSIGHT_GRAPHIQL",
        True,
        "serve GraphiQL to browsers on `GET /graphql` (always on with `serve --embedded`)",
    )
    introspection: bool = setting(
        "INSIGHT_INTROSPECTION",
        True,
        "answer introspection (always on with `serve --embedded`); `false` in production",
    )
    cors_origins: tuple[str, ...] = setting(
        "INSIGHT_CORS_ORIGINS",
        (),
        "browser origins allowed by CORS; unset: none",
        parse=origins,
    )
    # Reliability: botocore's standard retry mode, socket timeouts per attempt, and one
    # deadline per GraphQL request that bounds every DynamoDB call of the request.
    dynamodb_max_attempts: int = setting(
        "INSIGHT_DYNAMODB_MAX_ATTEMPTS",
        3,
        "attempts per DynamoDB call in botocore's standard retry mode, first try included",
        minimum=1,
        maximum=10,
    )
    dynamodb_connect_timeout_seconds: float = setting(
        "INSIGHT_DYNAMODB_CONNECT_TIMEOUT_SECONDS",
        1.0,
        "connect timeout of one attempt",
        minimum=0.01,
        maximum=60,
    )
    dynamodb_read_timeout_seconds: float = setting(
        "INSIGHT_DYNAMODB_READ_TIMEOUT_SECONDS",
        2.0,
        "read timeout of one attempt",
        minimum=0.01,
        maximum=60,
    )
    dynamodb_unprocessed_deadline_seconds: float = setting(
        "INSIGHT_DYNAMODB_UNPROCESSED_DEADLINE_SECONDS",
        5.0,
        "how long a batch call keeps re-sending unprocessed keys (with jittered backoff)",
        minimum=0.01,
        maximum=60,
    )
    request_deadline_seconds: float = setting(
        "INSIGHT_REQUEST_DEADLINE_SECONDS",
        10.0,
        "per GraphQL request: no DynamoDB call of it (retries included) runs past this; its "
        "fields fail with `DYNAMODB_UNAVAILABLE`",
        minimum=0.01,
        maximum=300,
    )
    readiness_timeout_seconds: float = setting(
        "INSIGHT_READINESS_TIMEOUT_SECONDS",
        2.0,
        "`/readyz` answers 503 when the tables are not all described within this",
        minimum=0.01,
        maximum=60,
    )
    shutdown_grace_seconds: float = setting(
        "INSIGHT_SHUTDOWN_GRACE_SECONDS",
        20.0,
        "on SIGTERM, how long in-flight requests may take to finish before the client is closed",
        minimum=0,
        maximum=600,
    )
    federation: bool = setting(
        "INSIGHT_FEDERATION",
        False,
        "serve the schema as an Apollo Federation 2 subgraph (`_service`, `_entities`, `User "
        '@key(fields: "id")`; see Federation)',
    )
    # Per-client protection: trusted documents, and per-principal budgets of cost points
    # (docs/security.md has the reasoning of the defaults).
    trusted_documents: str = setting(
        "INSIGHT_TRUSTED_DOCUMENTS",
        "off",
        "`audit` serves unlisted operations, logging each once and counting them; `enforce` "
        "refuses them (see Security)",
        choices=("off", "audit", "enforce"),
    )
    trusted_documents_file: str | None = setting(
        "INSIGHT_TRUSTED_DOCUMENTS_FILE",
        None,
        "the operation manifest (Apollo's or Relay's), needed by `audit` and `enforce`",
    )
    trusted_documents_bypass_roles: frozenset[str] = setting(
        "INSIGHT_TRUSTED_DOCUMENTS_BYPASS_ROLES",
        frozenset({"dashboard"}),
        "roles that may send any operation (`none`: no role)",
        parse=roles,
    )
    rate_limit_storage_uri: str = setting(
        "INSIGHT_RATE_LIMIT_STORAGE_URI",
        "memory://",
        "where budgets are counted: `memory://` (per process) or Redis, shared by every "
        "replica and worker",
        parse=storage_uri,
    )
    rate_limit_user: str = setting(
        "INSIGHT_RATE_LIMIT_USER",
        "3000/minute",
        "an end user's budget of cost points",
        parse=budget,
    )
    rate_limit_dashboard: str = setting(
        "INSIGHT_RATE_LIMIT_DASHBOARD",
        "60000/minute",
        "a `dashboard` principal's budget",
        parse=budget,
    )
    rate_limit_writer: str = setting(
        "INSIGHT_RATE_LIMIT_WRITER",
        "60000/minute",
        "a `writer` principal's budget (several roles: the most generous)",
        parse=budget,
    )
    rate_limit_fail_open: bool = setting(
        "INSIGHT_RATE_LIMIT_FAIL_OPEN",
        True,
        "when the budgets' storage fails: answer without budgets (`true`) or refuse with 503 "
        "(`false`)",
    )
    # Live data (SPEC section 7): subscriptions, fed by the tables' DynamoDB Streams; each
    # shard read by one replica at a time under a lease in `locks`; changes shared between
    # replicas through the change feed.
    subscriptions: bool = setting(
        "INSIGHT_SUBSCRIPTIONS",
        False,
        "serve subscriptions (`graphql-transport-ws` on `/graphql`) and read the tables' "
        "DynamoDB Streams (`make serve` turns it on)",
    )
    change_feed_uri: str = setting(
        "INSIGHT_CHANGE_FEED_URI",
        "memory://",
        "how replicas share changes: `memory://` (one replica) or Redis (publish/subscribe, "
        "every replica)",
        parse=storage_uri,
    )
    subscriptions_max_per_connection: int = setting(
        "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION",
        20,
        "subscriptions one socket may hold at once",
        minimum=1,
        maximum=1000,
    )
    stream_lease_seconds: float = setting(
        "INSIGHT_STREAM_LEASE_SECONDS",
        10.0,
        "a stream shard's lease in `locks`: a killed replica's shards are taken over after this",
        minimum=1,
        maximum=600,
    )
    # The coherent cache (SPEC section 8), trusted only while the change feed is whole.
    cache: bool = setting(
        "INSIGHT_CACHE",
        False,
        "the coherent cache: on, repeated reads are answered from memory, dropped by the "
        "change feed",
    )
    cache_max_bytes: int = setting(
        "INSIGHT_CACHE_MAX_BYTES",
        268_435_456,
        "the cache's bound per replica, least recently used out first",
        minimum=1_048_576,
        maximum=2**40,
    )
    cache_max_lag_seconds: float = setting(
        "INSIGHT_CACHE_MAX_LAG_SECONDS",
        2.0,
        "while any shard's position is older than this, or the feed is cut off, every read "
        "goes to DynamoDB",
        minimum=0.1,
        maximum=3600,
    )
    log_format: str = setting(
        "INSIGHT_LOG_FORMAT",
        "auto",
        "log lines on stderr: `json` (one object a line, for production), `console` (plain "
        "lines, coloured on a terminal), or `auto`: `console` when stderr is a terminal, else "
        "`json`",
        parse=log_format_choice,
    )

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
        settings = cls(**read_fields(cls, os.environ if environ is None else environ))
        for check in CHECKS:
            check(settings)
        return settings


#: Every variable by its field's name (`tables.pave` for a group's member). Made at import,
#: so that a field declared without `setting(...)` fails at once.
VARIABLES: dict[str, Declared] = dict(declared(Settings))
