"""`insight-gateway usage`: which clients still read each deprecated schema coordinate.

It reads `gateway_field_usage_total` (gateway/observability/field_usage.py) from a gateway's
`/metrics` (one replica's counts since it started, or a saved copy of them) or from a
Prometheus query API (every replica's, over a window), and lists every deprecated coordinate
of the schema (fields, arguments, input fields and enum values marked `@deprecated`) with the
clients that read it. `insight-gateway schema check` lists the same beside a schema's changes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from graphql import GraphQLError

from gateway.cli.deprecations import deprecations, load_schema, print_deprecations
from gateway.cli.field_readers import UsageSourceError, read_usage, window_argument
from gateway.settings import Settings

NOT_READ, STILL_READ, BAD_USAGE, UNREADABLE = 0, 1, 2, 3
EXIT_CODES = (
    "exit codes: 0 no deprecated coordinate is read (or the schema has none), 1 at least one "
    "deprecated coordinate is still read (the list says by whom), 2 bad usage or a schema file "
    "that does not parse, 3 the metrics source could not be read"
)


def add_usage_command(commands: Any) -> None:
    usage = commands.add_parser(
        "usage",
        help="list the deprecated schema coordinates and the clients still reading them",
        description=__doc__,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    usage.add_argument(
        "source",
        metavar="URL",
        help="a gateway's /metrics (http://host:8000/metrics) or a saved copy (a file), or a "
        "Prometheus query API (http://prometheus:9090/api/v1/query), which sums every "
        "replica's counts",
    )
    usage.add_argument(
        "--window",
        type=window_argument,
        default=None,
        metavar="RANGE",
        help="with a Prometheus URL: count only this range (e.g. 30d), by increase(); "
        "default: the counters' totals",
    )
    which = usage.add_mutually_exclusive_group()
    which.add_argument(
        "--schema",
        type=Path,
        metavar="FILE",
        help="read the deprecations from this SDL file (default: the gateway's own schema)",
    )
    which.add_argument(
        "--federation",
        action="store_true",
        help="read them from the federation subgraph's schema (INSIGHT_FEDERATION)",
    )
    usage.set_defaults(run=run_usage)


def run_usage(args: argparse.Namespace, settings: Settings) -> int:
    try:
        schema = load_schema(args.schema, federation=args.federation)
    except (OSError, GraphQLError) as error:
        print(f"insight-gateway usage: cannot read the schema: {error}", file=sys.stderr)
        return BAD_USAGE
    try:
        usage = read_usage(args.source, window=args.window)
    except UsageSourceError as error:
        print(f"insight-gateway usage: {error}", file=sys.stderr)
        return UNREADABLE
    found = deprecations(schema, usage)
    if not found:
        print("The schema has no deprecated coordinate.")
        return NOT_READ
    print_deprecations(found)
    return STILL_READ if any(d.readers for d in found) else NOT_READ
