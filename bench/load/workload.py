"""The load's requests and how each answer is judged.

80% frontend `viewer` queries (each seeded user with a token of its own), 10% dashboard
`users(ids:)` of 25 (a dashboard token), 10% `recordLastPage` mutations (each to a user
of its own, so its answer is exactly its input and it can be read back from DynamoDB).
A read is right when it equals its fault-free answer, read once before the run, except
fields that are null with a DYNAMODB_UNAVAILABLE error at exactly their path.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import aioboto3
from aiobotocore.config import AioConfig

from bench.load.topology import SECRET
from gateway.auth.tokens import mint_token
from gateway.cli.examples import DASHBOARD_QUERY, FRONTEND_QUERY
from gateway.settings import Settings
from loaders import entities
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import DASHBOARD, WRITER
from support.seed import seed_users

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

USERS = [f"load-{n:03d}" for n in range(100)]
DASHBOARD_SIZE = 25
DASHBOARDS = 8
UNAVAILABLE = "DYNAMODB_UNAVAILABLE"

LAST_PAGE = """mutation($input: RecordLastPageInput!) {
  recordLastPage(input: $input) { paveRequestId page } }"""

VIEWER, USERS_25, MUTATION = "viewer", "users(ids: 25)", "mutation"
CLASSES = (VIEWER, USERS_25, MUTATION)


@dataclass(frozen=True, slots=True)
class Job:
    kind: str
    #: What the answer is checked against: a user id, a dashboard's index, a write's user.
    subject: str
    token: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Tokens:
    viewers: dict[str, str]
    dashboard: str


def tokens() -> Tokens:
    clock, hours = SystemClock(), timedelta(hours=3)
    return Tokens(
        viewers={user: mint_token(SECRET, user, [], hours, clock) for user in USERS},
        dashboard=mint_token(SECRET, "load-dashboard", [DASHBOARD, WRITER], hours, clock),
    )


def dashboards() -> list[list[str]]:
    rng = random.Random(25)
    return [rng.sample(USERS, DASHBOARD_SIZE) for _ in range(DASHBOARDS)]


def jobs(count: int, phase: str, seed: int, given: Tokens) -> Iterator[Job]:
    rng = random.Random(seed)
    boards = dashboards()
    for index in range(count):
        roll = rng.random()
        if roll < 0.8:
            user = rng.choice(USERS)
            body: dict[str, Any] = {"query": FRONTEND_QUERY}
            yield Job(VIEWER, user, given.viewers[user], body)
        elif roll < 0.9:
            board = rng.randrange(len(boards))
            body = {"query": DASHBOARD_QUERY, "variables": {"ids": boards[board]}}
            yield Job(USERS_25, str(board), given.dashboard, body)
        else:
            writer = f"load-w-{phase}-{index}"
            payload = {"userId": writer, "paveRequestId": f"req-{index}", "page": index % 97 + 1}
            body = {"query": LAST_PAGE, "variables": {"input": payload}}
            yield Job(MUTATION, writer, given.dashboard, body)


def baseline_jobs(given: Tokens) -> list[Job]:
    """One of every read the load sends: their fault-free answers are the expectations."""
    viewers = [Job(VIEWER, u, given.viewers[u], {"query": FRONTEND_QUERY}) for u in USERS]
    boards = [
        Job(USERS_25, str(n), given.dashboard, {"query": DASHBOARD_QUERY, "variables": {"ids": b}})
        for n, b in enumerate(dashboards())
    ]
    return viewers + boards


def expected_key(job: Job) -> tuple[str, str]:
    return job.kind, job.subject


def differences(
    want: Any, got: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """The outermost paths where `got` differs from `want`, with got's value there."""
    if isinstance(want, dict) and isinstance(got, dict) and want.keys() == got.keys():
        for name in want:
            yield from differences(want[name], got[name], (*path, name))
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for index, (w, g) in enumerate(zip(want, got, strict=True)):
            yield from differences(w, g, (*path, index))
    elif want != got:
        yield path, got


def at(data: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def verdict(job: Job, body: dict[str, Any], expected: dict[tuple[str, str], Any]) -> str | None:
    """None for a right answer, else why it is wrong. Never blank: `data` and its root
    field are always there; errors only DYNAMODB_UNAVAILABLE, each at a null field of a
    User (or the mutation), and only there may the answer differ from its fault-free one."""
    errors = body.get("errors") or []
    data = body.get("data")
    if not isinstance(data, dict) or len(data) != 1:
        return f"blank answer: {str(body)[:200]}"
    root = next(iter(data))
    error_paths = set()
    for error in errors:
        code = (error.get("extensions") or {}).get("code")
        path = tuple(error.get("path") or ())
        if code != UNAVAILABLE:
            return f"error {code} at {path}"
        error_paths.add(path)
    if job.kind == MUTATION:
        given = job.body["variables"]["input"]
        want = {"paveRequestId": given["paveRequestId"], "page": given["page"]}
        if error_paths:
            ok = error_paths == {(root,)} and data[root] is None
            return None if ok else f"mutation errors at {sorted(error_paths)}: {data}"
        return None if data[root] == want else f"wrote {data[root]}, not {want}"
    if data[root] is None:
        return f"blank answer: {root} is null"
    if job.kind == USERS_25 and any(user is None for user in data[root]):
        return "a user of the list is null"
    for path in error_paths:
        if len(path) < 2 or at(data, path) is not None:
            return f"an error at {path} whose field is not null"
    for where, value in differences(expected[expected_key(job)], data):
        if value is not None or where not in error_paths:
            return f"differs at {where} without an error there"
    return None


# --- the data -----------------------------------------------------------------------------


@asynccontextmanager
async def local_client(endpoint: str) -> AsyncIterator[DynamoDBClient]:
    """A client of the run's own dynalite (any credentials do)."""
    config = AioConfig(max_pool_connections=16, retries={"mode": "standard"})
    session: aioboto3.Session = aioboto3.Session()
    async with session.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="load",
        aws_secret_access_key="load",
        config=config,
    ) as client:
        yield client


async def seed(endpoint: str) -> int:
    """The five tables (TTL off, as the bench does) and the load's users."""
    async with local_client(endpoint) as client:
        names = TableNames()
        await create_tables(client, names, ttl=False, streams=False)
        dynamo = Dynamo(client, names)
        return await seed_users(dynamo, USERS, datetime.now(UTC), Settings())


async def lost_writes(endpoint: str, written: list[Job]) -> list[str]:
    """The answered writes that are not in DynamoDB as answered (read straight from it)."""
    lost: list[str] = []
    async with local_client(endpoint) as client:
        dynamo = Dynamo(client, TableNames())
        by_key = {}
        for job in written:
            given = job.body["variables"]["input"]
            key = entities.LAST_PAGE.key(
                user_id=given["userId"], pave_request_id=given["paveRequestId"]
            )
            by_key[key] = given["page"]
        pages = dynamo.pages(list(by_key))
        answers = await asyncio.gather(*(dynamo.batch_get(page) for page in pages))
        for answer in answers:
            if answer.failed:
                lost += [f"not read back: {key}" for key in answer.failed]
        found = {key: item for answer in answers for key, item in answer.found.items()}
        for key, page in by_key.items():
            item = found.get(key)
            if item is None or item.get("page") != page:
                lost.append(f"{key.pk} {key.sk}: {item and item.get('page')} instead of {page}")
    return lost
