"""`python -m bench completion`: the gateway's completion (`schema.execution`) against
graphql-core's on 1,000 plain objects of three fields (an Int, a String, a Float), the
figure Shopify's breadth-first engine and graphql-jit are measured by.

Two strawberry schemas of the same types differ only in `execution_context_class`, as
`build_schema` sets it (`compiled_execution`); both cache parsing and validation as the
gateway does, and the compiled one has its prepared operations attached, so what is timed
is execution. Before any timing both must give the same answer, and the gateway's must
have completed the objects on its compiled path. Then the two execute in turns, one
operation each, for `--seconds` (or `--rounds` turns, whichever ends first); ops/s is by
this process's CPU time (`time.process_time`), which a shared machine's other load
disturbs less than the wall clock. `--json` ends the output with one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import strawberry
from strawberry.types import ExecutionResult

from schema.cost_policy import GATEWAY_COST_POLICY
from schema.execution.executor import CompiledExecutionContext
from schema.extensions.document_cache import CachedParsing, CachedValidation
from schema.prepared import PreparedOperations, attach

__all__ = ["AnswersDiffer", "Figures", "check_same", "main", "measure", "schemas"]

OBJECTS = 1_000
QUERY = "{ items { number name ratio } }"
#: The issue's target: the gateway's ops/s at least this many times graphql-core's.
TARGET = 10.0
SECONDS = 3.0
ROUNDS = 100_000
WARMUP = 5


@strawberry.type
class Item:
    number: int
    name: str
    ratio: float


def _items() -> list[Item]:
    return [Item(number=n, name=f"item {n}", ratio=n / 7) for n in range(OBJECTS)]


def schemas() -> tuple[strawberry.Schema, strawberry.Schema, PreparedOperations]:
    """The gateway's schema (compiled completion, its prepared operations attached, which it
    returns too) and graphql-core's, over one list of plain objects."""
    items = _items()

    @strawberry.type
    class Query:
        @strawberry.field
        def items(self) -> list[Item]:
            return items

    extensions = [CachedParsing, CachedValidation]
    gateway = strawberry.Schema(
        query=Query, extensions=extensions, execution_context_class=CompiledExecutionContext
    )
    prepared = PreparedOperations(GATEWAY_COST_POLICY)
    attach(gateway._schema, prepared)
    return gateway, strawberry.Schema(query=Query, extensions=extensions), prepared


class AnswersDiffer(Exception):
    """The gateway's completion answered otherwise than graphql-core's."""

    def __init__(self, gateway: ExecutionResult, graphql_core: ExecutionResult) -> None:
        super().__init__(
            "the two completions answer differently: "
            f"gateway {_summary(gateway)}, graphql-core {_summary(graphql_core)}"
        )


def _summary(result: ExecutionResult) -> str:
    return f"errors={result.errors!r} data={str(result.data)[:200]}"


def check_same(gateway: ExecutionResult, graphql_core: ExecutionResult) -> None:
    """Raise `AnswersDiffer` unless both answered the same data without errors."""
    if gateway.errors or graphql_core.errors or gateway.data != graphql_core.data:
        raise AnswersDiffer(gateway, graphql_core)


@dataclass(frozen=True)
class Figures:
    gateway_ops_per_s: float
    graphql_core_ops_per_s: float
    rounds: int

    @property
    def ratio(self) -> float:
        return self.gateway_ops_per_s / self.graphql_core_ops_per_s


def measure(rounds: int = ROUNDS, seconds: float = SECONDS) -> Figures:
    """Both completions checked equal, then timed in turns (at most `rounds` turns and
    about `seconds` of wall time)."""
    gateway, graphql_core, prepared = schemas()
    check_same(gateway.execute_sync(QUERY), graphql_core.execute_sync(QUERY))
    if prepared.completion.compiled < OBJECTS:
        raise RuntimeError("the gateway's completion did not compile the plain objects")
    for _ in range(WARMUP):
        gateway.execute_sync(QUERY)
        graphql_core.execute_sync(QUERY)
    spent = {"gateway": 0.0, "graphql-core": 0.0}
    turns = 0
    deadline = time.monotonic() + seconds
    while turns < rounds and time.monotonic() < deadline:
        for name, schema in (("gateway", gateway), ("graphql-core", graphql_core)):
            before = time.process_time()
            schema.execute_sync(QUERY)
            spent[name] += time.process_time() - before
        turns += 1
    return Figures(turns / spent["gateway"], turns / spent["graphql-core"], turns)


def main(argv: Sequence[str] | None = None) -> None:
    """`argv`: the options after `completion` (by default the command line's)."""
    parser = argparse.ArgumentParser(prog="python -m bench completion", description=__doc__)
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="at most this many turns")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="about this long")
    options = parser.parse_args(sys.argv[2:] if argv is None else argv)
    figures = measure(options.rounds, options.seconds)
    met = "met" if figures.ratio >= TARGET else "NOT met"
    print(
        f"completion of {OBJECTS:,} plain objects x 3 fields, {figures.rounds} turns "
        f"(ops/s by this process's CPU):\n"
        f"  gateway (compiled)  {figures.gateway_ops_per_s:10.1f} ops/s\n"
        f"  graphql-core        {figures.graphql_core_ops_per_s:10.1f} ops/s\n"
        f"  ratio               {figures.ratio:10.2f}x (target >= {TARGET:g}x: {met})"
    )
    if options.json:
        figures_json: dict[str, Any] = {
            "gateway_ops_per_s": round(figures.gateway_ops_per_s, 2),
            "graphql_core_ops_per_s": round(figures.graphql_core_ops_per_s, 2),
        }
        print(json.dumps(figures_json))
