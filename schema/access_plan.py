"""The access plan: per request, from the selection, how a user's rows are read.

Most User fields live in the user's `USERS#<id>` partition of site-pave. Read field by
field, that costs a Query per sort-key prefix (recurring, rituals, scores, last pages)
plus BatchGetItem keys for the points (verification, savings months, alert, income).
Read as a single-table collection, it costs one Query of the whole partition, whose
items answer all of them.

The collection saves a Query per extra prefix and every point key of the partition, at
the price of reading its other rows too (older mines' expenses, a year of months, every
score): read capacity and bytes that prefix Queries would not read. With two or more of
the partition's prefix Queries in the selection it sends fewer calls for about the same
capacity; with one, or with only point reads (which batch across users by 100), the
prefix plan is cheaper. `make bench` measures both plans side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from strawberry.types.nodes import SelectedField, Selection

from gateway.context import Info

#: User fields read by a Query of a prefix of the user's partition.
PARTITION_QUERY_FIELDS = frozenset(
    {"recurringExpenses", "rituals", "cashAdvanceScores", "lastPages"}
)
#: User fields read by point reads of the user's partition.
PARTITION_POINT_FIELDS = frozenset({"incomeVerification", "savingsMonths", "alert", "income"})
#: User fields that read other partitions or tables (or nothing).
OTHER_FIELDS = frozenset(
    {"id", "payday", "incomeDetectionRuns", "latestMine", "paveLabel", "lowBalanceAlert"}
)

#: From this many prefix Queries of the partition on, one Query of it all is cheaper.
MIN_PREFIX_QUERIES_FOR_COLLECTION = 2


def user_field_names(selections: Iterable[Selection]) -> Iterator[str]:
    """The names of the fields selected on a User, through fragments (an aliased field
    counts once per alias: each alias with its own arguments is its own read)."""
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection.name
        else:
            yield from user_field_names(selection.selections)


def reads_partition_whole(field_names: Iterable[str]) -> bool:
    prefix_queries = sum(1 for name in field_names if name in PARTITION_QUERY_FIELDS)
    return prefix_queries >= MIN_PREFIX_QUERIES_FOR_COLLECTION


def plan_user_reads(info: Info, user_ids: Iterable[str]) -> None:
    """Prime the request's loaders for the users the current root field returns: when the
    selection makes the collection cheaper, each user's partition is read whole."""
    names = [name for field in info.selected_fields for name in user_field_names(field.selections)]
    if reads_partition_whole(names):
        for user_id in dict.fromkeys(user_ids):
            info.context.reads.collect_user_partition(user_id)
