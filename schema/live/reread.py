"""The re-read: one group's document executed for its user, now, strongly consistent,
through the request machinery (a Context, the loaders, the access plan, the planned
execution), over the reads it shares with the re-reads started in the same tick
(`schema.live.shared_reads`), and its answer handed to the subscribers it was read for."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types.graphql import OperationType

from schema.live.groups import Group, GroupKey
from schema.live.ports import Payload
from schema.live.shared_reads import SharedReads
from schema.live.subscriber import Subscriber
from schema.principal import DASHBOARD, Principal
from schema.user import User


async def read_answer(
    schema: strawberry.Schema,
    reads: SharedReads,
    key: GroupKey,
    variables: dict[str, Any] | None,
) -> tuple[Payload, float | None]:
    """One user's answer to the group's document, read now, strongly consistent, and
    when the first item it read of that user expires (epoch seconds; None: none has a
    TTL)."""
    roles = frozenset({DASHBOARD}) if key.scope == DASHBOARD else frozenset()
    context, shared = reads.join(Principal(sub=key.user_id, roles=roles), key.user_id)
    try:
        result = await schema.execute(
            key.query,
            variable_values=variables,
            context_value=context,
            root_value=User(id=strawberry.ID(key.user_id)),
            operation_name=key.operation_name,
            allowed_operation_types=(OperationType.SUBSCRIPTION,),
        )
        expiries = context.reads.expiries
        earliest = expiries.earliest_of(key.user_id) if expiries is not None else None
    finally:
        reads.leave(shared)
    payload: Payload = {"data": result.data}
    if result.errors:
        payload["errors"] = [error.formatted for error in result.errors]
    return payload, float(earliest) if earliest is not None else None


def unavailable(payload: Payload) -> bool:
    """DynamoDB did not answer the whole re-read (a field failed with DYNAMODB_UNAVAILABLE)."""
    errors = payload.get("errors") or ()
    return any(
        (error.get("extensions") or {}).get("code") == "DYNAMODB_UNAVAILABLE" for error in errors
    )


def hand_out(group: Group, targets: set[Subscriber], payload: Payload) -> None:
    """Give `payload` to each of `targets` still in the group. An answer equal to the
    group's last one is replaced by it, so that each subscriber finds it unchanged by
    identity, and the deep comparison is made once per group."""
    if payload == group.last:
        payload = group.last
    group.last = payload
    for subscriber in targets & group.subscribers:
        subscriber.offer(group.key.user_id, payload)
