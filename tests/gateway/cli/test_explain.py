"""`insight-gateway explain`: an operation's compiled form (its root fields, access plan,
planned reads and generated completion), or why it has none, for the document and variables
given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.cli.examples import FRONTEND_QUERY
from gateway.cli.main import main

SWITCHED = (
    "query Switched($ids: [ID!]!, $more: Boolean!) { users(ids: $ids) { id "
    'income @include(if: $more) { amount } } one: user(id: "u-1") { alert { alertSent } } '
    "__typename }"
)


def explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: str, *args: str
) -> tuple[int, str, str]:
    path = tmp_path / "operation.graphql"
    path.write_text(document)
    code = main(["explain", str(path), *args])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def test_the_frontend_query_prints_its_plan_and_its_generated_completion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = explained(tmp_path, capsys, FRONTEND_QUERY)
    assert code == 0
    assert out.startswith("query Frontend: compiled, 1 root field(s)\n\nviewer, one user\n")
    assert "  access plan: each user's partition read whole (User fields: id, payday," in out
    assert "\n    savingsMonths(months: 3)\n" in out
    assert "\n    def complete_User_0(source, answers=None):\n" in out
    assert "out['recurringExpenses'] = [complete_RecurringExpense_" in out
    # The printed completion is the code that runs: it compiles as printed.
    source = out.split("  completion:\n", 1)[1]
    compile("\n".join(line[4:] for line in source.splitlines()), "printed", "exec")


def test_the_variables_choose_the_include_and_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variables = {"ids": ["u-1", "u-2"]}
    code, with_income, _ = explained(
        tmp_path, capsys, SWITCHED, "--variables", json.dumps({**variables, "more": True})
    )
    assert code == 0
    assert "users, a list of users" in with_income
    assert "one: user, one user" in with_income
    assert "__typename, the root type's name" in with_income
    assert "out['income']" in with_income
    code, without, _ = explained(
        tmp_path, capsys, SWITCHED, "--variables", json.dumps({**variables, "more": False})
    )
    assert code == 0
    assert "out['income']" not in without
    assert "access plan: field by field (User fields: id, income)" in without


@pytest.mark.parametrize(
    ("document", "why"),
    [
        ("{ __schema { queryType { name } } }", "the root field __schema"),
        (
            'mutation { recordLastPage(input: {userId: "u", paveRequestId: "r", page: 1}) '
            "{ page } }",
            "a mutation",
        ),
    ],
)
def test_an_operation_that_does_not_compile_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: str, why: str
) -> None:
    code, out, _ = explained(tmp_path, capsys, document)
    assert code == 1
    assert f"not compiled ({why}); graphql-core answers it, field by field" in out


@pytest.mark.parametrize(
    ("document", "args", "message"),
    [
        ("{ viewer { nope } }", (), "Cannot query field 'nope' on type 'User'."),
        (SWITCHED, ("--variables", '{"ids": ["u-1"]}'), "Variable '$more' has invalid value"),
        (SWITCHED, ("--variables", "{"), "Expecting property name"),
        ("query A { viewer { id } } query B { viewer { id } }", (), "--operation-name"),
    ],
)
def test_a_document_or_variables_the_schema_refuses_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    document: str,
    args: tuple[str, ...],
    message: str,
) -> None:
    code, out, err = explained(tmp_path, capsys, document, *args)
    assert (code, out) == (2, "")
    assert message in err
