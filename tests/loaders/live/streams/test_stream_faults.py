"""The readers through the fault layer: a synthetic shard tree (parents closed, children
split, records trimmed) and injected errors, over a real `locks` table on moto's server."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from loaders.live.changes import Change, MemoryChangeFeed
from loaders.live.streams import Checkpoint
from loaders.tables import Table
from tests.change_recorder import Recorder
from tests.loaders.live.streams.conftest import Readers, until
from tests.loaders.live.streams.fault_streams import SyntheticStream

PAVE = [Table.PAVE]


async def test_a_child_is_read_only_after_its_parent_is_read_to_its_end(readers: Readers) -> None:
    stream = SyntheticStream()
    parent = stream.add_shard("shard-parent")
    first = stream.write("shard-parent", "USERS#before")
    stream.write("shard-parent", "USERS#p1")
    stream.write("shard-parent", "USERS#p2")
    parent.closed = True
    for child in ("shard-left", "shard-right"):
        stream.add_shard(child, parent_id="shard-parent")
    stream.write("shard-left", "USERS#left")
    stream.write("shard-right", "USERS#right")
    # Pages of two shards: the third is found through ExclusiveStartShardId.
    await readers.put_lease(Table.PAVE, "shard-parent", Checkpoint(sequence_number=str(first)))
    async with readers.running(stream, tables=PAVE):
        await until(lambda: {"USERS#left", "USERS#right"} <= set(readers.partition_keys()))
        assert await readers.lease_data(Table.PAVE, "shard-parent") == {
            "seq": str(first + 2),
            "ended": True,
        }

    heard = readers.partition_keys()
    assert heard[:2] == ["USERS#p1", "USERS#p2"]
    assert sorted(heard[2:]) == ["USERS#left", "USERS#right"]
    describes = stream.faults.of("DescribeStream")
    assert any(call.params.get("ExclusiveStartShardId") == "shard-left" for call in describes)
    iterators = stream.faults.of("GetShardIterator")
    assert iterators[0].params["ShardId"] == "shard-parent"
    assert iterators[0].params["ShardIteratorType"] == "AFTER_SEQUENCE_NUMBER"
    assert iterators[0].params["SequenceNumber"] == str(first)
    # The children start at their trim horizon, after the parent's last GetRecords.
    parent_reads = [c for c in stream.faults.of("GetRecords") if c.shard_id == "shard-parent"]
    children = [c for c in iterators if c.params["ShardId"] != "shard-parent"]
    assert {c.params["ShardIteratorType"] for c in children} == {"TRIM_HORIZON"}
    assert len(children) == 2
    assert parent_reads
    assert max(c.at for c in parent_reads) <= min(c.at for c in children)


async def test_a_first_start_reads_open_shards_from_latest_and_skips_closed_history(
    readers: Readers,
) -> None:
    stream = SyntheticStream()
    old = stream.add_shard("shard-old")
    stream.write("shard-old", "USERS#history")
    old.closed = True
    stream.add_shard("shard-now", parent_id="shard-old")
    stream.write("shard-now", "USERS#history-too")
    async with readers.running(stream, tables=PAVE) as reader:
        await until(lambda: len(stream.faults.of("GetRecords")) >= 2)
        stream.write("shard-now", "USERS#new")
        await until(lambda: "USERS#new" in readers.partition_keys())
        assert reader.held == 1
    assert readers.partition_keys() == ["USERS#new"]
    opened = stream.faults.of("GetShardIterator")
    assert [(c.params["ShardId"], c.params["ShardIteratorType"]) for c in opened] == [
        ("shard-now", "LATEST")
    ]


async def test_an_expired_iterator_reopens_after_the_checkpoint(readers: Readers) -> None:
    stream, _ = await readers.resumed_shard()
    async with readers.running(stream, tables=PAVE):
        await until(lambda: len(stream.faults.of("GetRecords")) >= 1)
        second = stream.write("shard-1", "USERS#b")
        await until(lambda: "USERS#b" in readers.partition_keys())
        await readers.until_lease_data(Table.PAVE, "shard-1", {"seq": str(second)})
        stream.faults.inject("GetRecords", "ExpiredIteratorException")
        stream.write("shard-1", "USERS#c")
        await until(lambda: "USERS#c" in readers.partition_keys())
    assert readers.partition_keys() == ["USERS#b", "USERS#c"]
    reopened = stream.faults.of("GetShardIterator")[-1].params
    assert reopened["ShardIteratorType"] == "AFTER_SEQUENCE_NUMBER"
    assert reopened["SequenceNumber"] == str(second)


async def test_trimmed_data_resumes_at_the_trim_horizon_and_resyncs_every_listener(
    readers: Readers,
) -> None:
    stream = SyntheticStream()
    shard = stream.add_shard("shard-1")
    gone = stream.write("shard-1", "USERS#gone")
    stream.write("shard-1", "USERS#gone-too")
    stream.write("shard-1", "USERS#kept")
    shard.trimmed = 2
    await readers.put_lease(Table.PAVE, "shard-1", Checkpoint(sequence_number=str(gone)))
    async with readers.running(stream, tables=PAVE):
        await until(lambda: "USERS#kept" in readers.partition_keys())
    resyncs = [item for item in readers.heard if isinstance(item, tuple)]
    assert resyncs == [("resync", "pave: stream records of shard shard-1 were trimmed")]
    assert readers.heard.index(resyncs[0]) < readers.heard.index(Change(Table.PAVE, "USERS#kept"))
    assert readers.partition_keys() == ["USERS#kept"]
    types = [c.params["ShardIteratorType"] for c in stream.faults.of("GetShardIterator")]
    assert types == ["AFTER_SEQUENCE_NUMBER", "TRIM_HORIZON"]


async def test_throttling_backs_off_and_loses_nothing(readers: Readers) -> None:
    stream, _ = await readers.resumed_shard()
    stream.write("shard-1", "USERS#b")
    stream.faults.inject("GetRecords", "LimitExceededException", times=2)
    stream.faults.inject("GetRecords", "ProvisionedThroughputExceededException", times=1)
    async with readers.running(stream, tables=PAVE):
        await until(lambda: "USERS#b" in readers.partition_keys())
    calls = stream.faults.of("GetRecords")
    assert len(calls) >= 4
    # Backoff (0.1 s doubling, jittered down to half) on top of the 0.25 s spacing.
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(calls[:4])]
    assert all(gap >= 0.25 for gap in gaps), gaps
    assert readers.partition_keys() == ["USERS#b"]


async def test_a_busy_shard_is_read_at_most_four_times_a_second(readers: Readers) -> None:
    stream = SyntheticStream()
    stream.add_shard("shard-1").endless = True
    async with readers.running(stream, tables=PAVE):
        await until(lambda: len(stream.faults.of("GetRecords")) >= 9)
    calls = stream.faults.of("GetRecords")
    # Any window of 9 consecutive calls spans at least 2 seconds: at most 4 a second.
    for window in range(len(calls) - 8):
        assert calls[window + 8].at - calls[window].at >= 2.0 - 1e-6


class FailingFeed(MemoryChangeFeed):
    def __init__(self) -> None:
        super().__init__()
        self.failing = True
        self.attempts = 0

    async def publish(self, changes: Sequence[Change]) -> None:
        self.attempts += 1
        if self.failing:
            raise ConnectionError("the feed is down")
        await super().publish(changes)


async def test_the_checkpoint_stays_put_until_the_changes_are_published(
    readers: Readers,
) -> None:
    stream, start = await readers.resumed_shard()
    later = stream.write("shard-1", "USERS#b")
    feed = FailingFeed()
    recorder = Recorder()
    feed.listen(recorder)
    async with readers.running(stream, tables=PAVE, feed=feed):
        await until(lambda: feed.attempts >= 3)
        assert await readers.lease_data(Table.PAVE, "shard-1") == {"seq": str(start)}
        assert recorder.heard == []
        feed.failing = False
        await until(lambda: Change(Table.PAVE, "USERS#b") in recorder.heard)
        await readers.until_lease_data(Table.PAVE, "shard-1", {"seq": str(later)})
    # Each failed attempt read the batch again from the checkpoint.
    again = stream.faults.of("GetShardIterator")
    assert len(again) >= 3
    assert {c.params.get("SequenceNumber") for c in again} == {str(start)}


async def test_records_of_one_batch_make_one_change_per_partition(readers: Readers) -> None:
    stream, _ = await readers.resumed_shard()
    for key in ("USERS#u1", "USERS#u1", "PAYDAY#u1", "USERS#u1"):
        stream.write("shard-1", key)
    async with readers.running(stream, tables=PAVE):
        await until(lambda: "PAYDAY#u1" in readers.partition_keys())
    assert readers.partition_keys() == ["USERS#u1", "PAYDAY#u1"]


async def test_a_parent_trimmed_before_its_end_resyncs_and_its_lease_item_is_then_deleted(
    readers: Readers,
) -> None:
    stream = SyntheticStream()
    # The parent is no longer listed: trimmed, while its lease says it was not finished.
    stream.add_shard("shard-child", parent_id="shard-gone")
    stream.write("shard-child", "USERS#child")
    await readers.put_lease(Table.PAVE, "shard-gone", Checkpoint(sequence_number="42"))
    async with readers.running(stream, tables=PAVE):
        await until(lambda: "USERS#child" in readers.partition_keys())
        await readers.until_lease_data(Table.PAVE, "shard-gone", None)
    assert readers.heard[0] == (
        "resync",
        "pave: shard shard-gone was trimmed before it was read to its end",
    )
    opened = stream.faults.of("GetShardIterator")[0].params
    assert (opened["ShardId"], opened["ShardIteratorType"]) == ("shard-child", "TRIM_HORIZON")
    # The child's own lease stays, with its checkpoint.
    assert set(await readers.lease_data(Table.PAVE, "shard-child")) == {"seq"}


async def test_a_takeover_before_any_record_reads_from_the_start_and_publishes_from_then_on(
    readers: Readers,
) -> None:
    """The first reader began at LATEST and stopped before reading a record: its successor
    reads from TRIM_HORIZON and publishes what came after that start (with a margin)."""
    stream = SyntheticStream()
    stream.add_shard("shard-1")
    now = datetime.now(UTC)
    # More than a page of records from before the first start: the second page's too are old.
    for n in range(1001):
        stream.write("shard-1", f"USERS#long-before-{n}", created=now - timedelta(hours=1))
    stream.write("shard-1", "USERS#after-the-start", created=now - timedelta(seconds=5))
    started = (now - timedelta(seconds=10)).timestamp()
    await readers.put_lease(Table.PAVE, "shard-1", Checkpoint(since=started))
    async with readers.running(stream, tables=PAVE):
        await until(lambda: "USERS#after-the-start" in readers.partition_keys())
    assert readers.partition_keys() == ["USERS#after-the-start"]
    opened = stream.faults.of("GetShardIterator")[0].params
    assert opened["ShardIteratorType"] == "TRIM_HORIZON"


async def test_a_lease_left_in_our_own_name_is_taken_again_after_a_whole_lease(
    readers: Readers,
) -> None:
    """Our reader stopped (its lease ran out locally while DynamoDB did not answer), but the
    item still names us: with no other replica, we must take it again ourselves."""
    stream = SyntheticStream()
    stream.add_shard("shard-1")
    start = stream.write("shard-1", "USERS#a")
    stream.write("shard-1", "USERS#b")
    await readers.put_lease(
        Table.PAVE,
        "shard-1",
        Checkpoint(sequence_number=str(start)),
        owner="US",
        released=False,
        duration="1s",
    )
    async with readers.running(stream, tables=PAVE, owner_name="US") as reader:
        await until(lambda: "USERS#b" in readers.partition_keys())
        assert reader.held == 1
    assert readers.partition_keys() == ["USERS#b"]
