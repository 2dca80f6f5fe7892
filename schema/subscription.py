"""The subscriptions (SPEC section 7): `userChanged` and `viewerChanged`.

A subscribe runs these resolvers once, through strawberry's own subscription path (the
limits, validation and the budget's charge first): they check the arguments and the read
rule, then register with the live hub. The events are not executed per subscriber: the
hub re-reads once per group of identical subscriptions, executing the same document with
the changed `User` as the root value: strawberry resolves the field to that value, and the
executor plans that user's reads first, as `Query.user` does (`schema.execution.executor`).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Annotated, TypeAlias

import strawberry

from loaders.errors import GatewayError
from schema.arguments import check_user_ids
from schema.context import Info
from schema.graphql_schema import graphql_schema
from schema.permissions import require_reader
from schema.prepared import owner_of
from schema.query import UserIds
from schema.user import User

__all__ = ["NOT_OVER_WEBSOCKET", "Subscription"]

NOT_OVER_WEBSOCKET = (
    "Subscriptions are served over a WebSocket on /graphql (the graphql-transport-ws "
    "protocol), when the gateway runs with INSIGHT_SUBSCRIPTIONS on"
)


class NotOverWebSocket(GatewayError):
    """A subscription executed anywhere but the gateway's WebSocket transport."""

    code = "BAD_REQUEST"
    default_message = NOT_OVER_WEBSOCKET


Initial: TypeAlias = Annotated[
    bool | None,
    strawberry.argument(
        description="First send each user's current state, then its changes (default: "
        "only changes)."
    ),
]


@strawberry.type(
    description="Live data over a WebSocket (graphql-transport-ws on /graphql): a User is "
    "sent again, read afresh with the subscription's own selection, each time an item its "
    "fields read changes, whoever wrote it, and at UTC midnight (when `payday` and the "
    "savings window change). An answer equal to the last one sent is not sent again."
)
class Subscription:
    @strawberry.subscription(
        description="Each of 1 to 100 users, whenever it changes. The read rule of "
        "`users(ids:)` applies, but a subscription naming a user the caller may not read "
        "is refused whole with FORBIDDEN, before anything is read."
    )
    async def user_changed(
        self, info: Info, ids: UserIds, initial: Initial = False
    ) -> AsyncIterator[User]:
        user_ids = check_user_ids([str(user_id) for user_id in ids])
        for user_id in user_ids:
            require_reader(info, user_id)
        return _watch(info, user_ids, bool(initial))

    @strawberry.subscription(
        description="The caller's own user (the token's `sub`), whenever it changes."
    )
    async def viewer_changed(self, info: Info, initial: Initial = False) -> AsyncIterator[User]:
        return _watch(info, [info.context.principal.sub], bool(initial))


def _watch(info: Info, user_ids: list[str], initial: bool) -> AsyncIterator[User]:
    session = info.context.live
    if session is None:
        raise NotOverWebSocket()
    return session.subscribe(
        principal=info.context.principal,
        user_ids=user_ids,
        initial=initial,
        cost=reread_cost(info, len(set(user_ids))),
    )


def reread_cost(info: Info, users: int) -> int:
    """What one re-read (one user) costs the subscriber's budget: the document's cost, as
    the cost limit measures it (its prepared operation's, for the coerced variables),
    shared among the users it watches (at least 1 point). A schema without prepared
    operations (not one `build_schema` made, so never the gateway's) charges that 1 point."""
    owner = owner_of(graphql_schema(info.schema))
    prepared = None if owner is None else owner.of_operation(info.operation)
    total = 0 if prepared is None else prepared.cost(info.variable_values)
    return max(1, math.ceil(total / max(users, 1)))
