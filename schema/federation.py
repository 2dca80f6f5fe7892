"""The schema as an Apollo Federation 2 subgraph (`INSIGHT_FEDERATION`).

`User` becomes an entity, `@key(fields: "id")`, that a router resolves through `_entities`:
each representation is checked and read exactly as an id of `users(ids:)` is (the read rule
with FORBIDDEN at its place, the access plan, the request's loaders, so one DynamoDB wait for
any number of representations); the cost policy multiplies by `representations` as by `ids`.

The plain schema must not carry `@key` (its SDL is `schema.graphql`, and strawberry warns about
federation directives outside a federation schema), so the entity is a subclass of `User`
with the same name and fields, and the subgraph's `Query` is the gateway's with every `User`
it returns read as that entity.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Final, Literal

import strawberry
from strawberry.tools import create_type
from strawberry.types.base import (
    StrawberryList,
    StrawberryOptional,
    StrawberryType,
    get_object_definition,
)
from strawberry.types.field import StrawberryField

from loaders.errors import BadUserInput
from schema.access_plan import plan_user_reads
from schema.arguments import check_user_id
from schema.context import Info
from schema.permissions import require_reader
from schema.user import User

#: Only `@key` is used, which every Federation 2 router understands from v2.0 on.
FEDERATION_VERSION: Final[Literal["2.0"]] = "2.0"


@strawberry.federation.type(
    keys=["id"], name="User", description=get_object_definition(User, strict=True).description
)
class UserEntity(User):
    @classmethod
    def resolve_reference(cls, info: Info, id: Any = None) -> UserEntity:
        """The user a router's representation `{__typename: "User", id}` names. strawberry
        calls this once per representation and puts what it raises at that place only."""
        if not isinstance(id, str):
            raise BadUserInput("representations", "a User representation needs its id")
        user_id = check_user_id(id, "representations")
        require_reader(info, user_id)
        plan_user_reads(info, [user_id])
        return cls(id=strawberry.ID(user_id))


def _as_entity(field_type: StrawberryType | type) -> StrawberryType | type:
    """`field_type` with `User` read as the entity, through lists and nullability."""
    if field_type is User:
        return UserEntity
    if isinstance(field_type, StrawberryOptional):
        return StrawberryOptional(_as_entity(field_type.of_type))
    if isinstance(field_type, StrawberryList):
        return StrawberryList(_as_entity(field_type.of_type))
    return field_type


@cache
def with_entities(root: type) -> type:
    """The gateway's root type `root` (`Query`, `Subscription`), same fields, resolvers and
    descriptions, returning the entity (built once per process)."""
    definition = get_object_definition(root, strict=True)
    fields: list[StrawberryField] = []
    for field in definition.fields:
        entity_field = copy.copy(field)
        entity_field.type = _as_entity(field.type)
        fields.append(entity_field)
    return create_type(definition.name, fields, description=definition.description)
