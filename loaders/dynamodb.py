"""`Dynamo`: the one door to DynamoDB. Every call goes through it, so errors are wrapped,
concurrency is bounded, the request's deadline is kept and calls are observed in one place.

The process has one `Dynamo`; a request uses it bound to its `RequestScope` (`Dynamo.bound`),
which gives the deadline its calls keep and the log they are recorded in."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from loaders.attempts import ATTEMPTS_PARAM, count_attempt, take_attempts
from loaders.backoff import Backoff
from loaders.call_events import AbandonedBatch as AbandonedBatch
from loaders.call_events import AbandonObserver as AbandonObserver
from loaders.call_events import CallObserver as CallObserver
from loaders.call_events import FinishedCall as FinishedCall
from loaders.codec import Item, WireItem, from_wire, to_wire
from loaders.dynamodb_errors import ConditionFailed as ConditionFailed
from loaders.dynamodb_errors import DynamoDBFailure as DynamoDBFailure
from loaders.dynamodb_errors import TransactionCanceled as TransactionCanceled
from loaders.dynamodb_errors import classify
from loaders.errors import DynamoDBUnavailable
from loaders.keys import ItemKey, QueryKey
from loaders.parameters import invalid_parameters
from loaders.request_scope import RequestScope
from loaders.tables import Table, TableNames
from loaders.wire.client import OPERATIONS as LEAN_OPERATIONS
from loaders.wire.client import LeanClient, Sleep
from loaders.wire.endpoint import WireSettings

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

#: The call paths (`INSIGHT_DYNAMODB_CALL_PATH`): the read operations sent by the lean
#: client (loaders/wire/), or every call through botocore.
LEAN = "lean"
BOTOCORE = "botocore"
CALL_PATHS = (LEAN, BOTOCORE)

__all__ = [
    "BATCH_GET_LIMIT",
    "BATCH_WRITE_LIMIT",
    "BOTOCORE",
    "CALL_PATHS",
    "LEAN",
    "AbandonObserver",
    "AbandonedBatch",
    "BatchGot",
    "CallObserver",
    "ConditionFailed",
    "Dynamo",
    "DynamoDBFailure",
    "FinishedCall",
    "TransactionCanceled",
]

#: BatchGetItem takes at most 100 keys a call, BatchWriteItem 25 items.
BATCH_GET_LIMIT = 100
BATCH_WRITE_LIMIT = 25
#: The pause before re-sending unprocessed keys or items: 25 ms, doubling up to 1 s.
_UNPROCESSED_BACKOFF = Backoff(0.025, 1.0)


@dataclass(frozen=True, slots=True)
class BatchGot:
    """A BatchGetItem's outcome: the items read, and the keys that could not be read."""

    found: dict[ItemKey, Item]
    failed: dict[ItemKey, DynamoDBUnavailable]


