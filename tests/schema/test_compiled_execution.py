"""The compiled operation answers exactly as graphql-core's own: the same `data` (key order
included) and the same `errors` (messages, paths, locations, extensions).

A differential property test generates selections over the real schema (aliases, named and
inline fragments, `__typename`, `@include`/`@skip` on variables, arguments in and out of
range, nested lists) and runs each against seeded users, one with attributes missing from
its items, under both schemas, again from a warm coherent cache, where each answers
synchronously (nothing awaited), and as a subscription's re-read (the document executed
with the changed User as root value). `INSIGHT_FUZZ_EXAMPLES` sets how many (`make fuzz`).
Then: what the compiled form leaves to graphql-core (a refusal, an argument out of range, a
failed read) is answered by it with no DynamoDB call made twice; what it declines; and a
small schema of its own checks every value the completion leaves to graphql-core.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from datetime import date
from decimal import Decimal
from typing import Any

import orjson
import pytest
import strawberry
from graphql import (
    FieldNode,
    GraphQLObjectType,
    GraphQLSchema,
    OperationDefinitionNode,
    get_named_type,
    is_object_type,
    parse,
)
from graphql.execution import VariableValues
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
from schema.context import build_context
from schema.execution.compiler import compile_object, compiled_or_why
from schema.execution.executor import PassesPlainFields
from schema.execution.generated import generate
from schema.prepared import COMPILED_PER_OPERATION, PreparedOperations
from schema.principal import Principal
from schema.root import build_schema
from schema.user import User
from support.fixed_clock import FixedClock
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
#: The federation subgraph's (`_entities`, and its User as the entity class).
SUBGRAPH = build_schema(federation=True, prepared=OWNER)
SUBGRAPH_CORE = build_schema(federation=True, compiled_execution=False)


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
    #: Every call asked, answered by DynamoDB or remembered.
    asked: int = 0

    async def call(self, operation: str, **params: Any) -> dict[str, Any]:
        self.asked += 1
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
    from them synchronously (`execute_sync` refuses any awaitable), so nothing was awaited;
    and a third the same, from the parts of the answer the rows kept (the compiled path's)."""
    answers = []
    for schema in (COMPILED, GRAPHQL_CORE):
        filling = build_context(
            dynamo=dynamo, principal=DASHBOARD_USER, clock=FixedClock(NOW), cache=cache
        )
        await schema.execute(query, variable_values=variables, context_value=filling)
        warm_answers = []
        for _ in range(2):
            context = build_context(
                dynamo=dynamo, principal=DASHBOARD_USER, clock=FixedClock(NOW), cache=cache
            )
            result = schema.execute_sync(query, variable_values=variables, context_value=context)
            assert context.calls.records == []
            warm_answers.append(answer(result))
        assert warm_answers[0] == warm_answers[1]
        answers.append(warm_answers[1])
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
    return orjson.dumps(result.data).decode(), sorted(errors, key=json.dumps)


