"""The access plan's item declarations are the bench's users': what `python -m bench items`
measures and the plan's prices count."""

from __future__ import annotations

import orjson

from bench.item_cost import frontend_items, partition_answer
from loaders.entities import CASH_ADVANCE_SCORE, ENTITIES, USERS

#: `User.cashAdvanceScores`' default `limit`: its Query stops there.
SCORES_LIMIT = 10


def test_the_declared_items_are_a_bench_users() -> None:
    sort_keys = [item["SK"]["S"] for item in orjson.loads(partition_answer())["Items"]]
    assert len(sort_keys) == USERS.items == 112
    queried = [
        declared for declared in ENTITIES if declared.collection is USERS and declared.queried
    ]
    assert {declared.name for declared in queried} == {
        "recurring",
        "ritual",
        "cash_advance_score",
        "last_page",
    }
    for declared in queried:
        assert declared.sk is not None
        stored = sum(sk.startswith(declared.sk.prefix) for sk in sort_keys)
        if declared is CASH_ADVANCE_SCORE:
            stored = min(stored, SCORES_LIMIT)
        assert declared.read_items == stored, declared.name
    points = [
        declared for declared in ENTITIES if declared.collection is USERS and not declared.queried
    ]
    assert all(declared.read_items == 1 for declared in points)


def test_the_frontend_picks_52_of_the_partitions_items() -> None:
    # Two mines' 48 recurring rows, 3 savings months and the alert.
    assert frontend_items() == 52
