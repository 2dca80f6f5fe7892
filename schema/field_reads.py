"""What each field of a type reads, declared on the field: the entities it reads
(`loaders.entities`), and the argument that multiplies its reads, if any.

    @strawberry.field(metadata=reads(SAVINGS_MONTH, times="months"))

The access plan prices a selection from these and the entities' read declarations: a field
that declares nothing is an error when its type's reads are derived (at import for the
product's User, at the first plan for any other type), never a read priced at 0.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from strawberry.schema.name_converter import NameConverter

from loaders.entity import Collection, Entity
from schema.plan_prices import KEYS_PER_BATCH, PlanCost

#: The key of a field's `metadata` that holds its `FieldRead`.
READS = "insight.reads"


class UndeclaredRead(TypeError):
    """A field whose reads are not declared: the access plan cannot price it."""

    def __init__(self, type_name: str, field: str) -> None:
        super().__init__(
            f"{type_name}.{field} declares no reads: give it metadata=reads(...) "
            "(reads() for a field that reads nothing)"
        )


@dataclass(frozen=True, slots=True)
class FieldRead:
    """The entities one selection of a field reads, `times` times (the value of that
    argument, `default_times` when the selection leaves it out)."""

    entities: tuple[Entity[Any], ...]
    times: str | None = None
    default_times: int = 1

    def cost(self, collection: Collection, times: int = 1) -> PlanCost:
        """What it reads of `collection`'s partition, field by field: read units, calls (a
        Query each, a point read its key's share of a BatchGetItem) and items."""
        one = PlanCost()
        for declared in self.entities:
            if declared.collection is collection:
                items = float(declared.read_items or 0)
                calls = 1.0 if declared.queried else 1 / KEYS_PER_BATCH
                one += PlanCost(declared.read_units or 0.0, calls, items, items)
        return one.times(times)


def reads(*entities: Entity[Any], times: str | None = None) -> dict[str, object]:
    """A field's `metadata`: it reads `entities`, `times` (an argument's name) times."""
    return {READS: FieldRead(entities, times)}


@functools.cache
def type_reads(origin: type) -> Mapping[str, FieldRead]:
    """The reads of each field of a strawberry type, by GraphQL name; remembered per type
    (types are few and live as long as the process)."""
    definition = origin.__strawberry_definition__  # type: ignore[attr-defined]
    names = NameConverter()
    found: dict[str, FieldRead] = {}
    for field in definition.fields:
        name = names.get_graphql_name(field)
        declared = (field.metadata or {}).get(READS)
        if not isinstance(declared, FieldRead):
            raise UndeclaredRead(definition.name, name)
        if declared.times is not None:
            argument = next(
                (a for a in field.arguments if names.from_argument(a) == declared.times), None
            )
            if argument is None or not isinstance(argument.default, int):
                raise TypeError(f"{definition.name}.{name}: no int argument {declared.times}")
            declared = FieldRead(declared.entities, declared.times, argument.default)
        found[name] = declared
    return found
