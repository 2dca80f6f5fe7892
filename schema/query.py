from __future__ import annotations

from typing import Annotated, TypeAlias

import strawberry

from loaders.errors import BadUserInput
from schema.access_plan import plan_user_reads
from schema.arguments import check_id_count, check_user_id
from schema.context import Info
from schema.errors import Forbidden
from schema.permissions import require_reader
from schema.user import User


def readable_user(info: Info, user_id: str) -> User:
    """The User for `user_id`, if the caller may read it; its rows are read only then."""
    require_reader(info, user_id)
    return User(id=strawberry.ID(user_id))


def user_or_refusal(info: Info, user_id: str) -> User | Forbidden | BadUserInput:
    """A list item: the User, or the refusal that GraphQL turns into null at the item's
    own place with FORBIDDEN or BAD_USER_INPUT (an exception as a list item fails only
    that item)."""
    try:
        return readable_user(info, check_user_id(user_id, "ids"))
    except (Forbidden, BadUserInput) as refusal:
        return refusal


UserId: TypeAlias = Annotated[
    strawberry.ID,
    strawberry.argument(description="The user's id, the `<user_id>` of the tables' keys."),
]
UserIds: TypeAlias = Annotated[
    list[strawberry.ID],
    strawberry.argument(
        description="1 to 100 user ids, duplicates allowed. Each multiplies the query's cost."
    ),
]


@strawberry.type(
    description="The reads. Every request needs a bearer token: an end user reads only "
    "their own user, a `dashboard` token any user."
)
class Query:
    @strawberry.field(
        description="One user, if the caller may read it; else null with FORBIDDEN. A user "
        "with no rows is still a User, whose fields are null or empty."
    )
    def user(self, info: Info, id: UserId) -> User | None:
        user = readable_user(info, check_user_id(id))
        plan_user_reads(info, [user.id])
        return user

    @strawberry.field(
        description="1 to 100 users at once, in the order of `ids`, duplicates kept; an id "
        "the caller may not read is null with FORBIDDEN at its place, an id over 256 "
        "characters (or 1,000 bytes) null with BAD_USER_INPUT. All their rows are "
        "read together, in one DynamoDB wait.",
        graphql_type=list[User | None],
    )
    def users(self, info: Info, ids: UserIds) -> list[User | Forbidden | BadUserInput]:
        users = [user_or_refusal(info, user_id) for user_id in check_id_count(list(ids))]
        plan_user_reads(info, [user.id for user in users if isinstance(user, User)])
        return users

    @strawberry.field(description="The caller's own user: the token's `sub`.")
    def viewer(self, info: Info) -> User:
        user = readable_user(info, info.context.principal.sub)
        plan_user_reads(info, [user.id])
        return user
