"""A re-read's root user is planned by the executor (schema/execution/executor.py), not by
a resolver of ours put in strawberry's place: the schema's subscription fields keep
strawberry's own resolvers, and a re-read still reads the user's partition with one Query
when its selection makes that cheaper than point reads, by either executor, in the gateway's
schema and in the federation subgraph's (whose root field returns its own User class)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import strawberry
from graphql import GraphQLObjectType
from strawberry.types.graphql import OperationType

from gateway.settings import Settings
from loaders.dynamodb import Dynamo, FinishedCall
from schema.context import Context, build_context
from schema.execution.executor import ReferenceExecutionContext, as_field_class
from schema.federation import UserEntity
from schema.field_reads import UndeclaredRead
from schema.live import GroupKey, LiveHub
from schema.principal import Principal
from schema.query import Query
from schema.root import build_schema
from schema.subscription import Subscription
from schema.user import User
from support.fixed_clock import FixedClock
from support.seed import user_items
from tests.conftest import NOW
from tests.schema.conftest import DASHBOARD_USER, UndeclaredUser

EXECUTORS = pytest.mark.parametrize(
    ("federation", "compiled"), [(False, True), (False, False), (True, True), (True, False)]
)


def subscription_type(schema: strawberry.Schema) -> GraphQLObjectType:
    root = schema._schema.subscription_type
    assert root is not None
    return root


@EXECUTORS
def test_the_subscription_fields_keep_strawberrys_own_resolvers(
    federation: bool, compiled: bool
) -> None:
    own = subscription_type(strawberry.Schema(query=Query, subscription=Subscription))
    built = subscription_type(build_schema(federation=federation, compiled_execution=compiled))
    assert set(built.fields) == {"userChanged", "viewerChanged"}
    for name, field in built.fields.items():
        # strawberry's resolver of a subscription field gives the event as it is: one
        # function of its converter, whatever the schema.
        code = getattr(field.resolve, "__code__", None)
        assert code is not None
        assert code is getattr(own.fields[name].resolve, "__code__", None), name


#: Selections of a year of savings months (6 units field by field, dearer than the whole
#: partition's 3.5: one Query of it) and of two (1 unit: two keys of one BatchGetItem).
YEAR = "{ id savingsMonths(months: 12) { month } }"
TWO_MONTHS = "{ id savingsMonths(months: 2) { month } }"


@EXECUTORS
async def test_a_re_read_reads_the_partition_whole_when_the_plan_prefers_it(
    dynamo: Dynamo, clock: FixedClock, settings: Settings, federation: bool, compiled: bool
) -> None:
    await dynamo.put_many(user_items("u-9", NOW, settings))
    schema = build_schema(federation=federation, compiled_execution=compiled)
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)

    def new_context(principal: Principal) -> Context:
        return build_context(dynamo=dynamo, principal=principal, clock=clock, reread=True)

    hub = LiveHub(schema, new_context, clock=clock)
    for selection, whole in ((YEAR, True), (TWO_MONTHS, False)):
        calls.clear()
        query = f"subscription($ids: [ID!]!) {{ userChanged(ids: $ids) {selection} }}"
        variables = {"ids": ["u-9"]}
        key = GroupKey(query, None, json.dumps(variables), "dashboard", "u-9")
        payload, _ = await hub.execute(key, variables)
        reread = [(call.operation, call.params) for call in calls]

        # The same answer as a query of the same selection.
        context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
        result = await schema.execute(f'{{ user(id: "u-9") {selection} }}', context_value=context)
        assert result.errors is None
        assert payload == {"data": {"userChanged": result.data and result.data["user"]}}
        months: list[Any] = payload["data"]["userChanged"]["savingsMonths"]
        assert len(months) == (12 if whole else 2)
        assert any(month is not None for month in months)

        if whole:
            [(operation, params)] = reread
            assert operation == "query"
            assert params["ExpressionAttributeValues"] == {":pk": {"S": "USERS#u-9"}}
            assert params["ConsistentRead"] is True
        else:
            [(operation, params)] = reread
            assert operation == "batch_get_item"
            [request] = params["RequestItems"].values()
            assert len(request["Keys"]) == 2


def test_a_re_read_of_the_subgraph_reads_its_entity() -> None:
    user = User(id=strawberry.ID("u-1"))
    entity_field = subscription_type(build_schema(federation=True)).fields["userChanged"]
    as_entity = as_field_class(user, entity_field.type)
    assert type(as_entity) is UserEntity
    assert as_entity.id == "u-1"
    plain_field = subscription_type(build_schema()).fields["userChanged"]
    assert as_field_class(user, plain_field.type) is user


@strawberry.type
class UndeclaredQuery:
    ping: bool = True


@strawberry.type
class UndeclaredSubscription:
    @strawberry.subscription
    async def user_changed(self) -> AsyncIterator[UndeclaredUser]:
        yield UndeclaredUser(id=strawberry.ID("never"))


async def test_a_plan_that_fails_is_the_root_fields_error(
    dynamo: Dynamo, clock: FixedClock
) -> None:
    """As a resolver's error would be: at the root field's place, nothing read."""
    schema = strawberry.Schema(
        query=UndeclaredQuery,
        subscription=UndeclaredSubscription,
        execution_context_class=ReferenceExecutionContext,
    )
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)
    result = await schema.execute(
        "subscription { userChanged { id shoeSize } }",
        context_value=build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock),
        root_value=User(id=strawberry.ID("u-1")),
        allowed_operation_types=(OperationType.SUBSCRIPTION,),
    )
    assert result.data is None
    [error] = result.errors or []
    assert error.path == ["userChanged"]
    assert isinstance(error.original_error, UndeclaredRead)
    assert calls == []
