"""`RedisChangeFeed`: the change feed among replicas, over Redis publish/subscribe (coredis).

Every message goes to one channel and comes back to every subscribed replica, the publisher
included, whose listeners hear it. A message is compact JSON:
`{"p": publisher, "n": number, "c": [[table, partition key], ...]}` (changes),
`{"p", "n", "s": [table, shard, current as of]}` (a position) or `{"p", "n", "r": reason}`
(a resync). Each publisher numbers its messages 1, 2, 3...: a gap (Redis pub/sub is at most
once: a subscriber's connection dropped and came back) makes the listeners resync; a number
seen again is delivered again, quietly (delivery is at least once); a lower number is the
publisher's new run, which resyncs only when its first messages were lost (`_follow`).

A supervisor keeps the subscription and PINGs Redis every `health_seconds`; when Redis does
not answer (gone, or frozen) the feed is `connected = False`, its listeners hear
`disconnected()`, and it reconnects with jittered exponential backoff; once back, they hear
`resync("change feed reconnected")`. While cut off, `publish` raises `FeedUnavailable`, so
that a stream reader keeps its checkpoint and publishes again later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

import coredis
import orjson

from loaders.backoff import Backoff
from loaders.live.changes.feed import Change, Listeners, ShardPosition
from loaders.lock import random_name
from loaders.tables import Table

logger = logging.getLogger("gateway.changes")

CHANNEL = "insight-gateway:changes"


class FeedUnavailable(Exception):
    """The change feed cannot publish now (Redis is unreachable)."""


class RedisChangeFeed(Listeners):
    def __init__(
        self,
        uri: str,
        *,
        health_seconds: float = 0.5,
        timeout_seconds: float = 1.0,
        backoff_cap: float = 5.0,
    ) -> None:
        super().__init__()
        self._uri = uri
        self._health_seconds = health_seconds
        self._timeout = timeout_seconds
        self._backoff = Backoff(base=0.1, cap=backoff_cap)
        self._client: coredis.Redis[bytes] | None = None
        self._connected = False
        self._was_connected = False
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._publisher = random_name()[:16]
        self._number = 0
        self._sending = asyncio.Lock()
        self._last_seen: dict[str, int] = {}

    @property
    def connected(self) -> bool:
        return self._connected

    # --- publishing ---------------------------------------------------------------------

    async def publish(self, changes: Sequence[Change]) -> None:
        if changes:
            await self._send({"c": [[c.table.value, c.partition_key] for c in changes]})

    async def publish_position(self, position: ShardPosition) -> None:
        await self._send(
            {"s": [position.table.value, position.shard_id, round(position.current_as_of, 3)]}
        )

    async def publish_resync(self, reason: str) -> None:
        await self._send({"r": reason})

    async def _send(self, body: dict[str, Any]) -> None:
        client = self._client
        if client is None or not self._connected:
            raise FeedUnavailable("the change feed is not connected to Redis")
        # One at a time: the numbers are consecutive and the messages arrive in their order.
        async with self._sending:
            body["p"] = self._publisher
            body["n"] = self._number + 1
            try:
                async with asyncio.timeout(self._timeout):
                    await client.publish(CHANNEL, orjson.dumps(body))
            except (TimeoutError, coredis.exceptions.RedisError, OSError) as error:
                raise FeedUnavailable(f"publish to Redis failed: {error!r}") from error
            self._number += 1

    # --- listening ----------------------------------------------------------------------

    async def start(self) -> None:
        """Connect (in the background, reconnecting for ever); waits up to the timeout for
        the first connection, so that a replica starting with Redis up starts connected."""
        self._task = asyncio.create_task(self._supervise(), name="redis-change-feed")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._timeout * 3):
                await self._ready.wait()

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            # gather, not a suppressed await: a cancel of close() itself still ends it.
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self._listeners.clear()

    async def _supervise(self) -> None:
        failures = 0
        while True:
            try:
                await self._connect_and_consume()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self._connected or failures == 0:
                    logger.warning("change feed: Redis connection failed: %r", error)
            finally:
                await self._cut_off()
            failures += 1
            await asyncio.sleep(self._backoff.pause(failures))

    async def _connect_and_consume(self) -> None:
        client: coredis.Redis[bytes] = coredis.Redis.from_url(
            self._uri, connect_timeout=self._timeout, stream_timeout=None
        )
        self._client = client
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            async with asyncio.timeout(self._timeout):
                await pubsub.subscribe(CHANNEL)
                await client.ping()
            self._connected = True
            self._ready.set()
            if self._was_connected:
                logger.info("change feed: Redis is back; listeners resync")
                self._last_seen.clear()
                self._each(lambda listener: listener.resync("change feed reconnected"))
            self._was_connected = True
            async with asyncio.TaskGroup() as group:
                group.create_task(self._consume(pubsub))
                group.create_task(self._check_health(client))
        finally:
            # Synchronous: disconnects and stops coredis's consumer task at once, even when
            # Redis is frozen (an UNSUBSCRIBE would wait for it) or this task is cancelled.
            pubsub.close()
            client.connection_pool.disconnect()

    async def _cut_off(self) -> None:
        client, self._client = self._client, None
        if self._connected:
            self._connected = False
            if self._closing:
                return
            logger.warning("change feed: cut off from Redis; changes may be missed")
            self._each(lambda listener: listener.disconnected())
        del client

    async def _check_health(self, client: coredis.Redis[bytes]) -> None:
        while True:
            await asyncio.sleep(self._health_seconds)
            async with asyncio.timeout(self._timeout):
                await client.ping()

    async def _consume(self, pubsub: Any) -> None:
        async for message in pubsub:
            if message.get("type") != "message":
                continue
            data = message.get("data")
            try:
                body = orjson.loads(data)
            except (orjson.JSONDecodeError, TypeError):
                logger.warning("change feed: a message that is not ours on %s", CHANNEL)
                continue
            if isinstance(body, dict):
                self._deliver(body)
        raise ConnectionError("the Redis subscription ended")

    def _deliver(self, body: dict[str, Any]) -> None:
        publisher, number = body.get("p"), body.get("n")
        if isinstance(publisher, str) and isinstance(number, int):
            self._follow(publisher, number)
        try:
            if "c" in body:
                changes = [Change(Table(table), key) for table, key in body["c"]]
                self._each(lambda listener: listener.changes(changes))
            elif "s" in body:
                table, shard, as_of = body["s"]
                position = ShardPosition(Table(table), str(shard), float(as_of))
                self._each(lambda listener: listener.position(position))
            elif "r" in body:
                reason = str(body["r"])
                self._each(lambda listener: listener.resync(reason))
        except (ValueError, TypeError, KeyError):
            logger.warning("change feed: a malformed message on %s", CHANNEL)

    def _follow(self, publisher: str, number: int) -> None:
        """Follow one publisher's numbers; the listeners resync only where messages were
        really lost.

        - The next number, or the first heard from a publisher: in order.
        - The same number again: a publish that timed out at the publisher but reached
          Redis is sent again under its number (perhaps with other content), so the message
          is delivered, as at-least-once delivery allows, without a word.
        - A number past the next one: the messages between were lost.
        - A lower number: the publisher started again under the same id (its numbers start
          at 1); only a new run heard first past 1 lost messages (those before it).
        """
        last = self._last_seen.get(publisher)
        self._last_seen[publisher] = number
        if last is None or number in (last, last + 1):
            return
        expected = last + 1
        if number < last:
            logger.info("change feed: publisher %s started again (at %d)", publisher, number)
            expected = 1
        if number > expected:
            logger.warning(
                "change feed: %d messages lost from %s; listeners resync",
                number - expected,
                publisher,
            )
            self._each(lambda listener: listener.resync("change feed lost messages"))
