"""The compiled and planned path answers exactly as graphql-core's own: the same `data` (key
order included) and the same `errors` (messages, paths, locations, extensions).

A differential property test generates selections over the real schema (aliases, named and
inline fragments, `__typename`, `@include`/`@skip` on variables, arguments in and out of
range, nested lists) and runs each against seeded users, one with attributes missing from
its items, under both schemas, again from a warm coherent cache, where each answers
synchronously (nothing awaited), and as a subscription's re-read (the document executed
with the changed User as root value). `INSIGHT_FUZZ_EXAMPLES` sets how many (`make fuzz`); a small
schema of its own then checks every surprise that sends an object back to graphql-core.
"""

from __future__ import annotations

import json
import os
import random
import re
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
import strawberry
from graphql import GraphQLObjectType, GraphQLSchema, get_named_type, is_object_type
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from gateway.settings import Settings
from loaders.cache import STREAMED_TABLES, CoherentCache
from loaders.dynamodb import Dynamo
from loaders.live.changes import ShardPosition
from loaders.live.feed_watch import FeedWatch
from loaders.tables import create_tables
from schema.clock import FixedClock
from schema.context import build_context
from schema.execution.executor import CompiledExecutionContext, PassesPlainFields
from schema.prepared import PreparedOperations, attach
from schema.root import build_schema
from schema.user import User
from support.seed import user_items
from tests.conftest import NOW, unique_table_names
from tests.schema.conftest import DASHBOARD_USER

EXAMPLES = int(os.environ.get("INSIGHT_FUZZ_EXAMPLES", "200"))
USER_IDS = ["full-1", "sparse-1", "nobody", "full-1"]

#: The owner of every compiled schema here: its counts say which path completed objects.
OWNER = PreparedOperations()
COUNTS = OWNER.completion
COMPILED = build_schema(prepared=OWNER)
GRAPHQL_CORE = build_schema(compiled_execution=False)


