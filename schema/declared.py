"""GraphQL types derived from a declared row (`loaders.record`): the output type, whose
fields are its attributes (the row itself is the source object: strawberry reads each field
from it), and a mutation's input type, whose fields are the attributes a writer takes.

    @output(IncomeVerificationRow, description="...")
    class IncomeVerification:
        pass  # hand-written fields (rules that are not attributes) go here

An attribute's GraphQL name is the camelCase of its name; its type follows from the row's
annotation (`str` String, `int` Int, `Decimal` Decimal, `date` Date, `datetime` DateTime, a
tuple a list, a nested record its own derived type, given in `nested`).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import strawberry

from loaders.attributes import Input
from loaders.record import Field, Record

__all__ = ["input_of", "input_values", "output"]

T = TypeVar("T")


def _graphql_type(
    field: Field, nested: Mapping[type, Any], *, optional: bool, identifier: bool = False
) -> Any:
    kind: Any = nested[field.kind] if field.nested is not None else field.kind
    if identifier and not field.many:
        kind = strawberry.ID
    if field.many:
        kind = list[kind]
    return kind | None if optional else kind


def _records(types: Sequence[type]) -> dict[type, Any]:
    return {getattr(declared, "__record__"): declared for declared in types}  # noqa: B009


def _build(
    cls: type[T],
    record: type[Record],
    fields: Sequence[tuple[Field, Any, Any]],
    make: Callable[[type[T]], type[T]],
) -> type[T]:
    # The derived fields first, then the class's own (hand-written) ones.
    annotations: dict[str, Any] = {}
    for field, annotation, declared in fields:
        annotations[field.name] = annotation
        setattr(cls, field.name, declared)
    annotations.update(inspect.get_annotations(cls))
    cls.__annotations__ = annotations
    made = make(cls)
    made.__record__ = record  # type: ignore[attr-defined]
    return made


def output(
    record: type[Record], *, description: str, nested: Sequence[type] = ()
) -> Callable[[type[T]], type[T]]:
    """The class as the strawberry type of `record`'s attributes that have a description."""
    types = _records(nested)

    def decorate(cls: type[T]) -> type[T]:
        fields = [
            (
                field,
                _graphql_type(field, types, optional=field.optional),
                strawberry.field(description=field.declared.description, name=field.declared.name),
            )
            for field in record.declared_fields()
            if field.declared.description is not None
        ]
        return _build(cls, record, fields, lambda c: strawberry.type(c, description=description))

    return decorate


def input_of(
    record: type[Record], *, description: str, nested: Sequence[type] = ()
) -> Callable[[type[T]], type[T]]:
    """The class as the strawberry input of `record`'s attributes a writer takes: the
    required ones first, then those with a default; in each, the key's values, then those
    declared `first`, then the others, each in declared order."""
    types = _records(nested)

    def decorate(cls: type[T]) -> type[T]:
        given = [(f, d) for f in record.declared_fields() if (d := f.declared.input) is not None]
        given.sort(key=lambda fd: (not fd[1].required, not fd[0].declared.key, not fd[1].first))
        fields = [_input_field(field, declared, types) for field, declared in given]
        return _build(cls, record, fields, lambda c: strawberry.input(c, description=description))

    return decorate


def _input_field(
    field: Field, declared: Input, types: Mapping[type, Any]
) -> tuple[Field, Any, Any]:
    optional, identifier = declared.default is None, declared.identifier
    annotation = _graphql_type(field, types, optional=optional, identifier=identifier)
    if declared.required:
        made = strawberry.field(description=declared.description)
    elif field.many and declared.default == ():
        made = strawberry.field(description=declared.description, default_factory=list)
    else:
        made = strawberry.field(description=declared.description, default=declared.default)
    return field, annotation, made


def input_values(given: object) -> dict[str, Any]:
    """A strawberry input's values by field name, nested inputs as dicts (what
    `Record.written` checks)."""
    return dataclasses.asdict(given)  # type: ignore[call-overload,no-any-return]
