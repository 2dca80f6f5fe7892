"""A subscription's re-read (`schema/live/reread.py`): the subscription document executed,
for one changed user, with that `User` as the root value.

The root field's value is that user: strawberry resolves a subscription field to the root
value as it is (the event), so the schema's resolvers stay strawberry's own, and it is the
executor that prepares the root value, once, before the root field is resolved:

- the access plan for that user is made here, exactly as `Query.user`'s resolver makes it
  (`schema.access_plan.plan_reads`, from the root field's selection): before any of the
  user's reads is asked for, so before the one wait (one Query of the user's partition when
  the selection makes that cheaper than point reads);
- the user becomes the field's own class (the federation subgraph's entity is a subclass of
  `User`, `schema/federation.py`).

Both executors do it: graphql-core's reference path (`compiled_execution` off) is this
class as it is, and the compiled executor (`schema.execution.executor`) builds on it, so
that a user it sends back to graphql-core's path finds the same plan made. A plan that
fails (a User field that declares no reads) is the root field's error at its place, as a
resolver's would be: strawberry's resolver gives it as the field's value, and graphql-core
raises a value that is an exception.
"""

from __future__ import annotations

from typing import Any

from graphql import GraphQLObjectType, GraphQLOutputType, OperationType, get_named_type
from graphql.execution.collect_fields import GroupedFieldSet
from graphql.execution.incremental.incremental_executor import DeliveryGroupMap
from graphql.pyutils import AwaitableOrValue, Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from schema.access_plan import plan_reads
from schema.execution.plan import STRAWBERRY_DEFINITION
from schema.user import User

__all__ = ["RereadExecutionContext", "as_field_class"]


class RereadExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """strawberry's executor (`execution_context_class`), a re-read's root value planned."""

    def execute_root_grouped_field_set(
        self,
        root_type: GraphQLObjectType,
        root_value: Any,
        grouped_field_set: GroupedFieldSet,
        serially: bool,
        position_context: DeliveryGroupMap | None,
    ) -> AwaitableOrValue[dict[str, Any]]:
        if self.operation.operation == OperationType.SUBSCRIPTION and isinstance(root_value, User):
            root_value = self.reread_root(root_type, root_value, grouped_field_set)
        return super().execute_root_grouped_field_set(
            root_type, root_value, grouped_field_set, serially, position_context
        )

    def reread_root(
        self, root_type: GraphQLObjectType, user: User, grouped_field_set: GroupedFieldSet
    ) -> Any:
        """The root value a re-read of `user` executes its root field on: the user, its
        reads planned, as the field's own class (or the plan's error). Validation lets a
        subscription select one root field; anything else (none, once `@skip` applied) is
        executed on the user as it is."""
        if len(grouped_field_set) != 1:
            return user
        [(response_name, details)] = grouped_field_set.items()
        field_def = self.schema.get_field(root_type, details[0].node.name.value)
        if field_def is None:
            return user
        info = self.build_resolve_info(
            field_def,
            [detail.node for detail in details],
            root_type,
            Path(None, response_name, root_type.name),
        )
        try:
            plan_reads(info, [user.id])
        except Exception as error:  # the root field's error, at its place
            return error
        return as_field_class(user, field_def.type)


def as_field_class(user: User, field_type: GraphQLOutputType) -> User:
    """`user` as the class of the field's named type, when that is a kind of User."""
    named = get_named_type(field_type)
    definition = named.extensions.get(STRAWBERRY_DEFINITION) if named.extensions else None
    user_class = getattr(definition, "origin", User)
    if isinstance(user, user_class) or not (
        isinstance(user_class, type) and issubclass(user_class, User)
    ):
        return user
    return user_class(id=user.id)