def sparse(items: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    """Every item with about half its attributes gone (never its key): rows written by
    another service that left fields out."""
    rng = random.Random(13)
    kept = []
    for table, item in items:
        key = {name for name in table.key_names if name is not None}
        kept.append((table, {n: v for n, v in item.items() if n in key or rng.random() < 0.5}))
    return kept


class Remembering(Dynamo):
    """DynamoDB's answers, each asked once: the seeded tables never change, and hundreds of
    examples then take seconds. Everything above the call (parsing, decoding, loaders,
    resolvers, execution) runs as in a request."""

    answers: dict[str, dict[str, Any]]

    async def call(self, operation: str, **params: Any) -> dict[str, Any]:
        key = json.dumps([operation, params], sort_keys=True)
        if key not in self.answers:
            self.answers[key] = await super().call(operation, **params)
        return self.answers[key]


@pytest.fixture(scope="module")
async def dynamo(dynamodb: Any) -> Dynamo:
    """The seeded tables, once for the module."""
    tables = unique_table_names()
    await create_tables(dynamodb, tables)
    app_settings = Settings(tables=tables)
    dynamo = Remembering(dynamodb, tables, max_concurrency=64)
    dynamo.answers = {}
    await dynamo.put_many(
        user_items("full-1", NOW, app_settings) + sparse(user_items("sparse-1", NOW, app_settings))
    )
    return dynamo


@pytest.fixture(scope="module")
def cache() -> CoherentCache:
    """A coherent cache whose feed is whole (every streamed table's shard current)."""
    wall = 1_000_000.0
    cache = CoherentCache(1 << 28, FeedWatch(clock=lambda: wall))
    for table in STREAMED_TABLES:
        cache.position(ShardPosition(table, "shard-1", wall))
    return cache


async def warm(
    query: str, variables: dict[str, Any], dynamo: Dynamo, cache: CoherentCache
) -> tuple[Any, Any]:
    """The answer of a request the warm coherent cache answers, by each path: a first
    request reads the items and the cache keeps them; the same request again is answered
    from them synchronously (`execute_sync` refuses any awaitable), so nothing was awaited."""
    answers = []
    for schema in (COMPILED, GRAPHQL_CORE):
        filling = build_context(
            dynamo=dynamo, principal=DASHBOARD_USER, clock=FixedClock(NOW), cache=cache
        )
        await schema.execute(query, variable_values=variables, context_value=filling)
        context = build_context(
            dynamo=dynamo, principal=DASHBOARD_USER, clock=FixedClock(NOW), cache=cache
        )
        result = schema.execute_sync(query, variable_values=variables, context_value=context)
        assert context.calls.records == []
        answers.append(answer(result))
    return answers[0], answers[1]


async def both(
    query: str, variables: dict[str, Any], dynamo: Dynamo, *, reread_of: str | None = None
) -> tuple[Any, Any]:
    """The answers of both paths, each a request of its own (a fresh context). `reread_of`:
    as a subscription's re-read of that user, the document executed with the User as root
    value, strongly consistent, as the live hub does (schema/live/reread.py)."""
    answers = []
    for schema in (COMPILED, GRAPHQL_CORE):
        context = build_context(
            dynamo=dynamo,
            principal=DASHBOARD_USER,
            clock=FixedClock(NOW),
            reread=reread_of is not None,
        )
        if reread_of is None:
            result = await schema.execute(query, variable_values=variables, context_value=context)
        else:
            result = await schema.execute(
                query,
                variable_values=variables,
                context_value=context,
                root_value=User(id=strawberry.ID(reread_of)),
                allowed_operation_types=(OperationType.SUBSCRIPTION,),
            )
        answers.append(answer(result))
    return answers[0], answers[1]


def answer(result: ExecutionResult) -> tuple[str, list[dict[str, Any]]]:
    """The answer as the wire carries it: data in key order, errors in full."""
    errors: list[dict[str, Any]] = [dict(error.formatted) for error in result.errors or ()]
    return json.dumps(result.data), sorted(errors, key=json.dumps)


# --- the generated selections ------------------------------------------------------------

ARGUMENTS = {"months": st.integers(0, 14), "limit": st.integers(0, 12)}


@st.composite
def selection_set(draw: st.DrawFn, object_type: GraphQLObjectType, state: dict[str, Any]) -> str:
    """`{ ... }` over `object_type`: each chosen field possibly aliased, given arguments,
    under a directive on a variable, inside an inline or a named fragment."""
    names = sorted(object_type.fields)
    chosen = draw(st.lists(st.sampled_from([*names, "__typename"]), min_size=1, max_size=6))
    parts = []
    for name in chosen:
        text = name
        field = object_type.fields.get(name)
        arguments = [
            f"{arg}: {draw(ARGUMENTS[arg])}"
            for arg in (field.args if field else {})
            if arg in ARGUMENTS and draw(st.booleans())
        ]
        if arguments:
            text += f"({', '.join(arguments)})"
        # An alias is unique, so fields with other arguments never conflict.
        if arguments or draw(st.integers(0, 3)) == 0:
            state["aliases"] += 1
            text = f"a{state['aliases']}: {text}"
        if draw(st.integers(0, 4)) == 0:
            variable = f"v{len(state['variables'])}"
            state["variables"][variable] = draw(st.booleans())
            text += f" @{draw(st.sampled_from(['include', 'skip']))}(if: ${variable})"
        inner = get_named_type(field.type) if field else None
        if is_object_type(inner) and state["depth"] < 4:
            state["depth"] += 1
            text += " " + draw(selection_set(inner, state))
            state["depth"] -= 1
        elif is_object_type(inner):
            text += " { __typename }"
        wrap = draw(st.integers(0, 5))
        if wrap == 0:
            text = f"... on {object_type.name} {{ {text} }}"
        elif wrap == 1:
            fragment = f"F{len(state['fragments'])}"
            state["fragments"].append(f"fragment {fragment} on {object_type.name} {{ {text} }}")
            text = f"...{fragment}"
        parts.append(text)
    return "{ " + " ".join(parts) + " }"


@st.composite
def operations(draw: st.DrawFn, schema: GraphQLSchema) -> tuple[str, dict[str, Any]]:
    user = schema.get_type("User")
    assert isinstance(user, GraphQLObjectType)
    state: dict[str, Any] = {"aliases": 0, "depth": 0, "variables": {}, "fragments": []}
    selection = draw(selection_set(user, state))
    root = f"users(ids: $ids) {selection}"
    if draw(st.booleans()):
        root += f' one: user(id: "{draw(st.sampled_from(USER_IDS))}") {selection}'
    declared = "".join(f", ${name}: Boolean!" for name in state["variables"])
    query = f"query Q($ids: [ID!]!{declared}) {{ {root} }} " + " ".join(state["fragments"])
    return query, {"ids": USER_IDS, **state["variables"]}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(operation=operations(COMPILED._schema))
async def test_generated_selections_answer_the_same(
    operation: tuple[str, dict[str, Any]], dynamo: Dynamo, cache: CoherentCache
) -> None:
    query, variables = operation
    compiled, core = await both(query, variables, dynamo)
    assert compiled == core
    # From a warm cache too, synchronously, by either path: the same bytes.
    assert await warm(query, variables, dynamo, cache) == (compiled, core)


@st.composite
def subscriptions(draw: st.DrawFn, schema: GraphQLSchema) -> tuple[str, dict[str, Any]]:
    """A `userChanged` document over a generated User selection, as a re-read executes it."""
    user = schema.get_type("User")
    assert isinstance(user, GraphQLObjectType)
    state: dict[str, Any] = {"aliases": 0, "depth": 0, "variables": {}, "fragments": []}
    selection = draw(selection_set(user, state))
    declared = "".join(f", ${name}: Boolean!" for name in state["variables"])
    document = (
        f"subscription S($ids: [ID!]!{declared}) {{ userChanged(ids: $ids) {selection} }} "
        + " ".join(state["fragments"])
    )
    return document, {"ids": ["full-1"], **state["variables"]}


@settings(
    max_examples=max(EXAMPLES // 4, 10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(operation=subscriptions(COMPILED._schema))
async def test_generated_selections_reread_the_same(
    operation: tuple[str, dict[str, Any]], dynamo: Dynamo
) -> None:
    document, variables = operation
    before = COUNTS.compiled + COUNTS.planned + COUNTS.fell_back
    compiled, core = await both(document, variables, dynamo, reread_of="full-1")
    assert compiled == core
    assert '"userChanged": {' in compiled[0]
    # The compiled executor answered the re-read (planned, compiled or fallen back).
    assert COUNTS.compiled + COUNTS.planned + COUNTS.fell_back > before


async def test_the_full_user_is_compiled_and_answers_the_same(
    dynamo: Dynamo, cache: CoherentCache
) -> None:
    from schema.every_field import every_field

    query = f"query($ids: [ID!]!) {{ users(ids: $ids) {every_field(COMPILED._schema, 'User')} }}"
    planned, fell_back = COUNTS.planned, COUNTS.fell_back
    compiled, core = await both(query, {"ids": USER_IDS}, dynamo)
    assert compiled == core
    assert await warm(query, {"ids": USER_IDS}, dynamo, cache) == (compiled, core)
    assert '"recurringExpenses": [{"lastMine"' in compiled[0]
    # Three requests by the compiled path (uncached, filling the cache, from it): each plans
    # and completes all four users, the sparse one's missing attributes included.
    assert (COUNTS.planned - planned, COUNTS.fell_back - fell_back) == (12, 0)


# --- every surprise falls back -----------------------------------------------------------


@strawberry.type
class Leaf:
    name: str
    count: int | None
    tags: list[str]
    day: date | None


@strawberry.type
class Holder:
    leaf: Leaf | None
    leaves: list[Leaf | None]
    strict: list[Leaf]
    amount: Decimal | None


class Bare:
    """An object missing attributes, a string where a number belongs, a null where a name
    is required, a tuple for a list, a non-list for a list."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def holder(**overrides: Any) -> Any:
    good = Leaf(name="a", count=1, tags=["x", "y"], day=date(2026, 12, 2))
    values = {
        "leaf": good,
        "leaves": [good, None],
        "strict": (good,),
        "amount": Decimal("1.50"),
        **overrides,
    }
    return Holder(**values)


CASES = {
    "plain": holder(),
    "null in a non-null field": holder(leaf=Bare(name=None, count=1, tags=[], day=None)),
    "missing attribute": holder(leaf=Bare(name="a", tags=[], day=None)),
    "value that does not coerce": holder(leaf=Bare(name="a", count="many", tags=[], day=None)),
    "null item of a non-null list": holder(strict=[None]),
    "null item in a non-null list of leaves": holder(
        leaf=Bare(name="a", count=None, tags=["x", None], day=None)
    ),
    "not a list": holder(leaves=7),
    "exception as a value": holder(amount=ValueError("stored error")),
}


class Untouching(SchemaExtension, PassesPlainFields):
    """Field middleware that declares plain fields untouched."""

    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        return _next(root, info, *args, **kwargs)


class Touching(SchemaExtension):
    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        return _next(root, info, *args, **kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
async def test_each_surprise_answers_as_graphql_core(case: str) -> None:
    value = CASES[case]

    @strawberry.type
    class Query:
        @strawberry.field
        def holder(self) -> Holder:
            return value  # type: ignore[no-any-return]

    query = (
        "{ holder { __typename amount leaf { name count tags day } "
        "leaves { n: name ...on Leaf { count } } strict { name tags } } }"
    )
    compiled, fell_back = COUNTS.compiled, COUNTS.fell_back
    results = await on_both_paths(Query, query)
    assert results[0] == results[1]
    if case == "plain":
        # Holder, its leaf, two of its list items: one loop each, nothing fell back.
        assert (COUNTS.compiled - compiled, COUNTS.fell_back) == (1, fell_back)
    else:
        assert results[0][1], "the case is an error"
        assert COUNTS.fell_back > fell_back


async def on_both_paths(query_type: type, query: str) -> list[Any]:
    """The answers of the compiled path and of graphql-core's, in that order."""
    results = []
    for executor in (CompiledExecutionContext, None):
        schema = strawberry.Schema(query=query_type, execution_context_class=executor)
        attach(schema._schema, OWNER)
        results.append(answer(await schema.execute(query)))
    return results


LIST_SURPRISES = {
    "plain": [holder(), holder()],
    "null item": [holder(), None],
    "an item that falls back": [holder(), CASES["null in a non-null field"]],
    "exception as an item": [holder(), ValueError("stored error")],
    "a tuple": (holder(),),
}


@pytest.mark.parametrize("case", sorted(LIST_SURPRISES))
@pytest.mark.parametrize("strict", [True, False])
async def test_a_resolvers_list_of_objects_answers_as_graphql_core(case: str, strict: bool) -> None:
    """A resolver's list of plain objects completes in one loop; any surprise in it sends
    the whole list to graphql-core's path, item by item."""
    values = LIST_SURPRISES[case]

    @strawberry.type
    class Query:
        @strawberry.field
        async def holders(self) -> list[Holder | None]:
            return values  # type: ignore[return-value]

        @strawberry.field
        async def strict_holders(self) -> list[Holder]:
            return values  # type: ignore[return-value]

    field = "strictHolders" if strict else "holders"
    query = (
        f"{{ {field} {{ __typename amount leaf {{ name count tags day }} strict {{ name }} }} }}"
    )
    compiled, fell_back = COUNTS.compiled, COUNTS.fell_back
    results = await on_both_paths(Query, query)
    assert results[0] == results[1]
    if case in ("plain", "a tuple") or (case == "null item" and not strict):
        assert not results[0][1]
        assert COUNTS.compiled - compiled == len(values)
        assert COUNTS.fell_back == fell_back
    else:
        assert COUNTS.fell_back > fell_back


@pytest.mark.parametrize(("extension", "compiles"), [(Untouching, True), (Touching, False)])
async def test_field_middleware_keeps_the_compiled_path_only_if_it_passes_plain_fields(
    extension: type[SchemaExtension], compiles: bool
) -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        def holder(self) -> Holder:
            return holder()  # type: ignore[no-any-return]

    schema = strawberry.Schema(
        query=Query, extensions=[extension], execution_context_class=CompiledExecutionContext
    )
    attach(schema._schema, OWNER)
    before = COUNTS.compiled
    result = await schema.execute("{ holder { amount leaf { name } } }")
    assert result.data == {"holder": {"amount": "1.50", "leaf": {"name": "a"}}}
    assert (COUNTS.compiled > before) is compiles


@strawberry.federation.type(keys=["name"])
class Entity:
    name: str
    leaf: Leaf | None

    @classmethod
    def resolve_reference(cls, name: str) -> Entity:
        return cls(name=name, leaf=holder().leaf)


@strawberry.type
class FederatedQuery:
    @strawberry.field
    def entity(self) -> Entity:
        return Entity.resolve_reference("e")


async def test_a_federation_schema_takes_the_same_executor() -> None:
    query = (
        '{ entity { name leaf { tags } } _entities(representations: [{__typename: "Entity", '
        'name: "f"}]) { ... on Entity { name leaf { name day } } } _service { sdl } }'
    )
    answers = []
    before = COUNTS.compiled
    for executor in (CompiledExecutionContext, None):
        schema = strawberry.federation.Schema(
            query=FederatedQuery, execution_context_class=executor
        )
        attach(schema._schema, OWNER)
        answers.append(answer(await schema.execute(query)))
    assert answers[0] == answers[1]
    assert answers[0][1] == []
    assert COUNTS.compiled - before >= 2  # entity (its leaf inside), _service


# --- the built-in scalars' outputs ---------------------------------------------------------

OUTPUTS = st.one_of(
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=5),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.none(),
)


@settings(max_examples=EXAMPLES)
@given(value=OUTPUTS)
def test_the_built_in_scalars_output_exactly_as_graphql_cores_serializers(value: Any) -> None:
    from graphql import GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString

    from schema.execution.plan import _coercer

    for scalar in (GraphQLString, GraphQLID, GraphQLBoolean, GraphQLInt, GraphQLFloat):
        fast = _coercer(scalar)
        assert fast is not scalar.coerce_output_value  # the short path is taken
        try:
            want: Any = scalar.coerce_output_value(value)
        except Exception as error:  # the same refusal, message included
            with pytest.raises(type(error), match=re.escape(str(error))):
                fast(value)
        else:
            got = fast(value)
            assert (type(got), got) == (type(want), want) or (got != got and want != want)
