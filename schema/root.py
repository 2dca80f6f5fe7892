"""The executable schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.extensions.runner import SchemaExtensionsRunner
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionContext

from schema.cost_directives import add_cost_directives
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.errors import GatewayErrors
from schema.execution.executor import CompiledExecutionContext, ReferenceExecutionContext
from schema.extension_hooks import KeptHooksRunner
from schema.extensions.cost_report import CostReport
from schema.extensions.document_cache import CachedParsing, CachedValidation
from schema.extensions.replay_hold import ReplayHold
from schema.federation import FEDERATION_VERSION, with_entities
from schema.graphql_schema import graphql_schema
from schema.mutation import Mutation
from schema.prepared import PreparedOperations, attach
from schema.query import Query
from schema.scalars import scalar_overrides
from schema.subscription import Subscription

__all__ = ["GatewaySchema", "SubgraphSchema", "build_schema"]


class _GatewayHooks:
    """What the gateway's schema and its subgraph form share: how an operation runs its
    extensions, and who logs its errors."""

    def create_extensions_runner(
        self, execution_context: ExecutionContext, extensions: list[SchemaExtension]
    ) -> SchemaExtensionsRunner:
        # Each extension's hooks found once per class (schema/extension_hooks.py).
        return KeptHooksRunner(execution_context=execution_context, extensions=extensions)

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        # strawberry logs every error at ERROR, with the query text. Client errors (bad
        # input, forbidden, limits) are the client's to read; internal ones are logged once,
        # with their cause and request id, by GatewayErrors.
        return


class GatewaySchema(_GatewayHooks, strawberry.Schema):
    """The gateway's schema, as served (build_schema)."""


class SubgraphSchema(_GatewayHooks, strawberry.federation.Schema):
    """The schema as an Apollo Federation 2 subgraph (schema/federation.py)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(federation_version=FEDERATION_VERSION, **options)


def build_schema(
    extensions: Iterable[type[SchemaExtension] | Callable[[], SchemaExtension]] = (),
    *,
    federation: bool = False,
    compiled_execution: bool = True,
    prepared: PreparedOperations | None = None,
) -> strawberry.Schema:
    """The gateway's schema, with the given extensions (limits, masking, metrics...).

    Parsing and validation are cached; the cache's validation runs after the given
    extensions, so that a query limit refuses a query before it is validated.

    `federation`: served as an Apollo Federation 2 subgraph (`_service`, `_entities`,
    `User @key(fields: "id")`), `INSIGHT_FEDERATION`.

    `compiled_execution` answers each operation that compiles by its compiled form
    (`schema.execution`); off, every operation is graphql-core's path under strawberry,
    field by field (the answers are the same). Either executor plans a subscription's
    re-read of a user before its root field; the schema's resolvers stay strawberry's own.

    `prepared` owns the schema's prepared operations (schema/prepared.py) and its other
    process caches (the scalars' wire forms); the limit extensions given should share it.
    Without one, the schema gets its own."""
    schema_class = SubgraphSchema if federation else GatewaySchema
    owner = PreparedOperations(GATEWAY_COST_POLICY) if prepared is None else prepared
    schema = schema_class(
        query=with_entities(Query) if federation else Query,
        mutation=Mutation,
        subscription=with_entities(Subscription) if federation else Subscription,
        extensions=[
            CostReport,
            CachedParsing,
            *extensions,
            ReplayHold,
            CachedValidation,
            GatewayErrors,
        ],
        scalar_overrides=scalar_overrides(owner.forms),
        config=StrawberryConfig(auto_camel_case=True),
        execution_context_class=(
            CompiledExecutionContext if compiled_execution else ReferenceExecutionContext
        ),
    )
    attach(graphql_schema(schema), owner)
    if federation:
        # The cost model as `@cost`/`@listSize` for routers (schema/cost_directives.py).
        add_cost_directives(schema, GATEWAY_COST_POLICY)
    return schema
