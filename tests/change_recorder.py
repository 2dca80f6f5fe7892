"""A listener on a change feed for tests: keeps, in order, every change, position, resync
and cut-off it hears, and lets a test wait until it has heard what it needs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from loaders.live.changes import Change, ShardPosition


class Recorder:
    def __init__(self) -> None:
        self.heard: list[object] = []
        self._more = asyncio.Event()

    def changes(self, changes: Sequence[Change]) -> None:
        self._hear(*changes)

    def position(self, position: ShardPosition) -> None:
        self._hear(position)

    def resync(self, reason: str) -> None:
        self._hear(("resync", reason))

    def disconnected(self) -> None:
        self._hear("disconnected")

    def changes_heard(self) -> list[Change]:
        return [each for each in self.heard if isinstance(each, Change)]

    async def until(self, found: Callable[[object], bool], within: float) -> None:
        """Return once something heard satisfies `found`; TimeoutError after `within` s."""
        async with asyncio.timeout(within):
            while not any(found(each) for each in self.heard):
                self._more.clear()
                await self._more.wait()

    def _hear(self, *what: object) -> None:
        self.heard.extend(what)
        self._more.set()
