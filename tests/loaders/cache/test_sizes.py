"""The cache's measured bytes against the memory its entries really take (tracemalloc):
the items, the rows warm reads build from them and keep beside them, and the part of an
answer each row keeps (every field of its type selected: the largest part one can keep)."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from operator import itemgetter
from typing import Any

from graphql import FieldNode, GraphQLObjectType, OperationDefinitionNode, parse
from graphql.execution import VariableValues

from gateway.settings import Settings
from loaders.cache import CoherentCache
from loaders.cache.items import ROWS_PER_ITEM_SIZE, row_of
from loaders.cache.sizes import items_size
from loaders.codec import Item, from_wire, to_wire
from loaders.keys import ItemKey
from loaders.live.changes import ShardPosition
from loaders.live.feed_watch import FeedWatch
from loaders.rows.alert import AlertRow
from loaders.rows.balance import BalanceRow
from loaders.rows.feeder import LastPageRow, PaveLabelRow
from loaders.rows.income import IncomeRow
from loaders.rows.income_detection import IncomeDetectionRunRow
from loaders.rows.income_verification import IncomeVerificationRow
from loaders.rows.mine import MineRow, RecurringExpenseRow, RitualRow
from loaders.rows.payday import PaydayRow
from loaders.rows.scores import ScoreRow
from loaders.tables import Table
from schema.execution.compiler import compile_object
from schema.execution.generated import Completion, Selection, generate
from schema.execution.plan import OBJECT, PlainField
from schema.graphql_schema import graphql_schema
from schema.root import build_schema
from support.every_field import every_field
from support.seed import user_items
from tests.conftest import NOW

USERS = 20
#: A level above a row's, so that the row's completion is a nested one, as in a query.
ROW_FIELD = PlainField("row", OBJECT, read=itemgetter("row"))

#: Each entity's row, as the read rules build it.
BUILDERS: dict[str, Callable[[Item], object]] = {
    "payday": PaydayRow.from_item,
    "income_verification": IncomeVerificationRow.from_item,
    "balance": BalanceRow.from_item,
    "alert": AlertRow.from_item,
    "pave_label": PaveLabelRow.from_item,
    "last_page": LastPageRow.from_item,
    "insights": MineRow.from_item,
    "recurring": RecurringExpenseRow.from_item,
    "ritual": RitualRow.from_item,
    "income": IncomeRow.from_item,
    "scores": ScoreRow.from_item,
}


def responses() -> list[tuple[Table, str, str]]:
    """Each partition of realistic users as a Query's response text (as botocore gets it),
    its items in sort-key order, as a Query gives them."""
    partitions: dict[tuple[Table, str], list[Item]] = defaultdict(list)
    for n in range(USERS):
        for table, found in user_items(f"user-{n:03d}", NOW, Settings()):
            pk = found["PK"] if "PK" in found else found["user_id"]
            partitions[(table, pk)].append(found)
    return [
        (
            table,
            pk,
            json.dumps({"Items": [to_wire(i) for i in _in_order(table, found)]}, default=str),
        )
        for (table, pk), found in partitions.items()
        if table.key_names[1] is not None
    ]


def _in_order(table: Table, items: list[Item]) -> list[Item]:
    sort_key = table.key_names[1]
    assert sort_key is not None
    return sorted(items, key=lambda item: str(item[sort_key]))


def cached_items(cache: CoherentCache, partitions: list[tuple[Table, str]]) -> list[Any]:
    found = []
    for table, pk in partitions:
        entry = cache.store.get((table, pk))
        assert entry is not None
        assert entry.whole is not None
        found += [entry.whole.point(ItemKey(table, pk, sk)) for sk in entry.whole.sort_keys]
    return found


def build_rows(items: list[Any]) -> list[Any]:
    rows = []
    for item in items:
        build = BUILDERS.get(item.get("type", ""), IncomeDetectionRunRow.from_item)
        rows.append(row_of(build, item))
        assert rows[-1] is row_of(build, item)
    return rows


def _completed(completion: Completion, row: Any) -> Any:
    return completion.complete({"row": row}, None)["row"]


def every_field_completions() -> dict[type, Callable[[Any], Any]]:
    """Each row class's completion with every field of its GraphQL type selected."""
    schema = graphql_schema(build_schema())
    completions: dict[type, Callable[[Any], Any]] = {}
    for name, named in schema.type_map.items():
        origin = getattr(named.extensions.get("strawberry-definition"), "origin", None)
        record = getattr(origin, "__record__", None)
        if record is None or not isinstance(named, GraphQLObjectType):
            continue
        document = parse(f"{{ row {every_field(schema, name)} }}")
        operation = document.definitions[0]
        assert isinstance(operation, OperationDefinitionNode)
        (node,) = operation.selection_set.selections
        assert isinstance(node, FieldNode)
        selection, _ = compile_object(schema, named, [node], {}, VariableValues({}, {}))
        assert selection.keeps_part is (record.__entity__ is not None)
        completions[record] = partial(
            _completed, generate(Selection("Row", ((ROW_FIELD, selection),)))
        )
    return completions


def test_the_measured_bytes_bound_what_the_entries_their_rows_and_parts_take() -> None:
    texts = responses()
    completions = every_field_completions()
    wall = 1_000_000.0
    cache = CoherentCache(1 << 30, FeedWatch((Table.PAVE, Table.INCOME_DETECTION), 2, lambda: wall))
    for table in (Table.PAVE, Table.INCOME_DETECTION):
        cache.position(ShardPosition(table, "shard-1", wall))
    now_seconds = int(NOW.timestamp())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for table, pk, text in texts:
            # Decoded as the gateway decodes a response; the text and wire form are dropped.
            items = [from_wire(wire) for wire in json.loads(text)["Items"]]
            cache.store_whole(cache.begin(), table, pk, now_seconds, items)
            del items
        gc.collect()
        items_taken = tracemalloc.get_traced_memory()[0] - before
        items = cached_items(cache, [(table, pk) for table, pk, _ in texts])
        rows = build_rows(items)
        for row in rows:  # the largest parts they can keep
            part = completions[type(row)](row)
            assert completions[type(row)](row) is part
        del rows, part
        gc.collect()
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    measured = cache.store.bytes
    items_measured = items_size(items)
    print(f"measured {measured} bytes, traced {taken} ({measured / taken:.2f}x)")
    print(
        f"rows and parts: traced {taken - items_taken}, "
        f"charged {items_measured * ROWS_PER_ITEM_SIZE}"
    )
    assert taken - items_taken <= items_measured * ROWS_PER_ITEM_SIZE
    assert taken <= measured <= 3 * taken
