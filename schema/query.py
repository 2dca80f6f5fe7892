from __future__ import annotations

import strawberry

from loaders.errors import Forbidden
from schema.access_plan import plan_user_reads
from schema.arguments import check_user_id, check_user_ids
from schema.context import Info
from schema.permissions import require_reader
from schema.user import User


def readable_user(info: Info, user_id: str) -> User:
    """The User for `user_id`, if the caller may read it; its rows are read only then."""
    require_reader(info, user_id)
    return User(id=strawberry.ID(user_id))


def user_or_refusal(info: Info, user_id: str) -> User | Forbidden:
    """A list item: the User, or the refusal that GraphQL turns into null at the item's
    own place with FORBIDDEN (an exception as a list item fails only that item)."""
    try:
        return readable_user(info, user_id)
    except Forbidden as refusal:
        return refusal


@strawberry.type
class Query:
    @strawberry.field(description="A user; one with no rows has null or empty fields.")
    def user(self, info: Info, id: strawberry.ID) -> User | None:
        user = readable_user(info, check_user_id(id))
        plan_user_reads(info, [user.id])
        return user

    @strawberry.field(
        description="1 to 100 users, in the order asked, duplicates kept.",
        graphql_type=list[User | None],
    )
    def users(self, info: Info, ids: list[strawberry.ID]) -> list[User | Forbidden]:
        users = [user_or_refusal(info, user_id) for user_id in check_user_ids(list(ids))]
        plan_user_reads(info, [user.id for user in users if isinstance(user, User)])
        return users

    @strawberry.field(description="The caller's own user (the token's `sub`).")
    def viewer(self, info: Info) -> User:
        user = readable_user(info, info.context.principal.sub)
        plan_user_reads(info, [user.id])
        return user
