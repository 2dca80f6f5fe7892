"""The `locks` table protocol of `cirello.io/dynamolock` v2, in asyncio.

A Go service holding a lock through dynamolock and the gateway exclude each other, so
everything that reaches DynamoDB is what the Go client sends:

- an item is `key` (S), `ownerName` (S), `leaseDuration` (S, Go's duration text, `1m0s`),
  `recordVersionNumber` (S, `<unix nanoseconds>:<random base32>`, fresh on every acquire
  and heartbeat), `data` (B, only when there is data) and `isReleased` (S `"1"`, only on a
  released item that was kept);
- acquire reads the item (consistent read); when it is absent or released, PutItem
  conditioned on `attribute_not_exists(key) OR (attribute_exists(key) AND isReleased = "1")`;
- a lock held by someone else is taken over only once its `recordVersionNumber` has stayed
  the same for the holder's whole `leaseDuration`, measured on this process's monotonic
  clock from when the version was first seen, by a PutItem conditioned on that version;
- heartbeat: UpdateItem setting `leaseDuration` and a new `recordVersionNumber`,
  conditioned on the key existing with our owner name and current version;
- release: DeleteItem under the same condition, or (keeping the item) UpdateItem setting
  `isReleased` = `"1"`.
"""

from loaders.lock.client import LockClient
from loaders.lock.item import random_name
from loaders.lock.state import Lock, LockLost, LockNotGranted

__all__ = ["Lock", "LockClient", "LockLost", "LockNotGranted", "random_name"]
