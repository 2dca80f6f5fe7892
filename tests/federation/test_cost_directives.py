"""The subgraph's `@cost` and `@listSize`: Apollo's composition accepts them and the composed
supergraph keeps every one, and a router's static estimate from the supergraph's directives
agrees with the gateway's own measure (`INSIGHT_MAX_QUERY_COST`), but for the two documented
differences (docs/cost-directives.md): `users(ids:)` is estimated at 100 ids, and a mutation
operation costs a router 10 more."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLSchema, parse
from graphql.utilities import build_ast_schema

from gateway.cli.main import schema_sdl
from schema.cost_directives import COST_SPEC_URL, ListSize, cost_directives
from schema.cost_policy import GATEWAY_COST_POLICY
from schema.extensions.measures import query_cost
from schema.root import build_schema
from support.every_field import every_field
from tests.federation.demand_control import static_estimate

FOLDER = Path(__file__).parent
SUBGRAPH = build_schema(federation=True)._schema
EVERY_USER_FIELD = every_field(SUBGRAPH, "User")
HUNDRED_IDS = [f"u-{n}" for n in range(100)]


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not (FOLDER / "node_modules" / "@apollo" / "composition").is_dir():
        raise RuntimeError("Apollo's packages are not installed: run `make` (npm ci)")
    sdl = tmp_path_factory.mktemp("cost") / "insight.graphql"
    sdl.write_text(schema_sdl(federation=True))
    answer = subprocess.run(
        ["node", "compose.js", f"insight={sdl}"],
        cwd=FOLDER,
        capture_output=True,
        check=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(answer.stdout)
    return result


@pytest.fixture(scope="module")
def supergraph(composed: dict[str, Any]) -> GraphQLSchema:
    assert "errors" not in composed, composed["errors"]
    return build_ast_schema(parse(composed["supergraphSdl"]), assume_valid_sdl=True)


def _applied(target: GraphQLField | GraphQLArgument | GraphQLInputField) -> dict[str, Any]:
    node = target.ast_node
    assert node is not None
    return {
        d.name.value: {a.name.value: a.value for a in d.arguments or ()}
        for d in node.directives or ()
        if d.name.value in ("cost", "listSize")
    }


def _target(
    schema: GraphQLSchema, coordinate: str
) -> GraphQLField | GraphQLArgument | GraphQLInputField:
    type_name, _, rest = coordinate.partition(".")
    field_name, _, argument = rest.partition("(")
    named: Any = schema.get_type(type_name)
    field: GraphQLField | GraphQLInputField = named.fields[field_name]
    if argument:
        assert isinstance(field, GraphQLField)
        return field.args[argument.rstrip(":)")]
    return field


def test_composition_accepts_the_sdl_and_keeps_every_directive(
    composed: dict[str, Any], supergraph: GraphQLSchema
) -> None:
    sdl = composed["supergraphSdl"]
    assert f'@link(url: "{COST_SPEC_URL}"' in sdl
    # Apollo's one remark: linking the cost specification needs Federation 2.9.
    assert all("IMPLICITLY_UPGRADED_FEDERATION_VERSION" in hint for hint in composed["hints"])
    placements = cost_directives(SUBGRAPH, GATEWAY_COST_POLICY)
    assert len(placements) > 30
    for placement in placements:
        kept = _applied(_target(supergraph, placement.coordinate))
        for directive in placement.directives:
            if isinstance(directive, ListSize):
                given = kept["listSize"]
                if directive.slicing_arguments:
                    assert [v.value for v in given["slicingArguments"].values] == (
                        directive.slicing_arguments
                    ), placement.coordinate
                else:
                    assert int(given["assumedSize"].value) == directive.assumed_size
            else:
                assert int(kept["cost"]["weight"].value) == directive.weight  # type: ignore[attr-defined]


def _both(supergraph: GraphQLSchema, query: str, variables: dict[str, Any]) -> tuple[int, int]:
    document = parse(query)
    measured = query_cost(SUBGRAPH, document, GATEWAY_COST_POLICY, None, variables)
    return static_estimate(supergraph, document, variables), measured


AGREEING = [
    pytest.param(f"{{ viewer {EVERY_USER_FIELD} }}", {}, id="every User field at its defaults"),
    pytest.param(
        'query($n: Int!) { user(id: "u") {'
        " cashAdvanceScores(limit: $n) { score scoredAt }"
        " incomeDetectionRuns(limit: 7) {"
        " runDate methodResults { method transactions { amount } } }"
        " savingsMonths(months: 12) { month accounts { accountId amount } } } }",
        {"n": 25},
        id="limits and months, literal and variable, nested lists",
    ),
    pytest.param(
        '{ viewer { ...Lists } user(id: "x") {'
        " ... on User { alert { alertSent } lowBalanceAlert } } }"
        " fragment Lists on User { recurringExpenses { merchantName } rituals { merchantName }"
        " lastPages { page } income { __typename } }",
        {},
        id="fragments, unbounded lists, a scalar field that reads",
    ),
    pytest.param(
        f"query($ids: [ID!]!) {{ users(ids: $ids) {EVERY_USER_FIELD} }}",
        {"ids": HUNDRED_IDS},
        id="users with 100 ids",
    ),
    pytest.param(
        "{ viewer { id payday { nextDate pave { payday } } alert @skip(if: true) { alertSent } } }",
        {},
        id="skipped fields and objects inside objects",
    ),
]


@pytest.mark.parametrize(("query", "variables"), AGREEING)
def test_a_router_estimates_what_the_gateway_measures(
    supergraph: GraphQLSchema, query: str, variables: dict[str, Any]
) -> None:
    estimate, measured = _both(supergraph, query, variables)
    if "@skip" in query:
        # The gateway's measure does not read @skip: it counts the skipped field too.
        assert estimate == measured - 1
    else:
        assert estimate == measured
    assert measured > 0


@pytest.mark.parametrize("count", [1, 3, 50])
def test_users_is_estimated_at_a_hundred_ids(supergraph: GraphQLSchema, count: int) -> None:
    query = (
        "query($ids: [ID!]!) { users(ids: $ids) { alert { alertSent } savingsMonths { month } } }"
    )
    estimate, measured = _both(supergraph, query, {"ids": HUNDRED_IDS[:count]})
    assert measured == count * (1 + 3)
    assert estimate == 100 * (1 + 3)


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        (
            'mutation { recordSavingsSnapshot(input: {userId: "u", accounts: ['
            '{accountId: "a", amount: "1", subtype: "checking"},'
            '{accountId: "b", amount: "2", subtype: "savings"}]})'
            " { month totalAvailable accounts { accountId } } }",
            {},
        ),
        (
            "mutation($input: RecordSavingsSnapshotInput!, $u: ID!) {"
            " recordSavingsSnapshot(input: $input) { month }"
            " markInsightsRefresh(input: {userId: $u}) { __typename } }",
            {
                "input": {
                    "userId": "u",
                    "accounts": [{"accountId": "a", "amount": "1", "subtype": "checking"}],
                },
                "u": "u",
            },
        ),
    ],
)
def test_a_mutation_costs_a_router_ten_more(
    supergraph: GraphQLSchema, query: str, variables: dict[str, Any]
) -> None:
    estimate, measured = _both(supergraph, query, variables)
    assert measured == query.count("(input:")
    assert estimate == measured + 10
