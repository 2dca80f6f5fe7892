"""The settings of a request's way in: query limits, HTTP hygiene, batching, GraphiQL,
federation, trusted documents and per-principal budgets."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.configuration import setting
from gateway.configuration.parsers import budget, hosts, origins, roles, storage_uri
from gateway.settings.service import ServiceSettings


@dataclass(frozen=True, slots=True)
class RequestSettings(ServiceSettings):
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
    # Bounds on what validation does with a document (schema/extensions/document_shape.py),
    # each far above what the example queries need (at most 60 selections, 1 fragment, no
    # overlapping fields).
    max_query_selections: int = setting(
        "INSIGHT_MAX_QUERY_SELECTIONS",
        1000,
        "fields, fragment spreads and inline fragments accepted in one document, each spread "
        "counted with its fragment's",
        minimum=1,
    )
    max_query_fragment_depth: int = setting(
        "INSIGHT_MAX_QUERY_FRAGMENT_DEPTH",
        50,
        "longest chain of fragments spread inside fragments accepted",
        minimum=1,
        maximum=150,
    )
    max_query_overlaps: int = setting(
        "INSIGHT_MAX_QUERY_OVERLAPS",
        1000,
        "pairs of fields answering under one name at one place accepted (n such fields make "
        "n(n-1)/2 pairs, each compared by validation)",
        minimum=0,
    )
    persisted_query_cache_size: int = setting(
        "INSIGHT_PERSISTED_QUERY_CACHE_SIZE",
        1000,
        "automatic persisted queries kept (LRU; 0 turns them off)",
        minimum=0,
        maximum=1_000_000,
    )
    compiled_execution: bool = setting(
        "INSIGHT_COMPILED_EXECUTION",
        True,
        'answer each operation that compiles by its compiled form (see Performance, "Compiled '
        "operations\"); `false`: graphql-core's path alone, field by field, the same answers (a "
        "switch to debug by)",
    )
    # HTTP hygiene (gateway/http/graphql_view.py).
    max_body_bytes: int = setting(
        "INSIGHT_MAX_BODY_BYTES",
        262_144,
        "largest POST body accepted (413 above it)",
        minimum=1024,
        maximum=64 * 1024 * 1024,
    )
    # The request head, bounded by the server's protocol (gateway/live_http/server_protocol.py).
    max_head_bytes: int = setting(
        "INSIGHT_MAX_HEAD_BYTES",
        16_384,
        "largest request head (request line and headers) accepted (431 above it)",
        minimum=1024,
        maximum=1_048_576,
    )
    head_timeout_seconds: float = setting(
        "INSIGHT_HEAD_TIMEOUT_SECONDS",
        10.0,
        "a connection whose request head has not arrived whole this long after it opened (or "
        "after its last answer) is closed",
        minimum=0.1,
        maximum=300,
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
    allowed_hosts: tuple[str, ...] = setting(
        "INSIGHT_ALLOWED_HOSTS",
        (),
        "the `Host` names served, over HTTP and on a socket's upgrade (others get 400); "
        "unset: any (`serve --embedded`: 127.0.0.1, localhost, [::1]); see Security",
        parse=hosts,
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
        "the budget of cost points of a token without `dashboard` or `writer` (an end user)",
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
        "a `writer` principal's budget (both roles: the more generous; it may be set below "
        "an end user's)",
        parse=budget,
    )
    rate_limit_fail_open: bool = setting(
        "INSIGHT_RATE_LIMIT_FAIL_OPEN",
        True,
        "when the budgets' storage fails: answer without budgets (`true`) or refuse with 503 "
        "(`false`)",
    )
    # Retried mutations (SPEC section 9): keys honoured when sent, or required.
    idempotency: str = setting(
        "INSIGHT_IDEMPOTENCY",
        "optional",
        "`optional`: an `Idempotency-Key` makes a mutation safe to retry when sent; "
        "`required`: a mutation without one is refused (400, see Retried mutations)",
        choices=("optional", "required"),
    )
    idempotency_ttl_seconds: int = setting(
        "INSIGHT_IDEMPOTENCY_TTL_SECONDS",
        86_400,
        "how long a key's first answer is kept and replayed",
        minimum=60,
        maximum=30 * 86_400,
    )
