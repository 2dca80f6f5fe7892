"""`insight-gateway explain`: what the gateway does with one document's operation.

It prints the operation's compiled form, as the gateway keeps it for the document: each root
field, the users it answers, its access plan (the User fields it reads and whether, for the
given variables, each user's partition is read whole), its planned reads in the order they
are asked for before the one wait, and the generated functions that complete the answer.
An operation that does not compile says why: graphql-core answers it, field by field.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLError,
    OperationDefinitionNode,
    get_operation_ast,
    parse,
    print_ast,
    validate,
)
from graphql.execution import get_variable_values

from gateway.cli.deprecations import load_schema
from gateway.settings import Settings
from schema.execution.compiler import compiled_or_why
from schema.execution.operation import MANY, NAME, CompiledOperation
from schema.extensions import walk
from schema.plan_prices import Prices

COMPILED, DECLINED, BAD_USAGE = 0, 1, 2
EXIT_CODES = (
    "exit codes: 0 the operation compiles, 1 it does not (graphql-core answers it), 2 bad "
    "usage, or a document or variables the schema refuses"
)
ANSWERS = {NAME: "the root type's name", MANY: "a list of users"}


def add_explain_command(commands: Any) -> None:
    explain = commands.add_parser(
        "explain",
        help="print an operation's compiled form: its reads and its generated completion",
        description=__doc__,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("document", metavar="FILE", help="the GraphQL document; - reads stdin")
    explain.add_argument("--operation-name", default=None, help="the operation to explain")
    explain.add_argument(
        "--variables",
        default="{}",
        metavar="JSON",
        help="the variables, as a request sends them (they choose @include/@skip and the plan)",
    )
    explain.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace, settings: Settings) -> int:
    text = sys.stdin.read() if args.document == "-" else Path(args.document).read_text()
    try:
        variables = json.loads(args.variables)
        compiled, explained = explain(text, args.operation_name, variables, settings.plan_prices)
        print(explained, end="")
    except (GraphQLError, ValueError) as error:
        print(f"insight-gateway explain: {error}", file=sys.stderr)
        return BAD_USAGE
    return COMPILED if compiled else DECLINED


def explain(
    text: str, operation_name: str | None, variables: dict[str, Any], prices: Prices
) -> tuple[bool, str]:
    """Whether the operation compiles, and the explanation (the access plan at `prices`, the
    settings' `INSIGHT_PRICE_*`) or, when it does not, why."""
    schema = load_schema(None)
    document = parse(text)
    errors = validate(schema, document)
    if errors:
        raise ValueError("; ".join(error.message for error in errors))
    # Validation has refused two operations of one name, and a document with none.
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        raise ValueError("name one operation of the document with --operation-name")
    coerced = get_variable_values(schema, operation.variable_definitions or (), variables)
    if isinstance(coerced, list):
        raise ValueError("; ".join(error.message for error in coerced))
    name = operation.name.value if operation.name else "(anonymous)"
    compiled = compiled_or_why(schema, operation, walk.fragments_of(document), coerced)
    if not isinstance(compiled, CompiledOperation):
        why = f"{operation.operation.value} {name}: not compiled ({compiled}); graphql-core "
        return False, why + "answers it, field by field\n"
    return True, _printed(operation, name, compiled, coerced.coerced, prices)


def _printed(
    operation: OperationDefinitionNode,
    name: str,
    compiled: CompiledOperation,
    variables: dict[str, Any],
    prices: Prices,
) -> str:
    kind = "a re-read of a changed user" if compiled.reread else operation.operation.value
    lines = [f"{kind} {name}: compiled, {len(compiled.roots)} root field(s)"]
    for root in compiled.roots:
        answers = ANSWERS.get(root.answers, "one user")
        field_name = root.node.name.value
        named = (
            root.response_name
            if root.response_name == field_name
            else (f"{root.response_name}: {field_name}")
        )
        lines.append(f"\n{named}, {answers}")
        if root.answers == NAME:
            continue
        fields = ", ".join(field for field, _ in root.user_fields)
        whole = root.reads_partitions_whole(variables, prices)
        plan = "each user's partition read whole" if whole else "field by field"
        lines.append(f"  access plan: {plan} (User fields: {fields})")
        lines.append("  planned reads, asked together before the one wait:")
        lines.extend(f"    {print_ast(field.node).split(' {')[0]}" for field in root.planned)
        lines.append("  completion:")
        source = root.user.source if root.user is not None else ""
        lines.extend(f"    {line}" if line else "" for line in source.splitlines())
    return "\n".join(lines) + "\n"
