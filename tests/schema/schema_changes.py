"""What changed in the schema since its last release, and whether CHANGELOG.md says so.

The released schemas are kept as they were released, `schema/released/<version>.graphql`;
the built schema is compared with the newest one by graphql-core's `find_breaking_changes`
and `find_dangerous_changes`, and each change is named by its schema coordinate
(`User.recurringExpenses`, `User.savingsMonths(months:)`, `BalanceAlertDecision.SENT`).

This check says whether a removal is allowed (deprecated in a release before); it cannot say
whether a client still reads what is removed. The gateway counts that per coordinate and
client (`gateway_field_usage_total`): `insight-gateway schema check --prometheus URL` joins
the same changes, named by the same coordinates (gateway/cli/schema_changes.py), with who
read each in a window, and exits 1 while a breaking one is still read (docs/field-usage.md).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

from graphql import (
    BreakingChange,
    BreakingChangeType,
    DangerousChange,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
)

from gateway.cli.schema_changes import Version, coordinate, parse_version

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = ROOT / "CHANGELOG.md"

_VERSION_HEADING = re.compile(r"^## (\d+(?:\.\d+)*)(?: \(\d{4}-\d{2}-\d{2}\))?\s*$", re.MULTILINE)


def format_version(version: Version) -> str:
    return ".".join(map(str, version))


def project_version() -> Version:
    """pyproject.toml's version: the schema's version."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        return parse_version(tomllib.load(file)["project"]["version"])


def version_section(changelog: str, version: Version) -> str | None:
    """The text under `## <version>` (up to the next version's heading), or None."""
    headings = list(_VERSION_HEADING.finditer(changelog))
    for n, heading in enumerate(headings):
        if parse_version(heading.group(1)) == version:
            end = headings[n + 1].start() if n + 1 < len(headings) else len(changelog)
            return changelog[heading.end() : end]
    return None


def subsection(section: str, title: str) -> str:
    """The text under `### <title>` of a version's section, up to the next `###`."""
    match = re.search(rf"^### {re.escape(title)}\s*$(.*?)(?=^### |\Z)", section, re.M | re.S)
    return match.group(1) if match else ""


def mentions(text: str, place: str) -> bool:
    """`place` is named in `text`, as a whole coordinate (`User.alert` is not `User.alerts`)."""
    return re.search(rf"(?<![\w.@]){re.escape(place)}(?![\w(])", text) is not None


def unrecorded(
    changes: Iterable[BreakingChange | DangerousChange],
    text: str,
    schemas: tuple[GraphQLSchema, GraphQLSchema],
) -> list[str]:
    """The changes whose coordinate `text` does not name, as `coordinate: description`."""
    missing = []
    for change in changes:
        place = coordinate(change, schemas)
        if not mentions(text, place):
            missing.append(f"{place}: {change.description}")
    return missing


def removed_without_deprecation(
    changes: Iterable[BreakingChange], old: GraphQLSchema, new: GraphQLSchema
) -> list[str]:
    """Fields, input fields, arguments and enum values removed without first having been
    deprecated (`@deprecated(reason:)`) in the released schema."""
    removals = {
        BreakingChangeType.FIELD_REMOVED,
        BreakingChangeType.ARG_REMOVED,
        BreakingChangeType.VALUE_REMOVED_FROM_ENUM,
    }
    return [
        change.description
        for change in changes
        if change.type in removals and _deprecation(old, coordinate(change, (old, new))) is None
    ]


def _deprecation(schema: GraphQLSchema, place: str) -> str | None:
    match = re.fullmatch(r"(\w+)\.(\w+)(?:\((\w+):\))?", place)
    if match is None:
        return None
    type_name, member, argument = match.groups()
    named = schema.get_type(type_name)
    if isinstance(named, GraphQLEnumType):
        value = named.values.get(member)
        return value.deprecation_reason if value else None
    if not isinstance(named, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
        return None
    field: GraphQLField | GraphQLInputField | None = named.fields.get(member)
    if field is None:
        return None
    if argument is None:
        return field.deprecation_reason
    if isinstance(field, GraphQLInputField):
        return None
    arg = field.args.get(argument)
    return arg.deprecation_reason if arg else None