#: Hypothesis's settings for the tests that run requests: every example, or a quarter of
#: them (re-reads and `_entities`), with no deadline on a busy machine.
SLOW_EXAMPLES = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SLOW_EXAMPLES_QUARTER = settings(SLOW_EXAMPLES, max_examples=max(EXAMPLES // 4, 10))


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


@SLOW_EXAMPLES
@given(operation=operations(COMPILED._schema))
async def test_generated_selections_answer_the_same(
    operation: tuple[str, dict[str, Any]], dynamo: Dynamo, cache: CoherentCache
) -> None:
    query, variables = operation
    before = COUNTS.compiled + COUNTS.fell_back
    compiled, core = await both(query, variables, dynamo)
    assert compiled == core
    # The compiled form ran (and answered, or left the answer to graphql-core).
    assert COUNTS.compiled + COUNTS.fell_back > before
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


@SLOW_EXAMPLES_QUARTER
@given(operation=subscriptions(COMPILED._schema))
async def test_generated_selections_reread_the_same(
    operation: tuple[str, dict[str, Any]], dynamo: Dynamo
) -> None:
    document, variables = operation
    before = COUNTS.compiled + COUNTS.fell_back
    compiled, core = await both(document, variables, dynamo, reread_of="full-1")
    assert compiled == core
    assert '"userChanged":{' in compiled[0]
    # The compiled form ran the re-read (and answered, or left it to graphql-core).
    assert COUNTS.compiled + COUNTS.fell_back > before


async def test_the_full_user_is_compiled_and_answers_the_same(
    dynamo: Dynamo, cache: CoherentCache
) -> None:
    from support.every_field import every_field

    query = f"query($ids: [ID!]!) {{ users(ids: $ids) {every_field(COMPILED._schema, 'User')} }}"
    answered, fell_back = COUNTS.compiled, COUNTS.fell_back
    compiled, core = await both(query, {"ids": USER_IDS}, dynamo)
    assert compiled == core
    assert await warm(query, {"ids": USER_IDS}, dynamo, cache) == (compiled, core)
    assert '"recurringExpenses":[{"lastMine"' in compiled[0]
    # Four requests answered by the compiled form (uncached, filling the cache, from it,
    # and from the parts its rows kept), all four users each, the sparse one's missing
    # attributes included.
    assert (COUNTS.compiled - answered, COUNTS.fell_back - fell_back) == (4, 0)


@st.composite
def entity_operations(draw: st.DrawFn, schema: GraphQLSchema) -> tuple[str, dict[str, Any]]:
    """A router's `_entities` over a generated User selection (and `users` beside it)."""
    user = schema.get_type("User")
    assert isinstance(user, GraphQLObjectType)
    state: dict[str, Any] = {"aliases": 0, "depth": 0, "variables": {}, "fragments": []}
    selection = draw(selection_set(user, state))
    root = f"_entities(representations: $reps) {{ __typename ... on User {selection} }}"
    reps = [{"__typename": "User", "id": user_id} for user_id in USER_IDS]
    variables: dict[str, Any] = {"reps": reps, **state["variables"]}
    declared = "".join(f", ${name}: Boolean!" for name in state["variables"])
    if draw(st.booleans()):
        root += f" users(ids: $ids) {selection}"
        declared += ", $ids: [ID!]!"
        variables["ids"] = USER_IDS
    query = f"query Q($reps: [_Any!]!{declared}) {{ {root} }} " + " ".join(state["fragments"])
    return query, variables


@SLOW_EXAMPLES_QUARTER
@given(operation=entity_operations(SUBGRAPH._schema))
async def test_generated_entities_answer_the_same_in_the_subgraph(
    operation: tuple[str, dict[str, Any]], dynamo: Dynamo
) -> None:
    query, variables = operation
    before = COUNTS.compiled + COUNTS.fell_back
    answers = [
        await answer_and_calls(schema, query, variables, dynamo, DASHBOARD_USER)
        for schema in (SUBGRAPH, SUBGRAPH_CORE)
    ]
    assert answers[0] == answers[1]
    assert COUNTS.compiled + COUNTS.fell_back > before


async def test_a_routers_full_entities_are_compiled(dynamo: Dynamo) -> None:
    from support.every_field import every_field

    query = (
        "query($reps: [_Any!]!) { _entities(representations: $reps) { ... on User "
        f"{every_field(SUBGRAPH._schema, 'User')} }} }}"
    )
    variables = {"reps": [{"__typename": "User", "id": user_id} for user_id in USER_IDS]}
    answered = COUNTS.compiled
    compiled = await answer_and_calls(SUBGRAPH, query, variables, dynamo, DASHBOARD_USER)
    assert COUNTS.compiled == answered + 1
    assert compiled == await answer_and_calls(
        SUBGRAPH_CORE, query, variables, dynamo, DASHBOARD_USER
    )
    assert compiled[0][1] == []
    # A representation that is not a User's is graphql-core's to refuse, at its place.
    bad = {"reps": [*variables["reps"], {"__typename": "User"}]}
    fell_back = COUNTS.fell_back
    refused = await answer_and_calls(SUBGRAPH, query, bad, dynamo, DASHBOARD_USER)
    assert COUNTS.fell_back == fell_back + 1
    assert refused == await answer_and_calls(SUBGRAPH_CORE, query, bad, dynamo, DASHBOARD_USER)
    assert refused[0][1]


# --- what the compiled form leaves to graphql-core -------------------------------------

FRONTEND_FULL = Principal(sub="full-1", roles=frozenset())

#: Operations the compiled form runs and then leaves to graphql-core, each with its
#: variables and caller: graphql-core answers with the error at its place.
FALLBACKS: dict[str, tuple[str, dict[str, Any], Principal]] = {
    "an id the caller may not read": (
        "query($ids: [ID!]!) { users(ids: $ids) { id alert { alertSent } } }",
        {"ids": ["full-1", "sparse-1"]},
        FRONTEND_FULL,
    ),
    "an argument out of range": (
        "query($ids: [ID!]!) { users(ids: $ids) { income { amount } savingsMonths(months: 14) "
        "{ month } } }",
        {"ids": USER_IDS},
        DASHBOARD_USER,
    ),
    "a variable out of range": (
        "query($ids: [ID!]!, $n: Int!) { users(ids: $ids) { cashAdvanceScores(limit: $n) "
        "{ score } } }",
        {"ids": USER_IDS, "n": 0},
        DASHBOARD_USER,
    ),
    "an id over the key limit": (
        "query($ids: [ID!]!) { users(ids: $ids) { id payday { nextDate } } }",
        {"ids": ["full-1", "x" * 300]},
        DASHBOARD_USER,
    ),
}


async def answer_and_calls(
    schema: Any, query: str, variables: dict[str, Any], dynamo: Dynamo, principal: Principal
) -> tuple[tuple[str, list[dict[str, Any]]], int]:
    """The answer, and how many DynamoDB calls the request asked for. The variables are the
    request's own copy: strawberry's `_entities` resolver takes `__typename` out of each
    representation it is given."""
    assert isinstance(dynamo, Remembering)
    asked = dynamo.asked
    context = build_context(dynamo=dynamo, principal=principal, clock=FixedClock(NOW))
    result = await schema.execute(
        query, variable_values=copy.deepcopy(variables), context_value=context
    )
    return answer(result), dynamo.asked - asked


@pytest.mark.parametrize("case", sorted(FALLBACKS))
async def test_what_the_compiled_form_leaves_is_graphql_cores_with_no_call_twice(
    case: str, dynamo: Dynamo
) -> None:
    query, variables, principal = FALLBACKS[case]
    fell_back, answered = COUNTS.fell_back, COUNTS.compiled
    compiled = await answer_and_calls(COMPILED, query, variables, dynamo, principal)
    assert (COUNTS.fell_back - fell_back, COUNTS.compiled - answered) == (1, 0)
    core = await answer_and_calls(GRAPHQL_CORE, query, variables, dynamo, principal)
    # The same answer, the error included, and the same DynamoDB calls: graphql-core's
    # resolvers found the compiled form's plan and its settled loads.
    assert compiled == core
    assert compiled[0][1], "the case is an error"


DECLINED = {
    "introspection": "{ __schema { queryType { name } } }",
    "an introspected type under a user": '{ user(id: "full-1") { id __typename } '
    '__type(name: "User") { name } }',
}


@pytest.mark.parametrize("case", sorted(DECLINED))
async def test_what_does_not_compile_is_graphql_cores(case: str, dynamo: Dynamo) -> None:
    declined = COUNTS.declined
    compiled = await answer_and_calls(COMPILED, DECLINED[case], {}, dynamo, DASHBOARD_USER)
    assert COUNTS.declined - declined == 1
    core = await answer_and_calls(GRAPHQL_CORE, DECLINED[case], {}, dynamo, DASHBOARD_USER)
    assert compiled == core


async def test_a_document_compiles_once_per_set_of_include_values(
    dynamo: Dynamo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiled once per set of the values `@include`/`@skip` read, and only the last
    `COMPILED_PER_OPERATION` sets are kept (a full User's compiled form is ~87 KiB)."""
    compiled: list[Any] = []

    def counted(*args: Any) -> Any:
        compiled.append(args[3].coerced)
        return compiled_or_why(*args)

    monkeypatch.setattr("schema.execution.executor.compiled_or_why", counted)
    owner = PreparedOperations()
    schema = build_schema(prepared=owner)
    query = (
        "query($ids: [ID!]!, $a: Boolean!, $b: Boolean!, $c: Boolean!) { users(ids: $ids) { id "
        "alert @include(if: $a) { alertSent } income @skip(if: $b) { amount } "
        "payday @include(if: $c) { nextDate } } }"
    )

    async def run(a: bool, b: bool, c: bool) -> None:
        context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=FixedClock(NOW))
        variables = {"ids": ["full-1"], "a": a, "b": b, "c": c}
        result = await schema.execute(query, variable_values=variables, context_value=context)
        assert result.errors is None
        assert result.data is not None
        [user] = result.data["users"]
        assert ("alert" in user, "income" in user, "payday" in user) == (a, not b, c)

    for switches in [(True, False, True), (False, False, True)] * 3:
        await run(*switches)
    assert len(compiled) == 2  # each set once, answered by its compiled form every time
    assert owner.completion.compiled == 6
    every = [(a, b, c) for a in (True, False) for b in (True, False) for c in (True, False)]
    for switches in every:
        await run(*switches)
    # Six sets new; of the two above, (True, False, True) was still kept when met (third),
    # (False, False, True) no longer (seventh: four others came after it).
    assert len(compiled) == 2 + 6 + 1
    prepared = next(iter(owner._entries.values()))
    assert len(prepared._compiled) == COMPILED_PER_OPERATION
    await run(*every[-1])  # kept: the most recent
    assert len(compiled) == 9
    await run(*every[0])  # dropped: compiled again
    assert len(compiled) == 10


# --- the middleware the compiled form runs under ---------------------------------------------


class Untouching(SchemaExtension, PassesPlainFields):
    """Field middleware that declares plain fields untouched."""

    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        return _next(root, info, *args, **kwargs)


class Touching(SchemaExtension):
    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        return _next(root, info, *args, **kwargs)


@pytest.mark.parametrize(("extension", "compiles"), [(Untouching, True), (Touching, False)])
async def test_field_middleware_keeps_the_compiled_form_only_if_it_passes_plain_fields(
    extension: type[SchemaExtension], compiles: bool, dynamo: Dynamo
) -> None:
    owner = PreparedOperations()
    schema = build_schema([extension], prepared=owner)
    query = 'query { user(id: "full-1") { id income { amount } } }'
    result = await answer_and_calls(schema, query, {}, dynamo, DASHBOARD_USER)
    assert result == await answer_and_calls(GRAPHQL_CORE, query, {}, dynamo, DASHBOARD_USER)
    assert (owner.completion.compiled, owner.completion.declined) == (
        (1, 0) if compiles else (0, 1)
    )


# --- each value the completion leaves to graphql-core -----------------------------------------


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
    "exception as an item of a non-null list": holder(strict=[ValueError("stored error")]),
    "null item in a non-null list of leaves": holder(
        leaf=Bare(name="a", count=None, tags=["x", None], day=None)
    ),
    "not a list": holder(leaves=7),
    "exception as a value": holder(amount=ValueError("stored error")),
}
HOLDER_QUERY = (
    "{ holder { __typename amount leaf { name count tags day } "
    "leaves { n: name ...on Leaf { count } } strict { name tags } } }"
)


@pytest.mark.parametrize("case", sorted(CASES))
async def test_each_surprise_is_left_to_graphql_core(case: str) -> None:
    """The completion gives graphql-core's `data` for a plain object, and refuses (so that the
    operation falls back) any value graphql-core would answer with an error."""
    value = CASES[case]

    @strawberry.type
    class Query:
        @strawberry.field
        def holder(self) -> Holder:
            return value  # type: ignore[no-any-return]

    schema = strawberry.Schema(query=Query)
    document = parse(HOLDER_QUERY)
    [operation] = document.definitions
    assert isinstance(operation, OperationDefinitionNode)
    [node] = operation.selection_set.selections
    assert isinstance(node, FieldNode)
    holder_type = schema._schema.get_type("Holder")
    assert isinstance(holder_type, GraphQLObjectType)
    selection, planned = compile_object(
        schema._schema, holder_type, [node], {}, VariableValues({}, {})
    )
    assert planned == []
    complete = generate(selection).complete
    reference = await schema.execute(HOLDER_QUERY)
    if case == "plain":
        assert reference.errors is None
        assert reference.data is not None
        assert json.dumps(complete(value, None)) == json.dumps(reference.data["holder"])
    else:
        assert reference.errors, "the case is an error"
        # Unplain, or the read's own error (a missing attribute, a value that does not coerce).
        with pytest.raises(Exception):  # noqa: B017, PT011
            complete(value, None)


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
