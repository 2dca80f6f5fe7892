"""The access plan: per request, from the selection, how a user's rows are read.

Most User fields live in the user's `USERS#<id>` partition of site-pave. Read field by
field, that costs a Query per sort-key prefix (recurring, rituals, scores, last pages)
plus BatchGetItem keys for the points (verification, savings months, alert, income).
Read as a single-table collection, it costs one Query of the whole partition, whose
items answer all of them, but reads the partition's other rows too (older mines'
expenses, a year of months, every score).

The choice follows the read capacity each plan consumes, as `make bench` measured it on
its realistic users (dynalite's ReturnConsumedCapacity, eventually consistent units per
user): the whole partition 3.5; the recurring prefix 2.0 (two mines' rows); rituals,
scores and last pages 0.5 each; each point read 0.5. The collection is chosen when the
prefix plan would consume more: a full User (6.5 against 3.5, and 4 calls against 7, the
least CPU too), not `recurringExpenses` with two points (3.0) nor with scores (2.5),
where the bench measured the prefix plan cheaper in capacity and CPU alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from strawberry.types.nodes import SelectedField, Selection

from gateway.context import Info

#: Read capacity of the whole USERS#<id> partition, per user (see above).
COLLECTION_UNITS = 3.5
#: What each User field of that partition reads under the prefix plan, per user.
PREFIX_UNITS = {
    "recurringExpenses": 2.0,
    "rituals": 0.5,
    "cashAdvanceScores": 0.5,
    "lastPages": 0.5,
    "incomeVerification": 0.5,
    "alert": 0.5,
    "income": 0.5,
}
#: savingsMonths: one point read per month of its window.
MONTH_UNITS = 0.5
DEFAULT_MONTHS = 3

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


def user_fields(selections: Iterable[Selection]) -> Iterator[SelectedField]:
    """The fields selected on a User, through fragments (an aliased field counts once per
    alias: each alias with its own arguments is its own read)."""
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection
        else:
            yield from user_fields(selection.selections)


def prefix_plan_units(fields: Iterable[SelectedField]) -> float:
    """The read capacity the selection's partition fields cost one user, field by field."""
    units = 0.0
    for field in fields:
        if field.name == "savingsMonths":
            units += MONTH_UNITS * _months(field.arguments.get("months", DEFAULT_MONTHS))
        else:
            units += PREFIX_UNITS.get(field.name, 0.0)
    return units


def _months(argument: object) -> int:
    # A literal comes as its text ("12"), a variable as its value; a bad one is refused by
    # the field itself, so the plan only needs a fair guess.
    try:
        return int(str(argument))
    except ValueError:
        return DEFAULT_MONTHS


def reads_partition_whole(fields: Iterable[SelectedField]) -> bool:
    units = prefix_plan_units(fields)
    return units > 0 and units > COLLECTION_UNITS


def plan_user_reads(info: Info, user_ids: Iterable[str]) -> None:
    """Prime the request's loaders for the users the current root field returns: when the
    selection makes the collection cheaper, each user's partition is read whole."""
    fields = [field for root in info.selected_fields for field in user_fields(root.selections)]
    if reads_partition_whole(fields):
        for user_id in dict.fromkeys(user_ids):
            info.context.reads.collect_user_partition(user_id)