class Dynamo:
    """The process-wide DynamoDB door, over one aioboto3 client opened in the lifespan;
    `bound(scope)` is the same door for one request.

    `max_concurrency` caps calls in flight to match the client's connection pool, so a wide
    request waits here, in order, instead of inside botocore's pool; by default it is that
    pool's size. `call_path`: `LEAN` sends GetItem, BatchGetItem and Query through
    `loaders.wire` (configured by `wire`, the values the client was built with; None: the
    client's public `meta`), unless that configuration is one it cannot follow
    (`WireSettings.refusal`); `BOTOCORE` sends them through the client like every other
    call. `credentials`: what the lean path signs with (botocore's credentials object, the
    session's public `get_credentials()`; None: the default chain's). `retry_sleep`: the
    lean path's pause between attempts (a test records them).
    """

    def __init__(
        self,
        client: DynamoDBClient,
        tables: TableNames,
        *,
        max_concurrency: int | None = None,
        unprocessed_deadline: float = 5.0,
        query_page_size: int | None = None,
        call_path: str = LEAN,
        wire: WireSettings | None = None,
        credentials: Any | None = None,
        retry_sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.client = client
        self.tables = tables
        #: Called after every call, success or failure (metrics, per-request accounting).
        #: An observer must be quick and must not raise.
        self.observers: list[CallObserver] = []
        #: Called when a batch is given up with keys or items still unprocessed.
        self.abandon_observers: list[AbandonObserver] = []
        #: The request this door is bound to (`bound`); None: the process's own calls.
        self.scope: RequestScope | None = None
        client.meta.events.register(
            "provide-client-params.dynamodb", take_attempts, unique_id="gateway-dynamo-take"
        )
        client.meta.events.register(
            "request-created.dynamodb", count_attempt, unique_id="gateway-dynamo-attempts"
        )
        self._table_of_name = {name: table for table, name in tables.all().items()}
        if max_concurrency is None:
            # botocore sets every option on its Config, but its stubs do not declare them.
            pool: int = getattr(client.meta.config, "max_pool_connections")  # noqa: B009
            max_concurrency = pool
        self.max_concurrency = max_concurrency
        self._slots = asyncio.Semaphore(max_concurrency)
        self._unprocessed_deadline = unprocessed_deadline
        # None: DynamoDB's own 1 MB pages.
        self._query_page_size = query_page_size
        if call_path not in CALL_PATHS:
            raise ValueError(f"call_path: one of {CALL_PATHS}, not {call_path!r}")
        # A wrapper around a client (some tests slow one down) keeps the botocore path, and
        # so does a configuration the lean path cannot follow (WireSettings.refusal).
        self._lean: LeanClient | None = None
        if call_path == LEAN and LeanClient.serves(client):
            wire = wire or WireSettings.of_client(client)
            if wire.refusal() is None:
                self._lean = LeanClient(client, wire, credentials=credentials, sleep=retry_sleep)

    def bound(self, scope: RequestScope) -> Dynamo:
        """This door for one request: the same client, in-flight cap and observers, its
        calls kept to `scope.deadline` and recorded in `scope.calls`."""
        bound = copy.copy(self)
        bound.scope = scope
        return bound

    def past_deadline(self) -> Dynamo:
        """This door with the request's deadline lifted, its calls still in its log: for
        what must be sent even after the request ran out of time (a lock's release; else
        the lock stays held for its whole lease). botocore's timeouts still bound it."""
        if self.scope is None or self.scope.deadline is None:
            return self
        return self.bound(dataclasses.replace(self.scope, deadline=None))

    async def call(self, operation: str, **params: Any) -> dict[str, Any]:
        """Send one DynamoDB operation (by its client method name), wrapping its errors.

        The wait for a slot and the call (botocore's retries included) both count against
        the bound request's deadline (`RequestScope.deadline`); past it the call is
        abandoned."""
        scope = self.scope
        log = None if scope is None else scope.calls
        logged = log.issue(operation) if log is not None else None
        attempts = [0]
        started = time.monotonic()
        response: dict[str, Any] | None = None
        failure: BaseException | None = None
        try:
            async with asyncio.timeout_at(None if scope is None else scope.deadline), self._slots:
                response = await self._send(operation, params, attempts)
            return response
        except ClientError as error:
            failure = classify(operation, error)
            raise failure from error
        except (BotoCoreError, TimeoutError, OSError) as error:
            failure = DynamoDBUnavailable(cause=error)
            raise failure from error
        except (AttributeError, TypeError, ValueError) as error:
            # botocore's own check is off (gateway/resources.py): name the bad parameter.
            report = invalid_parameters(self.client, operation, params)
            if report is None:
                raise
            failure = DynamoDBFailure(f"{operation} not sent: {report}")
            raise failure from error
        finally:
            if logged is not None:
                assert log is not None
                log.answer(logged, response)
            record = FinishedCall(
                operation=operation,
                params=params,
                seconds=time.monotonic() - started,
                attempts=attempts[0],
                response=response,
                error=failure,
            )
            for observer in self.observers:
                observer(record)

    async def _send(self, operation: str, params: dict[str, Any], attempts: list[int]) -> Any:
        """The one dispatch point: the lean client's operations through it, the rest (and
        everything on the botocore path) through the aioboto3 client."""
        if self._lean is not None and operation in LEAN_OPERATIONS:
            return await self._lean.send(operation, params, attempts)
        return await getattr(self.client, operation)(**params, **{ATTEMPTS_PARAM: attempts})

    # --- reads ------------------------------------------------------------------------

    @staticmethod
    def pages(keys: Sequence[ItemKey]) -> list[list[ItemKey]]:
        """The distinct keys in BatchGetItem-sized pages, in first-seen order."""
        distinct = list(dict.fromkeys(keys))
        return [
            distinct[start : start + BATCH_GET_LIMIT]
            for start in range(0, len(distinct), BATCH_GET_LIMIT)
        ]

    async def batch_get(self, keys: Sequence[ItemKey], *, consistent: bool = False) -> BatchGot:
        """Read up to 100 keys, across tables, in one BatchGetItem, re-requesting
        `UnprocessedKeys` with jittered exponential backoff until done or the deadline.

        Keys with no item are absent from `found`. When a round fails or the deadline
        passes, the keys read so far stay read and only those still unread are `failed`
        (DynamoDB leaves a hot partition's keys unprocessed and serves the others); a
        first call that fails fails every key. `consistent`: strongly consistent reads
        (twice the read capacity; the subscriptions' re-reads)."""
        if len(keys) > BATCH_GET_LIMIT:
            raise ValueError(f"at most {BATCH_GET_LIMIT} keys a BatchGetItem")
        request: dict[str, Any] = {}
        for key in keys:
            table = request.setdefault(self.tables.name(key.table), {"Keys": []})
            table["Keys"].append(key.attributes())
            if consistent:
                table["ConsistentRead"] = True
        found: dict[ItemKey, Item] = {}
        started = asyncio.get_running_loop().time()
        deadline = started + self._unprocessed_deadline
        attempt = 0
        while request:
            try:
                if attempt:
                    await self._backoff(attempt, deadline)
            except DynamoDBUnavailable as error:
                self._abandoned("batch_get_item", request, "Keys", attempt, started)
                return BatchGot(found, dict.fromkeys(self._keys_of(request), error))
            try:
                response = await self.call(
                    "batch_get_item", RequestItems=request, ReturnConsumedCapacity="TOTAL"
                )
            except DynamoDBUnavailable as error:
                return BatchGot(found, dict.fromkeys(self._keys_of(request), error))
            for table_name, wire_items in response.get("Responses", {}).items():
                table = self._table_of_name[table_name]
                for wire in wire_items:
                    item = from_wire(wire)
                    found[self.key_of(table, item)] = item
            request = response.get("UnprocessedKeys") or {}
            attempt += 1
        return BatchGot(found, {})

    def _abandoned(
        self,
        operation: str,
        request: Mapping[str, Any],
        entries: str | None,
        rounds: int,
        started: float,
    ) -> None:
        left = sum(
            len(table[entries] if entries is not None else table) for table in request.values()
        )
        record = AbandonedBatch(
            operation=operation,
            tables=tuple(request),
            left=left,
            rounds=rounds,
            seconds=asyncio.get_running_loop().time() - started,
        )
        for observer in self.abandon_observers:
            observer(record)

    def _keys_of(self, request: Mapping[str, Any]) -> list[ItemKey]:
        """The ItemKeys of a BatchGetItem's RequestItems (wire form)."""
        return [
            self.key_of(self._table_of_name[name], from_wire(key))
            for name, table_request in request.items()
            for key in table_request["Keys"]
        ]

    async def _backoff(self, attempt: int, deadline: float) -> None:
        """Jittered exponential backoff before re-sending unprocessed keys or items;
        gives up rather than sleep past this batch's deadline or the request's (both on
        the event loop's clock)."""
        delay = _UNPROCESSED_BACKOFF.pause(attempt)
        wake = asyncio.get_running_loop().time() + delay
        request_deadline = None if self.scope is None else self.scope.deadline
        if wake > deadline or (request_deadline is not None and wake > request_deadline):
            raise DynamoDBUnavailable(cause=TimeoutError("unprocessed keys past the deadline"))
        await asyncio.sleep(delay)

    async def query(
        self,
        query: QueryKey,
        keep: Callable[[list[WireItem]], list[Any]],
        *,
        consistent: bool = False,
    ) -> list[Any]:
        """What `keep` keeps of each page's items (in DynamoDB's wire form, for the caller to
        decode), following `LastEvaluatedKey`, and stopping as soon as `query.limit` of them
        are in hand; `consistent`: a strongly consistent Query."""
        partition, sort = query.table.key_names
        params: dict[str, Any] = {
            "TableName": self.tables.name(query.table),
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": partition},
            "ExpressionAttributeValues": {":pk": {"S": query.pk}},
            "ScanIndexForward": not query.newest_first,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if consistent:
            params["ConsistentRead"] = True
        if query.sk_prefix:
            assert sort is not None
            params["KeyConditionExpression"] += " AND begins_with(#sk, :prefix)"
            params["ExpressionAttributeNames"]["#sk"] = sort
            params["ExpressionAttributeValues"][":prefix"] = {"S": query.sk_prefix}
        kept: list[Any] = []
        while True:
            if query.limit is not None:
                params["Limit"] = query.limit - len(kept)
            elif self._query_page_size is not None:
                params["Limit"] = self._query_page_size
            response = await self.call("query", **params)
            kept += keep(response.get("Items", []))
            if query.limit is not None and len(kept) >= query.limit:
                return kept[: query.limit]
            last = response.get("LastEvaluatedKey")
            if not last:
                return kept
            params["ExclusiveStartKey"] = last

    def key_of(self, table: Table, item: Mapping[str, Any]) -> ItemKey:
        partition, sort = table.key_names
        return ItemKey(table, item[partition], item[sort] if sort is not None else None)

    # --- writes -----------------------------------------------------------------------

    async def put(self, table: Table, item: Item) -> None:
        """PutItem of a python-value item, unconditional."""
        await self.call("put_item", TableName=self.tables.name(table), Item=to_wire(item))

    async def put_many(self, items: Sequence[tuple[Table, Item]]) -> None:
        """Unconditional puts in BatchWriteItem calls of 25, re-sending unprocessed items
        (seeding and bulk loads; writer paths stage theirs in `Writes`)."""
        for start in range(0, len(items), BATCH_WRITE_LIMIT):
            request: dict[str, Any] = {}
            for table, item in items[start : start + BATCH_WRITE_LIMIT]:
                writes = request.setdefault(self.tables.name(table), [])
                writes.append({"PutRequest": {"Item": to_wire(item)}})
            started = asyncio.get_running_loop().time()
            deadline = started + self._unprocessed_deadline
            attempt = 0
            while request:
                if attempt:
                    try:
                        await self._backoff(attempt, deadline)
                    except DynamoDBUnavailable:
                        self._abandoned("batch_write_item", request, None, attempt, started)
                        raise
                response = await self.call("batch_write_item", RequestItems=request)
                request = response.get("UnprocessedItems") or {}
                attempt += 1
