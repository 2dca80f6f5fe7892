"""One more entity, declared in this test alone, read through the access plan: its key,
its row and its field's price come from its declaration, nothing else in the product."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
import strawberry
from strawberry.types import ExecutionResult

from loaders.answers import Answer, then
from loaders.codec import Item
from loaders.dynamodb import Dynamo
from loaders.entity import entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.tables import Table
from schema.access_plan import USER_READS, plan_user_reads
from schema.clock import FixedClock
from schema.context import Info, build_context
from schema.federation import UserEntity
from schema.field_reads import UndeclaredRead, reads, type_reads
from tests.conftest import CallCounter
from tests.schema.conftest import DASHBOARD_USER, UndeclaredUser


@dataclass(frozen=True, slots=True)
class NicknameRow:
    user_id: str
    nickname: str | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> NicknameRow:
        return cls(NICKNAME.user_of(item["PK"]), fields.text(item, "nickname"))

    def to_item(self) -> Item:
        key = NICKNAME.key(user_id=self.user_id)
        return {"PK": key.pk, "SK": key.sk, "type": "nickname", "nickname": self.nickname}


#: A point read in the user's `USERS#<id>` partition, 0.5 units and one item a read.
NICKNAME = entity(
    "nickname",
    Table.PAVE,
    pk=USERS,
    sk="NICKNAME",
    wakes=True,
    row=NicknameRow.from_item,
    read_units=0.5,
    read_items=1,
    example={"user_id": "u-1"},
)


def _nickname(row: NicknameRow | None) -> str | None:
    return row.nickname if row is not None else None


@strawberry.type
class User:
    id: strawberry.ID = strawberry.field(metadata=reads())

    # strawberry.field with arguments is typed as returning Any (as in schema/, see
    # pyproject's override).
    @strawberry.field(metadata=reads(NICKNAME), graphql_type=str | None)  # type: ignore[untyped-decorator]
    def nickname(self, info: Info) -> Answer[str | None]:
        return then(info.context.reads.item(NICKNAME, user_id=self.id), _nickname)


@strawberry.type
class Query:
    @strawberry.field
    def user(self, info: Info, id: strawberry.ID) -> User:
        plan_user_reads(info, [id])
        return User(id=id)


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
    await dynamo.put_many([(NICKNAME.table, NicknameRow("u-1", "Ada").to_item())])
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
