"""`insight-gateway schema check`: the schema's changes since its newest release, each checked
against what clients actually read.

The working schema (the gateway's own, or `--schema FILE`) is compared with the newest
released one (`schema/released/`, or `--against FILE`) by graphql-core's
`find_schema_changes`. For every breaking or dangerous change, field usage says which clients
read the coordinates it touches in the window: from a Prometheus (`--prometheus URL`, every
replica's `gateway_field_usage_total`, by increase() over `--window`) or from a saved
`/metrics` text (`--metrics FILE`, one replica's totals). A change is

  broken      breaking, and read in the window (its readers are listed)
  unaffected  breaking, and read by no client in the window
  safe        not breaking (a dangerous one lists its readers too)

A broken change fails the check unless it is allowed by name (`--allow COORDINATE`) or was
read by less than `--threshold` percent of the window's operations (Hive's rule). The
schema's `@deprecated` coordinates are listed too: ready to remove when nobody read them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema

from gateway.cli.deprecations import Deprecation, deprecations, load_schema, print_readers
from gateway.cli.field_readers import (
    Reader,
    Usage,
    UsageSourceError,
    count_text,
    from_metrics_text,
    from_prometheus,
    metrics_text,
    query_api,
    window_argument,
)
from gateway.cli.schema_changes import Change, newest_release, schema_changes
from gateway.settings import Settings

PASSED, BROKEN, BAD_USAGE, UNREADABLE = 0, 1, 2, 3
DEFAULT_WINDOW = "30d"
EXIT_CODES = (
    "exit codes: 0 no change is broken (or every broken one is allowed), 1 a breaking change "
    "is still read (the list says by whom), 2 bad usage or a schema that does not parse, 3 the "
    "usage source could not be read"
)
_ORDER = {"broken": 0, "unaffected": 1, "safe": 2}
_DESCRIPTION_ONLY = "DESCRIPTION_CHANGED"


@dataclass(frozen=True, slots=True)
class Checked:
    change: Change
    verdict: str  # broken, unaffected or safe
    readers: list[Reader]
    share: float | None  # of the window's operations, when they are known
    allowed: str | None  # why a broken change passes: "--allow" or "--threshold"

    def as_json(self) -> dict[str, object]:
        return {
            "coordinate": self.change.coordinate,
            "change": self.change.name,
            "kind": self.change.kind,
            "description": self.change.description,
            "class": self.verdict,
            "allowed": self.allowed,
            "operations": sum(reader.operations for reader in self.readers),
            "share": self.share,
            "readers": [asdict(reader) for reader in self.readers],
        }


def add_check_command(schema_commands: Any) -> None:
    check = schema_commands.add_parser(
        "check",
        help="check the schema's changes since its release against the clients' field usage",
        description=__doc__,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "--schema",
        type=Path,
        metavar="FILE",
        help="the working schema, an SDL file (default: the gateway's own, as schema.graphql)",
    )
    check.add_argument(
        "--against",
        type=Path,
        metavar="FILE",
        help="the released schema to compare with (default: the newest in schema/released/)",
    )
    source = check.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--prometheus",
        metavar="URL",
        help="a Prometheus (http://prometheus:9090, or its /api/v1/query) that scrapes every "
        "replica: the usage over --window",
    )
    source.add_argument(
        "--metrics",
        metavar="FILE",
        help="a gateway's /metrics text, saved to a file (or its URL): one replica's totals "
        "since it started",
    )
    check.add_argument(
        "--window",
        type=window_argument,
        metavar="RANGE",
        help=f"with --prometheus: the range counted, by increase() (default {DEFAULT_WINDOW})",
    )
    check.add_argument(
        "--threshold",
        type=_percent,
        default=0.0,
        metavar="PERCENT",
        help="a broken change read by fewer than this percent of the window's operations "
        "passes (default 0: any reader fails the check)",
    )
    check.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="COORDINATE",
        help="let a broken change of this coordinate pass (User.alert); repeatable",
    )
    check.add_argument("--json", action="store_true", help="write the report as one JSON document")
    check.set_defaults(run=run_check)


def _percent(text: str) -> float:
    try:
        value = float(text.removesuffix("%"))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage from 0 to 100")
    return value


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    def fail(code: int, message: str) -> int:
        print(f"insight-gateway schema check: {message}", file=sys.stderr)
        return code

    if args.federation:
        return fail(BAD_USAGE, "--federation only prints; check the plain schema")
    if args.metrics is not None and args.window is not None:
        return fail(BAD_USAGE, "--window needs --prometheus: a /metrics text holds totals")
    try:
        against = args.against or newest_release().path
        old = load_schema(against)
        new = load_schema(args.schema)
    except (OSError, GraphQLError, TypeError) as error:
        return fail(BAD_USAGE, f"cannot read a schema: {error}")
    window = (args.window or DEFAULT_WINDOW) if args.prometheus else None
    try:
        if args.prometheus:
            usage = from_prometheus(query_api(args.prometheus), window)
        else:
            usage = from_metrics_text(metrics_text(args.metrics))
    except UsageSourceError as error:
        return fail(UNREADABLE, str(error))
    if args.threshold and not usage.operations:
        return fail(
            UNREADABLE,
            "--threshold needs the operations served, and the source "
            "has no gateway_graphql_operations_total (or counts none)",
        )
    checked = check(old, new, usage, threshold=args.threshold, allow=set(args.allow))
    failing = [c.change.coordinate for c in checked if c.verdict == "broken" and not c.allowed]
    for name in sorted(set(args.allow) - {c.change.coordinate for c in checked}):
        print(
            f"insight-gateway schema check: warning: --allow {name} names no change",
            file=sys.stderr,
        )
    code = BROKEN if failing else PASSED
    found = deprecations(new, usage)
    if args.json:
        document = {
            "schema": str(args.schema) if args.schema else "built",
            "against": str(against),
            "usage": {
                "source": args.prometheus or args.metrics,
                "window": window,
                "operations": usage.operations,
            },
            "threshold": args.threshold,
            "changes": [c.as_json() for c in checked],
            "deprecated": [d.as_json() for d in found],
            "broken": failing,
            "exit": code,
        }
        print(json.dumps(document, indent=2))
    else:
        print(f"{args.schema or 'The built schema'} against {against}")
        span = f"over {window}" if window else "totals"
        served = f", {count_text(usage.operations)} operations" if usage.operations else ""
        print(f"usage: {args.prometheus or args.metrics} ({span}{served})\n")
        print_report(checked, found)
        verdict = f"failed: broken, not allowed: {', '.join(failing)}" if failing else "passed"
        print(f"\n{verdict}")
    return code


def check(
    old: GraphQLSchema,
    new: GraphQLSchema,
    usage: Usage,
    *,
    threshold: float = 0.0,
    allow: set[str] | frozenset[str] = frozenset(),
) -> list[Checked]:
    """Every change from `old` to `new`, classed by `usage`: broken ones first."""
    checked = []
    for change in schema_changes(old, new):
        readers = usage.of(change.touches)
        read = sum(reader.operations for reader in readers)
        share = read / usage.operations if usage.operations else None
        verdict = "safe"
        allowed = None
        if change.kind == "breaking":
            verdict = "broken" if readers else "unaffected"
        if verdict == "broken":
            if change.coordinate in allow:
                allowed = "--allow"
            elif share is not None and share * 100 < threshold:
                allowed = "--threshold"
        checked.append(Checked(change, verdict, readers, share, allowed))
    return sorted(checked, key=lambda c: _ORDER[c.verdict])


def print_report(checked: list[Checked], found: list[Deprecation]) -> None:
    described = 0
    for item in checked:
        if item.change.name == _DESCRIPTION_ONLY:
            described += 1
            continue
        why = f"  (allowed by {item.allowed})" if item.allowed else ""
        print(f"{item.verdict:<11} {item.change.coordinate}  {item.change.description}{why}")
        if item.readers and item.share is not None:
            print(f"            read by {item.share:.2%} of the operations")
        print_readers(item.readers, indent="              ")
    if described:
        print(f"{'safe':<11} {described} descriptions changed")
    if not checked:
        print("no change")
    if found:
        print("")
    for deprecation in found:
        status = "still read" if deprecation.readers else "ready to remove"
        reason = deprecation.reason
        print(f"deprecated  {deprecation.coordinate}  ({reason}): {status}")
        print_readers(deprecation.readers, indent="              ")
