"""Re-reads started in one tick share one read: their point reads go out as one BatchGetItem,
each group still gets its own answer, and each is timed by its own user's items."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from loaders.dynamodb import Dynamo, FinishedCall
from loaders.live.changes import Change
from loaders.tables import Table
from schema.context import Context, build_context
from schema.live import GroupKey, LiveHub
from schema.live.ports import ContextFactory
from schema.live.shared_reads import SharedReads
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
from tests.conftest import NOW, put_wire_items
from tests.wire import n, s

USERS = ["u-1", "u-2", "u-3"]
QUERY = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"


def rereads_over(dynamo: Dynamo, clock: FixedClock) -> ContextFactory:
    """A re-read's Context, as the gateway's wiring builds it."""

    def new_context(principal: Principal) -> Context:
        return build_context(dynamo=dynamo, principal=principal, clock=clock, reread=True)

    return new_context


def hub_over(dynamo: Dynamo, clock: FixedClock, **options: Any) -> LiveHub:
    return LiveHub(build_schema(), rereads_over(dynamo, clock), clock=clock, **options)


async def seed(dynamodb: Any, dynamo: Dynamo) -> None:
    await put_wire_items(
        dynamodb,
        dynamo.tables.balance_settings,
        [
            {"user_id": s(user), "low_balance_alert": n(10 * (i + 1))}
            for i, user in enumerate(USERS)
        ],
    )


async def test_re_reads_started_in_one_tick_send_one_batch_get(
    dynamo: Dynamo, clock: FixedClock, dynamodb: Any
) -> None:
    await seed(dynamodb, dynamo)
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)
    hub = hub_over(dynamo, clock)
    keys = [GroupKey(QUERY, None, f'{{"ids": ["{u}"]}}', "dashboard", u) for u in USERS]

    answers = await asyncio.gather(*(hub.execute(key, {"ids": [key.user_id]}) for key in keys))

    assert [payload for payload, _ in answers] == [
        {"data": {"userChanged": {"id": user, "lowBalanceAlert": f"{10 * (i + 1)}.00"}}}
        for i, user in enumerate(USERS)
    ]
    [read] = calls
    assert read.operation == "batch_get_item"
    assert len(read.params["RequestItems"][dynamo.tables.balance_settings]["Keys"]) == 3

    # Started in separate ticks, each re-read sends its own.
    calls.clear()
    for key in keys:
        await hub.execute(key, {"ids": [key.user_id]})
    assert [call.operation for call in calls] == ["batch_get_item"] * 3


async def test_groups_woken_together_are_re_read_together(
    dynamo: Dynamo, clock: FixedClock, dynamodb: Any
) -> None:
    await seed(dynamodb, dynamo)
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)
    hub = hub_over(dynamo, clock, debounce=0.05)
    sent: dict[str, list[dict[str, Any]]] = {user: [] for user in USERS}
    subscribers = []
    for user in USERS:

        async def send(payload: dict[str, Any], user: str = user) -> None:
            sent[user].append(payload)

        subscriber = hub.subscribe(
            principal=Principal(user, roles=frozenset({"dashboard"})),
            query=QUERY,
            operation_name=None,
            variables={"ids": [user]},
            user_ids=[user],
            initial=False,
            cost=1,
            send=send,
        )
        subscribers.append(subscriber)
        # Subscribed in separate ticks: the grid still lines their re-reads up.
        await asyncio.sleep(0)
    hub.changes([Change(Table.BALANCE_SETTINGS, user) for user in USERS])
    for _ in range(100):
        if all(sent.values()):
            break
        await asyncio.sleep(0.01)
    for subscriber in subscribers:
        hub.remove(subscriber)
    await hub.close()
    assert {user: [p["data"]["userChanged"]["id"] for p in got] for user, got in sent.items()} == {
        user: [user] for user in USERS
    }
    assert [call.operation for call in calls] == ["batch_get_item"]


async def test_each_shared_re_read_is_timed_by_its_own_users_items(
    dynamo: Dynamo, clock: FixedClock, dynamodb: Any
) -> None:
    expires = int(NOW.timestamp()) + 3600
    await put_wire_items(
        dynamodb,
        dynamo.tables.pave,
        [
            {
                "PK": s("USERS#u-1"),
                "SK": s("LAST_PAGE#REQUEST_ID#req-4"),
                "type": s("last_page"),
                "pave_request_id": s("req-4"),
                "page": n(4),
                "updated_date": s("2026-12-02T11:31:28Z"),
                "ttl": n(expires),
            }
        ],
    )
    hub = hub_over(dynamo, clock)
    query = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lastPages { page } } }"
    keys = [GroupKey(query, None, f'{{"ids": ["{u}"]}}', "dashboard", u) for u in ("u-1", "u-2")]
    (first, first_expiry), (second, second_expiry) = await asyncio.gather(
        *(hub.execute(key, {"ids": [key.user_id]}) for key in keys)
    )
    assert first["data"]["userChanged"]["lastPages"] == [{"page": 4}]
    assert second["data"]["userChanged"]["lastPages"] == []
    assert (first_expiry, second_expiry) == (float(expires), None)


async def test_a_shared_read_serves_at_most_its_users_then_opens_another(
    dynamo: Dynamo, clock: FixedClock
) -> None:
    reads = SharedReads(rereads_over(dynamo, clock), max_users=2)
    joined = [reads.join(Principal(user), user) for user in ("a", "b", "a", "c")]
    first, second = joined[0][1], joined[3][1]
    assert [shared for _, shared in joined] == [first, first, first, second]
    assert joined[1][0].reads is joined[0][0].reads
    assert joined[1][0].principal == Principal("b")
    assert joined[3][0].reads is not joined[0][0].reads
    for _, shared in joined:
        reads.leave(shared)
    assert (first.members, second.members) == (0, 0)
    # The tick over, the next re-read opens a read of its own.
    await asyncio.sleep(0)
    _, later = reads.join(Principal("a"), "a")
    assert later not in (first, second)


async def test_a_cancelled_re_read_leaves_the_shared_loads_to_the_others(
    dynamo: Dynamo, clock: FixedClock, dynamodb: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed(dynamodb, dynamo)
    # The shared read is held in flight until the first re-read is cancelled (else moto may
    # answer it first, and there is nothing left to cancel).
    sending, release = asyncio.Event(), asyncio.Event()
    send = Dynamo._send

    async def held(
        self: Dynamo, operation: str, params: dict[str, Any], attempts: list[int]
    ) -> Any:
        sending.set()
        await release.wait()
        return await send(self, operation, params, attempts)

    monkeypatch.setattr(Dynamo, "_send", held)
    hub = hub_over(dynamo, clock)
    # Two documents over one user: their re-reads wait on the same loads.
    other = QUERY.replace("{ id lowBalanceAlert }", "{ lowBalanceAlert }")
    keys = [
        GroupKey(query, None, '{"ids": ["u-2"]}', "dashboard", "u-2") for query in (QUERY, other)
    ]
    first, second = (asyncio.ensure_future(hub.execute(key, {"ids": ["u-2"]})) for key in keys)
    await asyncio.wait_for(sending.wait(), 10)  # both wait on their loads, in flight
    first.cancel()
    await asyncio.sleep(0)
    release.set()
    payload, _ = await second
    assert payload == {"data": {"userChanged": {"lowBalanceAlert": "20.00"}}}
    assert first.cancelled()
