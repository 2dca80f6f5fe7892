from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from loaders.dynamodb import Dynamo
from loaders.lock import Lock, LockClient, LockLost, LockNotGranted, random_name
from loaders.request_scope import RequestScope
from loaders.tables import TableNames
from tests.conftest import NOW, CallCounter

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

KEY = "balance-alert:user_id:u-1"
RVN = re.compile(r"^\d{19}:[A-Z2-7]{52}$")


class FakeTimer:
    """Monotonic time that moves only when someone sleeps (or the test moves it)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


async def read_item(dynamodb: DynamoDBClient, tables: TableNames, key: str = KEY) -> Any:
    answer = await dynamodb.get_item(
        TableName=tables.locks, Key={"key": {"S": key}}, ConsistentRead=True
    )
    return answer.get("Item")


async def put_go_lock(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    *,
    owner: str = "go-balance-alert",
    lease: str = "1m0s",
    version: str = "1764674288000000000:GOPEER",
    extra: dict[str, Any] | None = None,
) -> None:
    """A lock item exactly as dynamolock v2 in a Go service writes it."""
    item = {
        "key": {"S": KEY},
        "ownerName": {"S": owner},
        "leaseDuration": {"S": lease},
        "recordVersionNumber": {"S": version},
        **(extra or {}),
    }
    await dynamodb.put_item(TableName=tables.locks, Item=item)


def sent(calls: CallCounter, operation: str) -> Any:
    """The API parameters of the first `operation` request the client sent."""
    return next(params for name, params in calls.requests if name == operation)


def lock_client(
    dynamodb: DynamoDBClient, tables: TableNames, owner: str, **options: Any
) -> LockClient:
    return LockClient(Dynamo(dynamodb, tables), owner_name=owner, **options)


# --- what is written -------------------------------------------------------------------


async def test_acquire_writes_the_dynamolock_item(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    client = lock_client(dynamodb, tables, "gateway-a")

    lock = await client.acquire(KEY)

    item = await read_item(dynamodb, tables)
    assert item == {
        "key": {"S": KEY},
        "ownerName": {"S": "gateway-a"},
        "leaseDuration": {"S": "1m0s"},
        "recordVersionNumber": {"S": lock.record_version_number},
    }
    assert RVN.match(lock.record_version_number)
    assert [name for name, _ in dynamodb_calls.requests] == ["GetItem", "PutItem", "GetItem"]
    assert sent(dynamodb_calls, "GetItem")["ConsistentRead"] is True


async def test_acquire_with_data_writes_it_as_binary(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    client = lock_client(dynamodb, tables, "gateway-a")

    await client.acquire(KEY, data=b"\x00evaluation\xff")

    item = await read_item(dynamodb, tables)
    assert item["data"] == {"B": b"\x00evaluation\xff"}


async def test_default_owner_name_is_gos_random_string(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    dynamo = Dynamo(dynamodb, tables)
    first, second = LockClient(dynamo), LockClient(dynamo)
    assert re.fullmatch(r"[A-Z2-7]{52}", first.owner_name)
    assert first.owner_name != second.owner_name
    assert re.fullmatch(r"[A-Z2-7]{52}", random_name())


async def test_heartbeat_writes_a_fresh_version_and_the_lease(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    client = lock_client(dynamodb, tables, "gateway-a")
    lock = await client.acquire(KEY)
    first_version = lock.record_version_number

    await client.send_heartbeat(lock)

    item = await read_item(dynamodb, tables)
    assert lock.record_version_number != first_version
    assert RVN.match(lock.record_version_number)
    assert item == {
        "key": {"S": KEY},
        "ownerName": {"S": "gateway-a"},
        "leaseDuration": {"S": "1m0s"},
        "recordVersionNumber": {"S": lock.record_version_number},
    }


async def test_release_deletes_the_item_by_default(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    client = lock_client(dynamodb, tables, "gateway-a")
    lock = await client.acquire(KEY)

    assert await client.release(lock) is True

    assert await read_item(dynamodb, tables) is None
    assert not client.is_held(lock)
    assert await client.release(lock) is False


async def test_a_request_out_of_time_still_releases_its_lock(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    # Else the lock stays held for its whole lease, and every retry meanwhile is LOCKED.
    client = lock_client(dynamodb, tables, "gateway-a")
    lock = await client.acquire(KEY)
    over = RequestScope(NOW, deadline=asyncio.get_running_loop().time() - 1.0)
    late = client.bound(Dynamo(dynamodb, tables).bound(over))

    assert await late.release(lock) is True

    assert await read_item(dynamodb, tables) is None
    assert [call.operation for call in over.calls.records] == ["delete_item"]


async def test_release_keeping_the_item_marks_it_released_for_the_next_owner(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    first = lock_client(dynamodb, tables, "gateway-a")
    lock = await first.acquire(KEY, data=b"done", delete_on_release=False)

    assert await first.release(lock) is True

    assert await read_item(dynamodb, tables) == {
        "key": {"S": KEY},
        "ownerName": {"S": "gateway-a"},
        "leaseDuration": {"S": "1m0s"},
        "recordVersionNumber": {"S": lock.record_version_number},
        "isReleased": {"S": "1"},
        "data": {"B": b"done"},
    }
    second = lock_client(dynamodb, tables, "gateway-b")
    taken = await second.acquire(KEY)
    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "gateway-b"}
    assert "isReleased" not in item
    # Like Go (without ReplaceData), a new owner keeps the data of the item it takes.
    assert item["data"] == {"B": b"done"}
    assert taken.data == b"done"


async def test_a_go_released_item_is_acquired_keeping_its_data_and_extra_attributes(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    await put_go_lock(
        dynamodb,
        tables,
        extra={"isReleased": {"S": "1"}, "data": {"B": b"go"}, "host": {"S": "lambda-7"}},
    )
    client = lock_client(dynamodb, tables, "gateway-a")

    lock = await client.acquire(KEY)

    assert await read_item(dynamodb, tables) == {
        "key": {"S": KEY},
        "ownerName": {"S": "gateway-a"},
        "leaseDuration": {"S": "1m0s"},
        "recordVersionNumber": {"S": lock.record_version_number},
        "data": {"B": b"go"},
        "host": {"S": "lambda-7"},
    }


# --- exclusion -------------------------------------------------------------------------


async def test_concurrent_acquirers_exactly_one_wins(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    clients = [lock_client(dynamodb, tables, f"gateway-{n}") for n in range(6)]

    outcomes = await asyncio.gather(
        *(client.acquire(KEY) for client in clients), return_exceptions=True
    )

    winners = [outcome for outcome in outcomes if isinstance(outcome, Lock)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, LockNotGranted)]
    assert len(winners) == 1
    assert len(refused) == len(clients) - 1
    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": winners[0].owner_name}
    assert item["recordVersionNumber"] == {"S": winners[0].record_version_number}


async def test_a_held_lock_refuses_a_fail_fast_acquirer_without_writing(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await put_go_lock(dynamodb, tables)
    dynamodb_calls.reset()
    client = lock_client(dynamodb, tables, "gateway-a")

    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)

    assert dict(dynamodb_calls.calls) == {"GetItem": 1}


@pytest.mark.parametrize(("lease", "seconds"), [("1m0s", 60), ("5s", 5), ("1.5s", 1.5)])
async def test_a_dead_owners_lock_is_taken_over_only_after_its_whole_lease(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    dynamodb_calls: CallCounter,
    lease: str,
    seconds: float,
) -> None:
    await put_go_lock(dynamodb, tables, lease=lease)
    dynamodb_calls.reset()
    timer = FakeTimer()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)

    # The holder's lease (its own, not ours) counts from the first sighting of its version:
    # refused while it runs, taken over at the first look once it has run out unchanged.
    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)
    timer.now = seconds
    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)
    timer.now = seconds + 0.5
    lock = await client.acquire(KEY)

    assert dynamodb_calls.calls["GetItem"] == 3
    assert dynamodb_calls.calls["PutItem"] == 1
    put = sent(dynamodb_calls, "PutItem")
    assert put["ExpressionAttributeValues"] == {":rvn": {"S": "1764674288000000000:GOPEER"}}
    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "gateway-a"}
    assert item["recordVersionNumber"] == {"S": lock.record_version_number}


async def test_a_go_holder_that_heartbeats_is_never_taken_over(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await put_go_lock(dynamodb, tables)
    timer = FakeTimer()
    dynamodb_calls.reset()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)

    # Looked at every 10 s for more than two of its leases, each look after a heartbeat.
    for beat in range(14):
        timer.now = 10.0 * beat
        await dynamodb.update_item(
            TableName=tables.locks,
            Key={"key": {"S": KEY}},
            UpdateExpression="SET recordVersionNumber = :v",
            ExpressionAttributeValues={":v": {"S": f"go-version-{beat}"}},
        )
        with pytest.raises(LockNotGranted, match="held by another owner"):
            await client.acquire(KEY)

    assert dynamodb_calls.calls["PutItem"] == 0
    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "go-balance-alert"}


async def test_fail_fast_takes_over_a_version_seen_unchanged_for_a_whole_lease(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    await put_go_lock(dynamodb, tables)
    timer = FakeTimer()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)

    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)
    timer.now = 60.0
    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)
    timer.now = 60.5
    lock = await client.acquire(KEY)

    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "gateway-a"}
    assert item["recordVersionNumber"] == {"S": lock.record_version_number}


async def test_fail_fast_restarts_the_count_when_the_holder_heartbeats(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    await put_go_lock(dynamodb, tables)
    timer = FakeTimer()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)
    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)

    timer.now = 30.0
    await put_go_lock(dynamodb, tables, version="1764674318000000000:GOPEER")
    timer.now = 61.0
    with pytest.raises(LockNotGranted):
        await client.acquire(KEY)
    timer.now = 121.5
    await client.acquire(KEY)

    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "gateway-a"}


# --- the held lock's life --------------------------------------------------------------


async def test_heartbeats_keep_a_long_holders_lock(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    # A 2 s lease: twenty heartbeats a lease, so a loaded machine's slow call does not let
    # the contender take over a lock that is being kept.
    short = {"lease": timedelta(seconds=2), "heartbeat_period": timedelta(milliseconds=100)}
    holder = lock_client(dynamodb, tables, "gateway-a", **short)
    contender = lock_client(dynamodb, tables, "gateway-b", **short)

    async with holder.hold(KEY) as lock:
        first_version = lock.record_version_number
        dynamodb_calls.reset()
        # The contender looks, then again more than the holder's whole lease later: without
        # heartbeats this second look would take the lock over (the sighting a lease old).
        with pytest.raises(LockNotGranted):
            await contender.acquire(KEY)
        await asyncio.sleep(2.2)
        with pytest.raises(LockNotGranted):
            await contender.acquire(KEY)
        assert holder.is_held(lock)
        # A heartbeat may land while the item is read: the stored version is the lock's
        # version from just before the read or from just after it.
        before = lock.record_version_number
        item = await read_item(dynamodb, tables)
        after = lock.record_version_number
        assert item["ownerName"] == {"S": "gateway-a"}
        assert item["recordVersionNumber"]["S"] in {before, after}
        assert lock.record_version_number != first_version
        assert dynamodb_calls.calls["UpdateItem"] >= 5
        assert dynamodb_calls.calls["PutItem"] == 0

    assert await read_item(dynamodb, tables) is None


async def test_a_failure_inside_the_block_still_releases(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    client = lock_client(
        dynamodb,
        tables,
        "gateway-a",
        lease=timedelta(seconds=1),
        heartbeat_period=timedelta(milliseconds=50),
    )

    held: list[Lock] = []

    async def failing_evaluation() -> None:
        async with client.hold(KEY) as lock:
            held.append(lock)
            await asyncio.sleep(0.12)
            raise RuntimeError("evaluation failed")

    with pytest.raises(RuntimeError, match="evaluation failed"):
        await failing_evaluation()

    assert held[0].released
    assert await read_item(dynamodb, tables) is None
    # The heartbeat task is gone too: nothing more reaches the table.
    dynamodb_calls.reset()
    await asyncio.sleep(0.15)
    assert dynamodb_calls.total == 0
    await lock_client(dynamodb, tables, "gateway-b").acquire(KEY)


async def test_a_cancelled_holder_still_releases(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    client = lock_client(dynamodb, tables, "gateway-a")
    entered = asyncio.Event()

    async def evaluation() -> None:
        async with client.hold(KEY):
            entered.set()
            await asyncio.sleep(30)

    task = asyncio.create_task(evaluation())
    await asyncio.wait_for(entered.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert await read_item(dynamodb, tables) is None


async def test_release_and_heartbeat_are_conditioned_on_ownership(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    timer = FakeTimer()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)
    lock = await client.acquire(KEY)
    # Our lease ran out and a Go peer took the lock over with its own version.
    timer.now = 61.0
    await put_go_lock(dynamodb, tables, owner="go-peer", version="2:TAKEN")
    timer.now = 0.5

    with pytest.raises(LockLost, match="taken over"):
        await client.send_heartbeat(lock)
    assert lock.lost
    assert await client.release(lock) is False

    item = await read_item(dynamodb, tables)
    assert item["ownerName"] == {"S": "go-peer"}
    assert item["recordVersionNumber"] == {"S": "2:TAKEN"}


async def test_release_by_another_client_is_refused(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    lock = await lock_client(dynamodb, tables, "gateway-a").acquire(KEY)
    other = lock_client(dynamodb, tables, "gateway-b")

    with pytest.raises(LockLost, match="owned by gateway-a"):
        await other.release(lock)

    assert (await read_item(dynamodb, tables))["ownerName"] == {"S": "gateway-a"}


async def test_a_lock_past_its_lease_is_not_held_and_is_not_heartbeat(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    timer = FakeTimer()
    client = lock_client(dynamodb, tables, "gateway-a", timer=timer)
    lock = await client.acquire(KEY)
    timer.now = 60.5
    dynamodb_calls.reset()

    assert not client.is_held(lock)
    with pytest.raises(LockLost):
        client.ensure_held(lock)
    with pytest.raises(LockLost):
        await client.send_heartbeat(lock)
    assert dynamodb_calls.total == 0


def test_a_heartbeat_longer_than_half_the_lease_is_refused(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    with pytest.raises(ValueError, match="half the lease"):
        LockClient(
            Dynamo(dynamodb, tables),
            lease=timedelta(seconds=1),
            heartbeat_period=timedelta(milliseconds=600),
        )
