"""The fault layer over the DynamoDB Streams API: a wrapper that injects the stream's errors
(expired iterators, trimmed data, throttling) into a real client's calls, and a synthetic
stream that serves a shard tree no local server makes (closed parents, split children,
trimmed records), with the same parameters, answers and `ClientError`s as the service."""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from loaders.live.streams import StreamsApi


def client_error(code: str, operation: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"injected {code}"}}, operation)


@dataclass
class Call:
    operation: str
    params: dict[str, Any]
    at: float
    #: GetRecords: the shard its iterator was for.
    shard_id: str | None = None


class Faults:
    """Errors to raise on the next calls of an operation, and every call made."""

    def __init__(self) -> None:
        self.pending: dict[str, list[str]] = defaultdict(list)
        self.calls: list[Call] = []

    def inject(self, operation: str, code: str, times: int = 1) -> None:
        self.pending[operation].extend([code] * times)

    def before(self, operation: str, params: dict[str, Any]) -> None:
        self.calls.append(Call(operation, dict(params), asyncio.get_running_loop().time()))
        if self.pending[operation]:
            raise client_error(self.pending[operation].pop(0), operation)

    def of(self, operation: str) -> list[Call]:
        return [call for call in self.calls if call.operation == operation]


class FaultyStreams:
    """A real streams client (moto's) with injected errors."""

    def __init__(self, api: StreamsApi) -> None:
        self._api = api
        self.faults = Faults()

    async def describe_stream(self, **params: Any) -> Any:
        self.faults.before("DescribeStream", params)
        return await self._api.describe_stream(**params)

    async def get_shard_iterator(self, **params: Any) -> Any:
        self.faults.before("GetShardIterator", params)
        return await self._api.get_shard_iterator(**params)

    async def get_records(self, **params: Any) -> Any:
        self.faults.before("GetRecords", params)
        return await self._api.get_records(**params)


@dataclass
class SyntheticShard:
    shard_id: str
    parent_id: str | None = None
    closed: bool = False
    #: (sequence number, partition key value, creation time) in order.
    records: list[tuple[int, str, datetime]] = field(default_factory=list)
    #: Records before this index are trimmed.
    trimmed: int = 0
    #: Every GetRecords answers a full page of new records (a busy shard).
    endless: bool = False


class SyntheticStream:
    """A stream with a shard tree, served through the three calls; `faults` as above.
    DescribeStream pages `page_size` shards at a time."""

    def __init__(self, *, partition_key: str = "PK", page_size: int = 2) -> None:
        self.shards: dict[str, SyntheticShard] = {}
        self.faults = Faults()
        self._partition_key = partition_key
        self._page_size = page_size
        self._sequence = itertools.count(100)
        self._iterators: dict[str, tuple[str, int]] = {}
        self._iterator_ids = itertools.count(1)

    def add_shard(self, shard_id: str, parent_id: str | None = None) -> SyntheticShard:
        shard = SyntheticShard(shard_id, parent_id)
        self.shards[shard_id] = shard
        return shard

    def write(self, shard_id: str, key: str, created: datetime | None = None) -> int:
        sequence = next(self._sequence)
        self.shards[shard_id].records.append((sequence, key, created or datetime.now(UTC)))
        return sequence

    def _record(self, sequence: int, key: str, created: datetime) -> dict[str, Any]:
        return {
            "eventName": "MODIFY",
            "dynamodb": {
                "ApproximateCreationDateTime": created,
                "Keys": {self._partition_key: {"S": key}, "SK": {"S": "x"}},
                "SequenceNumber": str(sequence),
                "StreamViewType": "KEYS_ONLY",
            },
        }

    async def describe_stream(self, **params: Any) -> Any:
        self.faults.before("DescribeStream", params)
        ids = list(self.shards)
        start = params.get("ExclusiveStartShardId")
        begin = ids.index(start) + 1 if start else 0
        page = ids[begin : begin + self._page_size]
        shards = []
        for shard_id in page:
            shard = self.shards[shard_id]
            described: dict[str, Any] = {
                "ShardId": shard_id,
                "SequenceNumberRange": {"StartingSequenceNumber": "1"},
            }
            if shard.parent_id:
                described["ParentShardId"] = shard.parent_id
            if shard.closed:
                described["SequenceNumberRange"]["EndingSequenceNumber"] = "9" * 20
            shards.append(described)
        description: dict[str, Any] = {"Shards": shards, "StreamStatus": "ENABLED"}
        if begin + self._page_size < len(ids):
            description["LastEvaluatedShardId"] = page[-1]
        return {"StreamDescription": description}

    async def get_shard_iterator(self, **params: Any) -> Any:
        self.faults.before("GetShardIterator", params)
        shard = self.shards.get(params["ShardId"])
        if shard is None:
            raise client_error("ResourceNotFoundException", "GetShardIterator")
        kind = params["ShardIteratorType"]
        if kind == "TRIM_HORIZON":
            index = shard.trimmed
        elif kind == "LATEST":
            index = len(shard.records)
        else:
            after = int(params["SequenceNumber"])
            sequences = [sequence for sequence, _, _ in shard.records]
            if after not in sequences or sequences.index(after) < shard.trimmed:
                raise client_error("TrimmedDataAccessException", "GetShardIterator")
            index = sequences.index(after) + 1
        return {"ShardIterator": self._iterator(shard.shard_id, index)}

    def _iterator(self, shard_id: str, index: int) -> str:
        iterator = f"it-{next(self._iterator_ids)}"
        self._iterators[iterator] = (shard_id, index)
        return iterator

    async def get_records(self, **params: Any) -> Any:
        self.faults.before("GetRecords", params)
        shard_id, index = self._iterators.pop(params["ShardIterator"])
        self.faults.calls[-1].shard_id = shard_id
        shard = self.shards[shard_id]
        if index < shard.trimmed:
            raise client_error("TrimmedDataAccessException", "GetRecords")
        limit = params.get("Limit", 1000)
        if shard.endless:
            for _ in range(limit):
                self.write(shard_id, "USERS#busy")
        page = shard.records[index : index + limit]
        answer: dict[str, Any] = {"Records": [self._record(*record) for record in page]}
        end = index + len(page)
        if not (shard.closed and end >= len(shard.records)):
            answer["NextShardIterator"] = self._iterator(shard_id, end)
        return answer
