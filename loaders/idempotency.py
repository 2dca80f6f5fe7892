"""The gateway's table of idempotency keys (SPEC section 9): one record per (token `sub`,
key), holding the first answer, written in the same transaction as the mutation's effect.

The partition key is a digest of the pair, so that a `sub` of any length or alphabet keys a
bounded, unambiguous item (the key itself is printable ASCII, so the NUL between the two
cannot occur in it); the pair is kept beside it in plain text for operators.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from loaders.codec import Item, epoch_seconds, format_instant, from_wire
from loaders.dynamodb import Dynamo
from loaders.tables import Table
from loaders.transactions import Staged

__all__ = [
    "ABSENT_OR_EXPIRED",
    "COMPRESS_ABOVE_BYTES",
    "MAX_STORED_ANSWER_BYTES",
    "AnswerTooLarge",
    "Recorded",
    "new_record",
    "read_record",
    "record_key",
]

#: Answers longer than this are stored compressed.
COMPRESS_ABOVE_BYTES = 4096
#: The largest stored answer: an item is at most 400 KB, and the record has other attributes.
MAX_STORED_ANSWER_BYTES = 380_000
#: The record's Put: absent, or expired (DynamoDB deletes expired items late).
ABSENT_OR_EXPIRED = "attribute_not_exists(#key) OR #ttl <= :now"


class AnswerTooLarge(Exception):
    """The answer, compressed, does not fit in a record: nothing may be written."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes stored, over {MAX_STORED_ANSWER_BYTES}")
        self.size = size


def record_key(sub: str, key: str) -> str:
    return hashlib.sha256(f"{sub}\0{key}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Recorded:
    """A key's record: the operation's fingerprint and its first answer, as sent."""

    sub: str
    key: str
    fingerprint: str
    #: The answer's HTTP status.
    status: int
    #: The answer's JSON (`data` and `errors`) as sent, uncompressed.
    answer: bytes
    created_at: datetime
    #: Epoch seconds: the record is absent from then on.
    ttl: int

    @property
    def partition(self) -> str:
        return record_key(self.sub, self.key)

    def client_request_token(self) -> str:
        """The transaction's ClientRequestToken (36 characters at most): the same for a
        commit resent with the same record, different for every other run."""
        seed = f"{self.partition}\0{self.fingerprint}\0{format_instant(self.created_at)}"
        return hashlib.sha256(seed.encode()).hexdigest()[:36]

    def to_item(self) -> Item:
        stored = self.answer
        encoding = "json"
        if len(stored) > COMPRESS_ABOVE_BYTES:
            stored = zlib.compress(stored, 6)
            encoding = "zlib+json"
        if len(stored) > MAX_STORED_ANSWER_BYTES:
            raise AnswerTooLarge(len(stored))
        return {
            "key": self.partition,
            "sub": self.sub,
            "idempotency_key": self.key,
            "fingerprint": self.fingerprint,
            "status": self.status,
            "answer": stored,
            "encoding": encoding,
            "created_at": format_instant(self.created_at, microseconds=True),
            "ttl": self.ttl,
        }

    @classmethod
    def from_item(cls, item: Item) -> Recorded:
        stored = bytes(item["answer"])
        answer = zlib.decompress(stored) if item.get("encoding") == "zlib+json" else stored
        return cls(
            sub=str(item["sub"]),
            key=str(item["idempotency_key"]),
            fingerprint=str(item["fingerprint"]),
            status=int(item["status"]),
            answer=answer,
            created_at=datetime.fromisoformat(str(item["created_at"])),
            ttl=int(item["ttl"]),
        )

    def staged(self, now: datetime) -> Staged:
        """The record's Put in the mutation's transaction (raises AnswerTooLarge)."""
        return Staged(
            Table.IDEMPOTENCY,
            self.to_item(),
            condition=ABSENT_OR_EXPIRED,
            names={"#key": "key", "#ttl": "ttl"},
            values={":now": epoch_seconds(now)},
            is_record=True,
        )


def new_record(
    *,
    sub: str,
    key: str,
    fingerprint: str,
    status: int,
    answer: bytes,
    now: datetime,
    lifetime: timedelta,
) -> Recorded:
    return Recorded(sub, key, fingerprint, status, answer, now, epoch_seconds(now + lifetime))


async def read_record(dynamo: Dynamo, sub: str, key: str, now: datetime) -> Recorded | None:
    """The key's record as committed (strongly consistent), None when absent or expired:
    expiry is checked here, since DynamoDB deletes expired items up to days late."""
    answer = await dynamo.call(
        "get_item",
        TableName=dynamo.tables.name(Table.IDEMPOTENCY),
        Key={"key": {"S": record_key(sub, key)}},
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    wire = answer.get("Item")
    if wire is None:
        return None
    record = Recorded.from_item(from_wire(wire))
    return record if record.ttl > epoch_seconds(now) else None
