"""The access plan: per request, from the selection, how a user's rows are read.

Most User fields live in the user's `USERS#<id>` partition of site-pave. Read field by
field, that costs a Query per sort-key prefix (recurring, rituals, scores, last pages)
plus BatchGetItem keys for the points (verification, savings months, alert, income).
Read as a single-table collection, it costs one Query of the whole partition, whose
items answer all of them, but reads the partition's other rows too (older mines'
expenses, a year of months, every score).

The choice follows what each plan costs one user, in dollars (`schema.plan_prices`): its
read units at the read unit's price, plus the gateway's CPU for its calls and items at the
vCPU's price. Both come from the entities' declarations (`read_units`, `read_items`,
`queried`; the collection's `read_units` and `items`), as `make bench` measured them on its
realistic users: the whole partition 3.5 units and 112 items in one Query; the recurring
prefix 2.0 units and 48 items (two mines' rows); rituals 0.5 and 16, scores 0.5 and 10
(the default limit), last pages 0.5 and 3; each point read 0.5 and one item, a hundredth of
a BatchGetItem. The collection is chosen when its price is lower. At today's prices
(docs/performance.md, "The access plan's prices") a read unit costs as much as ~11 ms of
CPU, so the units decide: a full User (6.5 units against 3.5; in CPU about even, 4 Queries
against 1 but 29 items fewer) and the frontend's selection (4.0 against 3.5, for ~1.2 ms
more CPU) read the partition whole; `recurringExpenses` with two points (3.0) or with
scores (2.5) does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
)
from strawberry.schema.base import BaseSchema
from strawberry.types.nodes import SelectedField, Selection

from loaders.entities import USERS
from loaders.user_reads import UserReads
from schema.context import Info
from schema.field_reads import FieldRead, UndeclaredRead, type_reads
from schema.graphql_schema import graphql_schema
from schema.plan_prices import PRICES, PlanCost, Prices
from schema.prepared import owner_of
from schema.user import User

#: Read capacity of the whole USERS#<id> partition, per user (see above): the collection's
#: declaration. Each field's share under the prefix plan comes from its `reads` and the
#: entities' `read_units` (`schema.field_reads`).
COLLECTION_UNITS = USERS.read_units
#: The items a Query of the whole partition returns, per user: the collection's declaration.
COLLECTION_ITEMS = USERS.items
#: What each User field reads, derived at import: a field without reads is an error here.
USER_READS = type_reads(User)
#: The arguments that multiply a field's reads (`months`).
_TIMES_ARGUMENTS = frozenset(read.times for read in USER_READS.values() if read.times is not None)


#: A field selected on a User: its name, and the argument that multiplies its reads
#: (`months`) as written (a node), as given (its value), or None.
UserField: TypeAlias = tuple[str, object]


def user_fields(
    selection_set: SelectionSetNode | None,
    fragments: Mapping[str, FragmentDefinitionNode],
) -> Iterator[UserField]:
    """The fields selected on a User, through fragments (an aliased field counts once per
    alias: each alias with its own arguments is its own read). Like strawberry's
    `selected_fields`, @skip and @include are not evaluated: a skipped field may make the
    collection chosen, never a read missed. Validation has already refused fragment cycles."""
    for selection in selection_set.selections if selection_set else ():
        if isinstance(selection, FieldNode):
            months = next(
                (a.value for a in selection.arguments or () if a.name.value in _TIMES_ARGUMENTS),
                None,
            )
            yield selection.name.value, months
        elif isinstance(selection, InlineFragmentNode):
            yield from user_fields(selection.selection_set, fragments)
        elif isinstance(selection, FragmentSpreadNode):
            fragment = fragments.get(selection.name.value)
            if fragment is not None:
                yield from user_fields(fragment.selection_set, fragments)


def selected_user_fields(selections: Iterable[Selection]) -> Iterator[UserField]:
    """`user_fields` of strawberry's `selected_fields` under a root field (its arguments
    already given their values, variables included)."""
    for selection in selections:
        if isinstance(selection, SelectedField):
            months = next(
                (v for name, v in selection.arguments.items() if name in _TIMES_ARGUMENTS), None
            )
            yield selection.name, months
        else:
            yield from selected_user_fields(selection.selections)


def prefix_plan_cost(
    fields: Iterable[UserField],
    variables: Mapping[str, Any],
    reads: Mapping[str, FieldRead] = USER_READS,
) -> PlanCost:
    """What the selection's partition fields cost one user read field by field: read units,
    calls and items. Raises `UndeclaredRead` for a field `reads` does not know (meta fields
    read nothing)."""
    cost = PlanCost()
    for name, times in fields:
        read = reads.get(name)
        if read is None:
            if name.startswith("__"):
                continue
            raise UndeclaredRead("User", name)
        count = _times(_argument_value(times, variables), read.default_times) if read.times else 1
        cost += read.cost(USERS, count)
    return cost


def collection_cost(picked: PlanCost) -> PlanCost:
    """What reading the partition whole costs one user whose reads pick `picked`'s items:
    one Query of every item, of which only the picked are decoded."""
    return PlanCost(
        units=COLLECTION_UNITS,
        calls=1.0,
        items_read=COLLECTION_ITEMS,
        items_decoded=min(picked.items_decoded, COLLECTION_ITEMS),
    )


def _argument_value(given: object, variables: Mapping[str, Any]) -> object:
    """The argument as written (a node: a literal, or a variable's value), or as given."""
    if isinstance(given, VariableNode):
        return variables.get(given.name.value)
    if isinstance(given, ValueNode):
        return getattr(given, "value", None)
    return given


def _times(argument: object, default: int) -> int:
    # A literal comes as its text ("12"), a variable as its value; a bad one is refused by
    # the field itself, so the plan only needs a fair guess.
    if argument is None:
        return default
    try:
        return int(str(argument))
    except ValueError:
        return default


def reads_partition_whole(
    fields: Iterable[UserField],
    variables: Mapping[str, Any],
    reads: Mapping[str, FieldRead] = USER_READS,
    *,
    prices: Prices = PRICES,
) -> bool:
    """Whether the collection's price is lower than the prefix plan's for this selection
    (never when it reads nothing of the partition)."""
    prefix = prefix_plan_cost(fields, variables, reads)
    if prefix.items_read <= 0 and prefix.units <= 0:
        return False
    return prices.dollars(collection_cost(prefix)) < prices.dollars(prefix)


def plan_user_reads(info: Info, user_ids: Iterable[str]) -> None:
    """Prime the request's loaders for the users the current root field returns: when the
    selection makes the collection cheaper at the schema's prices, each user's partition is
    read whole. (An operation's compiled form plans its root fields itself, before any
    resolver: schema/execution/operation.py.)"""
    schema = info.schema
    owner = owner_of(graphql_schema(schema))
    plan_partitions(
        tuple(
            field
            for root in info.selected_fields
            for field in selected_user_fields(root.selections)
        ),
        info.variable_values,
        info.context.reads,
        user_ids,
        reads=_reads_of(schema),
        prices=PRICES if owner is None else owner.prices,
    )


def plan_partitions(
    fields: Iterable[UserField],
    variables: Mapping[str, Any],
    user_reads: UserReads,
    user_ids: Iterable[str],
    *,
    reads: Mapping[str, FieldRead] = USER_READS,
    prices: Prices = PRICES,
) -> None:
    """Read each user's partition whole when `fields` (a root field's User selection) make
    the collection cheaper at `prices`."""
    if reads_partition_whole(fields, variables, reads, prices=prices):
        collect_partitions(user_reads, user_ids)


def collect_partitions(user_reads: UserReads, user_ids: Iterable[str]) -> None:
    """Each user's partition read whole."""
    for user_id in dict.fromkeys(user_ids):
        user_reads.collect_user_partition(user_id)


def _reads_of(schema: BaseSchema) -> Mapping[str, FieldRead]:
    """The reads of the schema's User type (the product's, or a test's own)."""
    return reads_of(getattr(schema.get_type_by_name("User"), "origin", User))


def reads_of(user_class: object) -> Mapping[str, FieldRead]:
    """The reads of a User class's fields (raises `UndeclaredRead` for one that declares
    none)."""
    if user_class is User or not isinstance(user_class, type):
        return USER_READS
    return type_reads(user_class)
