"""One more attribute on a declared entity is one line: the income verification, with an
`employer` declared beside its other attributes (here in a record that extends the product's,
the product's entity's keys unchanged), is written by its mutation and read by its field,
its stored bytes and its GraphQL field and input derived from that line alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

import strawberry
from strawberry.types import ExecutionResult

from loaders import validation
from loaders.answers import Answer
from loaders.dynamodb import Dynamo
from loaders.entities import INCOME_VERIFICATION
from loaders.entity import entity
from loaders.record import Input, attribute, record
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.users import USERS
from loaders.tables import TableNames
from loaders.transactions import Writes, commit
from loaders.writers.common import put_written
from schema.access_plan import plan_user_reads
from schema.context import Info, build_context
from schema.declared import input_of, input_values, output
from schema.field_reads import reads
from schema.scalars import WireForms, scalar_overrides
from support.fixed_clock import FixedClock
from tests.schema.conftest import DASHBOARD_USER

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@record
class EmployedVerificationRow(IncomeVerificationRow):
    employer: str | None = attribute("The payer.", input=Input("The payer.", validation.text))


#: The product's income verification, its keys and prices, with the one more attribute.
EMPLOYED_VERIFICATION = entity(
    "income_verification",
    INCOME_VERIFICATION.table,
    pk=USERS,
    sk="VERIFICATION",
    wakes=True,
    record=EmployedVerificationRow,
    read_units=0.5,
    read_items=1,
)


@output(EmployedVerificationRow, description="The income verification, with its payer.")
class IncomeVerification:
    pass


@input_of(EmployedVerificationRow, description="An income verification's verdict.")
class SetIncomeVerificationInput:
    pass


@strawberry.type
class User:
    id: strawberry.ID = strawberry.field(metadata=reads())

    @strawberry.field(  # type: ignore[untyped-decorator]
        metadata=reads(EMPLOYED_VERIFICATION), graphql_type=IncomeVerification | None
    )
    def income_verification(self, info: Info) -> Answer[EmployedVerificationRow | None]:
        return info.context.reads.item(EMPLOYED_VERIFICATION, user_id=self.id)


@strawberry.type
class Query:
    @strawberry.field
    def user(self, info: Info, id: strawberry.ID) -> User:
        plan_user_reads(info, [id])
        return User(id=id)


@strawberry.type
class Mutation:
    @strawberry.mutation(graphql_type=IncomeVerification)  # type: ignore[untyped-decorator]
    async def set_income_verification(
        self, info: Info, input: SetIncomeVerificationInput
    ) -> EmployedVerificationRow:
        writes = Writes()
        values = input_values(input)
        row = put_written(writes, EmployedVerificationRow, values, info.context.now)
        await commit(info.context.dynamo, writes.staged)
        return row


SCHEMA = strawberry.Schema(
    query=Query, mutation=Mutation, scalar_overrides=scalar_overrides(WireForms())
)

SET = """mutation {
  setIncomeVerification(input: {userId: "u-1", txnName: "ACME PAYROLL", txnId: "t-1",
    amountInCents: 184250, payFrequency: "biweekly", institutionId: "ins_1",
    verificationStatus: "approved", isValid: true, employer: "ACME Corp"}) { employer }
}"""


async def run(query: str, dynamo: Dynamo, clock: FixedClock) -> ExecutionResult:
    context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
    return await SCHEMA.execute(query, context_value=context)


def test_the_one_line_adds_the_field_to_the_output_type_and_the_input() -> None:
    sdl = SCHEMA.as_str()
    assert '  """The payer."""\n  employer: String\n}' in sdl
    # A required input field: after the other required ones, before those with defaults.
    assert '  """The payer."""\n  employer: String!\n\n  """Free-text notes' in sdl


async def test_the_added_attribute_is_written_and_read_through_graphql(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, clock: FixedClock
) -> None:
    written = await run(SET, dynamo, clock)
    assert written.errors is None
    assert written.data == {"setIncomeVerification": {"employer": "ACME Corp"}}
    key = {"PK": {"S": "USERS#u-1"}, "SK": {"S": "VERIFICATION"}}
    stored = await dynamodb.get_item(TableName=tables.pave, Key=key, ConsistentRead=True)
    assert stored["Item"]["employer"] == {"S": "ACME Corp"}
    assert stored["Item"]["verification_status"] == {"S": "approved"}

    read = await run(
        '{ user(id: "u-1") { incomeVerification { employer txnName } } }', dynamo, clock
    )
    assert read.errors is None
    assert read.data == {
        "user": {"incomeVerification": {"employer": "ACME Corp", "txnName": "ACME PAYROLL"}}
    }


async def test_the_added_attribute_is_checked_as_declared(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, clock: FixedClock
) -> None:
    result = await run(SET.replace('"ACME Corp"', '"' + "x" * 1025 + '"'), dynamo, clock)
    assert result.errors is not None
    assert result.errors[0].message == "employer: must be at most 1024 characters"
    assert (await dynamodb.scan(TableName=tables.pave))["Items"] == []
