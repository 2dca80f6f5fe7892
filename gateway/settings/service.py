"""The settings of the service itself: where DynamoDB is and how it is called, the tables,
the token keys, the read rules' TTLs, and the process's logs and traces."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.configuration import setting, setting_group
from gateway.configuration.parsers import call_path_choice, log_format_choice
from loaders.tables import TableNames
from schema.plan_prices import READ_UNIT_PRICE, VCPU_HOUR_PRICE


@dataclass(frozen=True, slots=True)
class ServiceSettings:
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
        "the client's connection pool (and the lean path's, as large), and the cap on calls "
        "in flight",
        minimum=1,
        maximum=1024,
    )
    # The exporter reads the standard OTEL_* variables.
    otel_enabled: bool = setting(
        "INSIGHT_OTEL_ENABLED",
        False,
        "OpenTelemetry tracing (the `otel` extra; see Operations)",
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
    # loaders/wire/: GetItem, BatchGetItem and Query without botocore's pipeline, configured
    # with the values that build the client (gateway/resources.py, docs/performance.md).
    dynamodb_call_path: str = setting(
        "INSIGHT_DYNAMODB_CALL_PATH",
        "lean",
        "how the read calls (GetItem, BatchGetItem, Query) are sent: `lean` (signed and "
        "sent on connections of their own, sized, timed and verified as the client's, a "
        "fraction of botocore's CPU; a proxy or an endpoint URL with a path keeps botocore, "
        "said in one log line at start) or `botocore` (through aioboto3, as every other "
        "call is)",
        parse=call_path_choice,
    )
    # The access plan reads a user's partition whole or field by field, whichever costs less
    # at these prices (schema/plan_prices.py says where the defaults come from).
    price_read_unit: float = setting(
        "INSIGHT_PRICE_READ_UNIT",
        READ_UNIT_PRICE,
        "dollars per million DynamoDB read request units, for the access plan's choice "
        "(default: on-demand, us-east-1; see Performance)",
        minimum=0,
        maximum=100,
    )
    price_vcpu_hour: float = setting(
        "INSIGHT_PRICE_VCPU_HOUR",
        VCPU_HOUR_PRICE,
        "dollars per vCPU-hour of the gateway's replicas, for the access plan's choice "
        "(default: Fargate on-demand, Linux/x86, us-east-1; see Performance)",
        minimum=0,
        maximum=100,
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
    # A flood of probes must not become a flood of DescribeTable calls (control-plane
    # throttling): at most one look at the tables per replica per this many seconds.
    readyz_cache_seconds: float = setting(
        "INSIGHT_READYZ_CACHE_SECONDS",
        1.0,
        "how long `/readyz` reuses its last look at the tables (concurrent probes share one "
        "look); 0: every probe looks",
        minimum=0,
        maximum=60,
    )
    shutdown_grace_seconds: float = setting(
        "INSIGHT_SHUTDOWN_GRACE_SECONDS",
        20.0,
        "on SIGTERM, how long in-flight requests may take to finish before the client is closed",
        minimum=0,
        maximum=600,
    )
    strict_settings: bool = setting(
        "INSIGHT_STRICT_SETTINGS",
        False,
        "an `INSIGHT_*` variable that is no setting stops the start (exit 2) instead of a "
        "warning; either way its message names the closest setting",
    )
    log_format: str = setting(
        "INSIGHT_LOG_FORMAT",
        "auto",
        "log lines on stderr: `json` (one object a line, for production), `console` (plain "
        "lines, coloured on a terminal), or `auto`: `console` when stderr is a terminal, else "
        "`json`",
        parse=log_format_choice,
    )
