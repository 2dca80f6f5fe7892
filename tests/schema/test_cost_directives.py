"""The cost directives are derived from the cost policy: a change of the policy changes them,
and a multiplier the specification cannot express is refused rather than printed wrong."""

from __future__ import annotations

import dataclasses

import pytest
import strawberry

from schema.cost_directives import Cost, CostModelError, ListSize, cost_directives
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions import CostPolicy
from schema.root import build_schema

SUBGRAPH = build_schema(federation=True)._schema


def directives_of(policy: CostPolicy) -> dict[str, tuple[object, ...]]:
    return {p.coordinate: p.directives for p in cost_directives(SUBGRAPH, policy)}


def test_the_gateway_policy_s_directives() -> None:
    placed = directives_of(GATEWAY_COST_POLICY)

    assert placed["Query.user"] == (Cost(weight=0),)
    assert placed["Query.users"] == (Cost(weight=0), ListSize(assumed_size=100))
    assert placed["User.cashAdvanceScores"] == (ListSize(slicing_arguments=["limit"]),)
    assert placed["User.savingsMonths"] == (ListSize(slicing_arguments=["months"]),)
    assert placed["User.recurringExpenses"] == (ListSize(assumed_size=1),)
    assert placed["User.lowBalanceAlert"] == (Cost(weight=1),)
    assert placed["Mutation.recordSavingsSnapshot(input:)"] == (Cost(weight=0),)
    assert placed["RecordSavingsSnapshotInput.accounts"] == (Cost(weight=0),)
    # Objects cost a router 1 by default, as every User object field costs the gateway.
    assert "User.alert" not in placed
    assert "User.id" not in placed


def test_a_change_of_the_policy_changes_the_directives() -> None:
    dearer = dataclasses.replace(
        GATEWAY_COST_POLICY,
        field_costs={**GATEWAY_COST_POLICY.field_costs, "User.alert": 5},
        unknown_list_size=50,
    )
    placed = directives_of(dearer)
    assert placed["User.alert"] == (Cost(weight=5),)
    assert placed["Query.users"] == (Cost(weight=0), ListSize(assumed_size=50))


def test_a_multiplied_field_that_is_not_a_list_is_refused() -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        def total(self, limit: int = 10) -> int:
            return limit

    schema = strawberry.Schema(query=Query)._schema
    with pytest.raises(CostModelError, match=r"Query.total is multiplied by \['limit'\]"):
        cost_directives(schema, CostPolicy())


def test_the_plain_schema_links_no_cost_specification() -> None:
    plain = build_schema().as_str()
    assert "@cost" not in plain
    assert "@listSize" not in plain
    assert "specs.apollo.dev/cost" not in plain
