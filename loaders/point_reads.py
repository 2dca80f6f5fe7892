"""The point-read core: every (table, PK, SK) read of a request, batched into BatchGetItem."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

from loaders.answers import Found, pending
from loaders.cache import CacheReader, Miss
from loaders.codec import Item, is_live
from loaders.collections import Collected, Read
from loaders.dynamodb_errors import KeysRefused
from loaders.keys import ItemKey
from loaders.request_loader import RequestLoader

__all__ = ["PointReadLoader"]

_OVER_LIMITS = "A key of this read is over DynamoDB's key limits (an id too long)"


class PointReadLoader(RequestLoader[ItemKey, Read | None]):
    """Loads one item per key: None when absent or expired at the request's `now`.

    Every key loaded in the same tick, whatever its table or user, goes out together in
    pages of 100 distinct keys, sent concurrently; a failed page fails only its own keys,
    and keys left unprocessed past the deadline only themselves.
    A key of a partition the request reads whole (`collections`) is answered from that
    partition's Query instead. `consistent`: strongly consistent reads; `expiries`: note
    the `ttl` of every live item read. With the coherent cache (`cache`), a key it holds is
    answered at once, and every key read is stored.
    """

    def cached(self, cache: CacheReader, key: ItemKey) -> Read | Miss | None:
        return cache.point(key)

    def pick(self, collected: Collected, key: ItemKey) -> Read | None:
        return collected.point(key)

    def answer_many(self, keys: Sequence[ItemKey]) -> Found[list[Read | None]]:
        """`answer` for each key: a list now when every one is known."""
        found = [self.answer(key) for key in keys]
        if any(pending(item) for item in found):
            return self.load_many(keys)
        return cast(list[Read | None], found)

    async def batch_load_fn(  # type: ignore[override]
        self, keys: Sequence[ItemKey]
    ) -> list[Item | BaseException | None]:
        version = self._coherent.begin() if self._coherent is not None else None
        outcome: dict[ItemKey, Item | BaseException | None] = {}
        # A key DynamoDB would refuse fails alone, not the page it would share.
        if not all(key.within_limits() for key in keys):
            refused = KeysRefused("batch_get_item", _OVER_LIMITS)
            outcome = {key: refused for key in keys if not key.within_limits()}
            keys_sent: Sequence[ItemKey] = [key for key in keys if key not in outcome]
        else:
            keys_sent = keys
        pages = self._dynamo.pages(keys_sent)
        answers = await asyncio.gather(
            *(self._dynamo.batch_get(page, consistent=self._consistent) for page in pages),
            return_exceptions=True,
        )
        read: dict[ItemKey, Item | None] = {}
        for page, answer in zip(pages, answers, strict=True):
            for key in page:
                if isinstance(answer, BaseException):
                    outcome[key] = answer
                elif key in answer.failed:
                    outcome[key] = answer.failed[key]
                else:
                    item = answer.found.get(key)
                    live = item if item is not None and is_live(item, self._now) else None
                    outcome[key] = read[key] = live
                    if live is not None and self._expiries is not None:
                        self._expiries.note(live.get("ttl"), key.table, key.pk)
        if self._coherent is not None:
            self._coherent.store_points(version, read)
        return [outcome[key] for key in keys]
