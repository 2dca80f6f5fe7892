from __future__ import annotations

from collections.abc import Sequence

from loaders.live.changes import Change, MemoryChangeFeed, ShardPosition
from loaders.tables import Table
from tests.change_recorder import Recorder


class Failing(Recorder):
    def changes(self, changes: Sequence[Change]) -> None:
        raise RuntimeError("boom")


async def test_a_publish_reaches_every_listener_in_order() -> None:
    feed = MemoryChangeFeed()
    first, second = Recorder(), Recorder()
    feed.listen(first)
    feed.listen(second)
    change = Change(Table.PAVE, "USERS#u1")
    position = ShardPosition(Table.PAVE, "shardId-1", 1700000000.0)
    await feed.publish([change])
    await feed.publish_position(position)
    assert first.heard == [change, position]
    assert second.heard == [change, position]


async def test_a_removed_listener_hears_nothing_and_an_empty_publish_is_silent() -> None:
    feed = MemoryChangeFeed()
    recorder = Recorder()
    remove = feed.listen(recorder)
    await feed.publish([])
    remove()
    await feed.publish([Change(Table.PAVE, "USERS#u1")])
    assert recorder.heard == []


async def test_a_failing_listener_does_not_starve_the_next() -> None:
    feed = MemoryChangeFeed()
    recorder = Recorder()
    feed.listen(Failing())
    feed.listen(recorder)
    change = Change(Table.BALANCE_SETTINGS, "u1")
    await feed.publish([change])
    assert recorder.heard == [change]
