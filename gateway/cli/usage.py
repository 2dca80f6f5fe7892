"""`insight-gateway usage`: which clients still read each deprecated schema coordinate.

It reads `gateway_field_usage_total` (gateway/observability/field_usage.py) from a gateway's
`/metrics` (one replica's counts since it started) or from a Prometheus query API (every
replica's, over a window), and lists every deprecated coordinate of the schema (fields,
arguments, input fields and enum values marked `@deprecated`) with the clients that read it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode, urlsplit
from urllib.request import urlopen

from graphql import (
    GraphQLEnumType,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    build_ast_schema,
    parse,
)
from prometheus_client.parser import text_string_to_metric_families

from gateway.observability.field_usage import METRIC
from gateway.settings import Settings
from schema.root import build_schema

TIMEOUT_SECONDS = 10.0
NOT_READ, STILL_READ, BAD_USAGE, UNREADABLE = 0, 1, 2, 3
EXIT_CODES = (
    "exit codes: 0 no deprecated coordinate is read (or the schema has none), 1 at least one "
    "deprecated coordinate is still read (the list says by whom), 2 bad usage or a schema file "
    "that does not parse, 3 the metrics source could not be read"
)


@dataclass(frozen=True, slots=True)
class Reader:
    client: str
    version: str
    operations: float


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
        help="a gateway's /metrics (http://host:8000/metrics), or a Prometheus query API "
        "(http://prometheus:9090/api/v1/query), which sums every replica's counts",
    )
    usage.add_argument(
        "--window",
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
        schema = _schema(args.schema, federation=args.federation)
    except (OSError, GraphQLError) as error:
        print(f"insight-gateway usage: cannot read the schema: {error}", file=sys.stderr)
        return BAD_USAGE
    try:
        readers = read_usage(args.source, window=args.window)
    except UsageSourceError as error:
        print(f"insight-gateway usage: {error}", file=sys.stderr)
        return UNREADABLE
    deprecated = deprecated_coordinates(schema)
    if not deprecated:
        print("The schema has no deprecated coordinate.")
        return NOT_READ
    still_read = False
    for coordinate, reason in sorted(deprecated.items()):
        found = sorted(
            readers.get(coordinate, []), key=lambda r: (-r.operations, r.client, r.version)
        )
        print(f"{coordinate}  (deprecated: {reason})")
        if not found:
            print("    no reader seen")
        for reader in found:
            version = f" {reader.version}" if reader.version else ""
            print(f"    {reader.client}{version}: {reader.operations:g} operations")
        still_read = still_read or bool(found)
    return STILL_READ if still_read else NOT_READ


def _schema(path: Path | None, *, federation: bool) -> GraphQLSchema:
    if path is None:
        return build_schema(federation=federation)._schema
    # The SDL as printed (a subgraph's too): its directives need not all be defined here.
    return build_ast_schema(parse(path.read_text()), assume_valid_sdl=True)


def deprecated_coordinates(schema: GraphQLSchema) -> dict[str, str]:
    """Every deprecated coordinate of `schema` with its reason."""
    found: dict[str, str] = {}
    for type_name, named in schema.type_map.items():
        if type_name.startswith("__"):
            continue
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                if field.deprecation_reason is not None:
                    found[f"{type_name}.{field_name}"] = field.deprecation_reason
                for arg_name, arg in field.args.items():
                    if arg.deprecation_reason is not None:
                        found[f"{type_name}.{field_name}({arg_name}:)"] = arg.deprecation_reason
        elif isinstance(named, GraphQLInputObjectType):
            for field_name, input_field in named.fields.items():
                if input_field.deprecation_reason is not None:
                    found[f"{type_name}.{field_name}"] = input_field.deprecation_reason
        elif isinstance(named, GraphQLEnumType):
            for value_name, value in named.values.items():
                if value.deprecation_reason is not None:
                    found[f"{type_name}.{value_name}"] = value.deprecation_reason
    return found


class UsageSourceError(Exception):
    """The metrics source did not answer, or not with field usage."""


def read_usage(source: str, *, window: str | None = None) -> dict[str, list[Reader]]:
    """Readers per coordinate, from a /metrics URL or a Prometheus query API URL."""
    if urlsplit(source).path.rstrip("/").endswith("/api/v1/query"):
        return _from_prometheus(source, window)
    if window is not None:
        raise UsageSourceError("--window needs a Prometheus query API URL (…/api/v1/query)")
    return _from_metrics(_get(source, {}))


def _get(url: str, params: dict[str, str]) -> str:
    """The body of a GET (the standard library's client: the image has no other)."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise UsageSourceError(f"{url} is not an http(s) URL")
    full = f"{url}?{urlencode(params)}" if params else url
    try:
        with urlopen(full, timeout=TIMEOUT_SECONDS) as response:
            body: bytes = response.read()
    except HTTPError as error:
        raise UsageSourceError(f"{url} answered HTTP {error.code}{_reason(error)}") from error
    except (URLError, OSError) as error:
        raise UsageSourceError(f"{url} did not answer: {error}") from error
    return body.decode("utf-8", errors="replace")


def _reason(error: HTTPError) -> str:
    """Prometheus' own reason for refusing a query (`{"error": ...}`), if it gave one."""
    try:
        answer = json.loads(error.read())
    except (ValueError, OSError):
        return ""
    return f": {answer['error']}" if isinstance(answer, dict) and "error" in answer else ""


def _from_metrics(text: str) -> dict[str, list[Reader]]:
    readers: dict[str, list[Reader]] = defaultdict(list)
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as error:
        raise UsageSourceError(f"the answer is not Prometheus' text format: {error}") from error
    for family in families:
        if family.name != METRIC:
            continue
        for sample in family.samples:
            if sample.name == f"{METRIC}_total" and sample.value > 0:
                labels = sample.labels
                readers[labels["coordinate"]].append(
                    Reader(labels["client"], labels.get("client_version", ""), sample.value)
                )
    return dict(readers)


def _from_prometheus(url: str, window: str | None) -> dict[str, list[Reader]]:
    series = f"{METRIC}_total"
    if window is not None:
        series = f"increase({series}[{window}])"
    query = f"sum by (coordinate, client, client_version) ({series})"
    try:
        answer = json.loads(_get(url, {"query": query}))
        results = answer["data"]["result"] if answer.get("status") == "success" else None
    except (ValueError, KeyError, TypeError) as error:
        raise UsageSourceError(f"{url} did not answer as a Prometheus query API") from error
    if results is None:
        raise UsageSourceError(f"{url} refused the query: {answer.get('error', answer)}")
    readers: dict[str, list[Reader]] = defaultdict(list)
    for result in results:
        labels, (_, value) = result["metric"], result["value"]
        if float(value) > 0:
            readers[labels["coordinate"]].append(
                Reader(labels["client"], labels.get("client_version", ""), float(value))
            )
    return dict(readers)
