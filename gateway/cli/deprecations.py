"""The deprecated coordinates of a schema (fields, arguments, input fields and enum values
marked `@deprecated`) and who still reads each: those no client read are ready to remove.
Listed by `insight-gateway usage` and `insight-gateway schema check`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    build_ast_schema,
    parse,
)

from gateway.cli.field_readers import Reader, Usage, count_text
from schema.graphql_schema import graphql_schema
from schema.root import build_schema


@dataclass(frozen=True, slots=True)
class Deprecation:
    coordinate: str
    reason: str
    readers: list[Reader]

    def as_json(self) -> dict[str, object]:
        return {
            "coordinate": self.coordinate,
            "reason": self.reason,
            "ready_to_remove": not self.readers,
            "readers": [asdict(reader) for reader in self.readers],
        }


def load_schema(path: Path | None, *, federation: bool = False) -> GraphQLSchema:
    """The gateway's own schema (the subgraph's with `federation`), or an SDL file's."""
    if path is None:
        return graphql_schema(build_schema(federation=federation))
    # The SDL as printed (a subgraph's too): its directives need not all be defined here.
    return build_ast_schema(parse(path.read_text()), assume_valid_sdl=True)


def deprecations(schema: GraphQLSchema, usage: Usage) -> list[Deprecation]:
    """Every deprecated coordinate of `schema`, by name, with its readers in `usage`."""
    return [
        Deprecation(coordinate, reason, usage.of([coordinate]))
        for coordinate, reason in sorted(deprecated_coordinates(schema).items())
    ]


def print_deprecations(found: list[Deprecation]) -> None:
    for deprecation in found:
        print(f"{deprecation.coordinate}  (deprecated: {deprecation.reason})")
        if not deprecation.readers:
            print("    no reader seen")
        print_readers(deprecation.readers, indent="    ")


def print_readers(readers: list[Reader], indent: str) -> None:
    for reader in readers:
        version = f" {reader.version}" if reader.version else ""
        print(f"{indent}{reader.client}{version}: {count_text(reader.operations)} operations")


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
