"""One more entity, declared in this test alone, read through the access plan and written
by a mutation: its key, its row codec, its field's price, its GraphQL type, its input and
its checks come from its declaration, nothing else in the product."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import pytest
import strawberry
from strawberry.types import ExecutionResult

from loaders import validation
from loaders.answers import Answer, then
from loaders.dynamodb import Dynamo
from loaders.entity import entity
from loaders.errors import BadUserInput
from loaders.record import Input, Record, attribute, record, user_key
from loaders.rows.users import USERS
from loaders.tables import Table, TableNames
from loaders.transactions import Writes, commit
from loaders.writers.common import put_written
from schema.access_plan import USER_READS, plan_user_reads
from schema.context import Info, build_context
from schema.declared import input_of, input_values, output
from schema.federation import UserEntity
from schema.field_reads import UndeclaredRead, reads, type_reads
from schema.scalars import WireForms, scalar_overrides
from support.fixed_clock import FixedClock
from tests.conftest import CallCounter
from tests.schema.conftest import DASHBOARD_USER, UndeclaredUser

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@record
class NicknameRow(Record):
    TYPE = "nickname"

    user_id: str = user_key("The user to name.")
    nickname: str | None = attribute(
        "What the user likes to be called.",
        input=Input("The nickname, not empty.", validation.non_empty_text),
    )
    named_at: datetime | None = attribute("When it was set (UTC).", clock=True)


#: A point read in the user's `USERS#<id>` partition, 0.5 units and one item a read.
NICKNAME = entity(
    "nickname",
    Table.PAVE,
    pk=USERS,
    sk="NICKNAME",
    wakes=True,
    record=NicknameRow,
    read_units=0.5,
    read_items=1,
)


def _nickname(row: NicknameRow | None) -> str | None:
    return row.nickname if row is not None else None


@output(NicknameRow, description="The user's nickname.")
class Nickname:
    pass


@input_of(NicknameRow, description="A nickname to set.")
class SetNicknameInput:
    pass


@strawberry.type
class User:
    id: strawberry.ID = strawberry.field(metadata=reads())

    # strawberry.field with arguments is typed as returning Any (as in schema/, see
    # pyproject's override).
    @strawberry.field(metadata=reads(NICKNAME), graphql_type=str | None)  # type: ignore[untyped-decorator]
    def nickname(self, info: Info) -> Answer[str | None]:
        return then(info.context.reads.item(NICKNAME, user_id=self.id), _nickname)

    @strawberry.field(metadata=reads(NICKNAME), graphql_type=Nickname | None)  # type: ignore[untyped-decorator]
    def naming(self, info: Info) -> Answer[NicknameRow | None]:
        return info.context.reads.item(NICKNAME, user_id=self.id)


@strawberry.type
class Query:
    @strawberry.field
    def user(self, info: Info, id: strawberry.ID) -> User:
        plan_user_reads(info, [id])
        return User(id=id)


@strawberry.type
class Mutation:
    @strawberry.mutation(graphql_type=Nickname)  # type: ignore[untyped-decorator]
    async def set_nickname(self, info: Info, input: SetNicknameInput) -> NicknameRow:
        writes = Writes()
        row = put_written(writes, NicknameRow, input_values(input), info.context.now)
        await commit(info.context.dynamo, writes.staged)
        return row


@strawberry.type
class UndeclaredQuery:
    @strawberry.field
    def user(self, info: Info, id: strawberry.ID) -> UndeclaredUser:
        plan_user_reads(info, [id])
        return UndeclaredUser(id=id)


async def run(
    schema: strawberry.Schema, query: str, dynamo: Dynamo, clock: FixedClock
) -> ExecutionResult:
    context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
    return await schema.execute(query, context_value=context)


@pytest.mark.parametrize(
    ("aliases", "collected"),
    [
        # 0.5 units: one BatchGetItem key, as the prefix plan reads a point.
        (1, False),
        # 8 x 0.5 = 4.0 units, dearer than the whole partition (3.5): one Query of it.
        (8, True),
    ],
)
async def test_a_declared_entity_is_read_through_the_plan(
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
    aliases: int,
    collected: bool,
) -> None:
    await dynamo.put_many([(NICKNAME.table, NicknameRow("u-1", "Ada", None).to_item())])
    dynamodb_calls.requests.clear()
    selection = " ".join(f"n{index}: nickname" for index in range(aliases))
    result = await run(
        strawberry.Schema(query=Query), f'{{ user(id: "u-1") {{ {selection} }} }}', dynamo, clock
    )
    assert result.errors is None
    assert result.data == {"user": {f"n{index}": "Ada" for index in range(aliases)}}
    sent = [(name, params) for name, params in dynamodb_calls.requests]
    if collected:
        [(name, params)] = sent
        assert name == "Query"
        assert params["ExpressionAttributeValues"] == {":pk": {"S": "USERS#u-1"}}
    else:
        [(name, params)] = sent
        assert name == "BatchGetItem"
        [request] = params["RequestItems"].values()
        assert request["Keys"] == [{"PK": {"S": "USERS#u-1"}, "SK": {"S": "NICKNAME"}}]


async def test_a_field_without_declared_reads_is_refused_when_planned(
    dynamo: Dynamo, clock: FixedClock
) -> None:
    schema = strawberry.Schema(query=UndeclaredQuery)
    result = await run(schema, '{ user(id: "u-1") { id shoeSize } }', dynamo, clock)
    assert result.errors is not None
    assert isinstance(result.errors[0].original_error, UndeclaredRead)
    assert "User.shoeSize declares no reads" in str(result.errors[0].original_error)


def test_the_federation_user_prices_its_fields_as_the_product_user() -> None:
    assert type_reads(UserEntity) == USER_READS
    assert USER_READS["savingsMonths"].default_times == 3


def writing_schema() -> strawberry.Schema:
    """The test's schema with the product's scalars (`DateTime` as RFC 3339 with `Z`)."""
    return strawberry.Schema(
        query=Query, mutation=Mutation, scalar_overrides=scalar_overrides(WireForms())
    )


SDL = '''"""The user's nickname."""
type Nickname {
  """What the user likes to be called."""
  nickname: String

  """When it was set (UTC)."""
  namedAt: DateTime
}'''

INPUT_SDL = '''"""A nickname to set."""
input SetNicknameInput {
  """The user to name."""
  userId: ID!

  """The nickname, not empty."""
  nickname: String!
}'''


async def test_a_declared_entity_gets_its_graphql_type_and_input_and_is_written_and_read(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, clock: FixedClock
) -> None:
    schema = writing_schema()
    sdl = schema.as_str()
    assert SDL in sdl
    assert INPUT_SDL in sdl

    written = await run(
        schema,
        'mutation { setNickname(input: {userId: "u-1", nickname: "Ada"}) { nickname namedAt } }',
        dynamo,
        clock,
    )
    assert written.errors is None
    stamp = clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    assert written.data == {"setNickname": {"nickname": "Ada", "namedAt": stamp}}
    key = {"PK": {"S": "USERS#u-1"}, "SK": {"S": "NICKNAME"}}
    stored = await dynamodb.get_item(TableName=tables.pave, Key=key, ConsistentRead=True)
    assert stored["Item"] == {
        **key,
        "type": {"S": "nickname"},
        "nickname": {"S": "Ada"},
        "named_at": {"S": stamp},
    }

    read = await run(schema, '{ user(id: "u-1") { naming { nickname namedAt } } }', dynamo, clock)
    assert read.errors is None
    assert read.data == {"user": {"naming": {"nickname": "Ada", "namedAt": stamp}}}


async def test_a_declared_input_is_checked_with_the_fields_path_and_writes_nothing(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, clock: FixedClock
) -> None:
    schema = writing_schema()
    result = await run(
        schema,
        'mutation { setNickname(input: {userId: "u-1", nickname: " "}) { nickname } }',
        dynamo,
        clock,
    )
    assert result.errors is not None
    [error] = result.errors
    assert error.message == "nickname: must not be empty"
    assert isinstance(error.original_error, BadUserInput)
    assert error.original_error.code == "BAD_USER_INPUT"
    assert error.extensions == {"field": "nickname"}
    answer = await dynamodb.scan(TableName=tables.pave)
    assert answer["Items"] == []
