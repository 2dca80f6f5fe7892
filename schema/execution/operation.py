"""The compiled operation: what one prepared document's operation does, found once (by
`schema.execution.compiler`) and kept with its prepared operation (`schema.prepared`), for
each set of `@include`/`@skip` values.

An operation compiles when each of its root fields is `user(id:)`, `users(ids:)`, `viewer`,
the federation subgraph's `_entities` or `__typename` (a query), or is a subscription's one
root field re-read for a changed user, and every field selected under them is plain or
planned (`schema.execution.plan`): no directive but `@include`/`@skip`, no fragment on
another type, no introspection. Then it is:

- per root field, the users it answers (its arguments coerced, the ids checked, the read
  rule applied) and the access plan of its User selection (`schema.access_plan`);
- for the User selection, its completion: a generated function (`schema.execution.generated`)
  of the plain fields' reads and coercions, nested objects and lists included, and of the
  planned fields' values, whose resolvers are called with their arguments bound, for every
  user of every root field, before anything is awaited.

`run` asks every read of the operation, waits once on all their loads (not at all when a
warm cache knows them: the answer is then synchronous), and completes the whole answer.
Anything it does not expect (a refused id, a read that failed, an argument out of range, a
value that does not complete) is left to graphql-core, which executes the operation over
the same request: its resolvers find the same plan and the same settled loads, so no
DynamoDB call is made twice, and the answer, errors included, is graphql-core's own.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from graphql import FieldNode, GraphQLError, GraphQLField, VariableNode, get_argument_values
from graphql.execution import VariableValues

from loaders.errors import BadUserInput
from schema.access_plan import UserField, collect_partitions, reads_partition_whole
from schema.arguments import check_id_count, check_user_id
from schema.context import Context
from schema.execution.generated import Completion, Unplain
from schema.execution.planned import PlannedRead, ask, loads_of, outcome, settle
from schema.field_reads import FieldRead
from schema.plan_prices import Prices
from schema.user import User

__all__ = [
    "DECISIONS_KEPT",
    "MANY",
    "NAME",
    "ONE",
    "QUERY_ROOTS",
    "CompiledOperation",
    "PlannedField",
    "RootField",
]

#: What a root field answers: one user (`user`, `viewer`, a re-read's root), a list of users
#: (`users`, the federation subgraph's `_entities`), or the root type's name (`__typename`).
ONE, MANY, NAME = range(3)
#: The access plan's choices a root field keeps, each for one set of variables' values.
DECISIONS_KEPT = 64
#: The query root fields a compiled operation answers, and what each answers.
QUERY_ROOTS = {"user": ONE, "users": MANY, "viewer": ONE, "_entities": MANY}


class PlannedInfo:
    """What a planned field's resolver gets as its `info`: the request's context, the one
    thing planned resolvers read (`schema.execution.plan`); anything else it asked for would
    raise, and graphql-core's path would answer that field instead."""

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = context


@dataclass(frozen=True, slots=True)
class PlannedField:
    """A planned User field: its resolver, and the node and definition its arguments come
    from (bound per request: they may name variables)."""

    function: Callable[..., Any]
    field_def: GraphQLField
    node: FieldNode
    #: Each argument's Python name by its GraphQL name, and the `info` parameter's, if any.
    names: Mapping[str, str]
    info_name: str | None

    def bind(self, context: Context, variables: VariableValues) -> PlannedRead:
        names = self.names
        values = get_argument_values(self.field_def, self.node, variables)
        kwargs: dict[str, Any] = {names[name]: value for name, value in values.items()}
        if self.info_name is not None:
            kwargs[self.info_name] = PlannedInfo(context)
        return partial(self.function, **kwargs)


@dataclass(frozen=True, slots=True)
class RootField:
    response_name: str
    answers: int  # ONE, MANY or NAME
    node: FieldNode
    field_def: GraphQLField | None
    #: The User selection: its completion, its planned fields in order, its access plan.
    user: Completion | None = None
    planned: tuple[PlannedField, ...] = ()
    user_fields: tuple[UserField, ...] = ()
    type_name: str = ""
    #: The schema's User class (the subgraph's entity is a subclass of `User`), and what
    #: each of its fields reads (the access plan's prices of them).
    user_class: type[User] = User
    reads: Mapping[str, FieldRead] = dataclasses.field(default_factory=dict)
    #: `reads_partitions_whole`'s answers, by the prices and the values of the variables
    #: that multiply a field's reads (`savingsMonths(months: $m)`): the rest is fixed.
    decisions: dict[tuple[object, ...], bool] = dataclasses.field(default_factory=dict)

    def reads_partitions_whole(self, variables: Mapping[str, Any], prices: Prices) -> bool:
        """Whether, for these variables, each user's partition is read whole."""
        key = (prices, *(variables.get(times.name.value) for times in self.times_variables()))
        try:
            whole = self.decisions.get(key)
        except TypeError:  # a value that cannot be a key: priced for this request alone
            return reads_partition_whole(self.user_fields, variables, self.reads, prices=prices)
        if whole is None:
            whole = reads_partition_whole(self.user_fields, variables, self.reads, prices=prices)
            if len(self.decisions) < DECISIONS_KEPT:  # a client's many values are not all kept
                self.decisions[key] = whole
        return whole

    def times_variables(self) -> Iterator[VariableNode]:
        return (times for _, times in self.user_fields if isinstance(times, VariableNode))


@dataclass(frozen=True, slots=True)
class CompiledOperation:
    roots: tuple[RootField, ...]
    #: A subscription re-read: its one root field answers the event's user.
    reread: bool

    def run(
        self, context: Context, variables: VariableValues, root_value: Any, prices: Prices
    ) -> dict[str, Any] | Coroutine[Any, Any, dict[str, Any] | None] | None:
        """The operation's `data`, or None where graphql-core must answer; a coroutine
        giving either when some read is not known yet."""
        coerced = variables.coerced
        users: list[list[User] | None] = []
        reads: list[tuple[PlannedRead, ...]] = []
        for root in self.roots:
            if root.answers == NAME:
                users.append(None)
                reads.append(())
                continue
            found = [root_value] if self.reread else root_users(root, context, variables)
            if found is None:
                return None
            if root.reads_partitions_whole(coerced, prices):
                collect_partitions(context.reads, (user.id for user in found))
            users.append(found)
            try:
                reads.append(tuple(field.bind(context, variables) for field in root.planned))
            except GraphQLError:  # an argument that does not coerce: graphql-core says so
                return None
        answers = [
            [ask(root_reads, user) for user in root_users or ()]
            for root_users, root_reads in zip(users, reads, strict=True)
        ]
        loads = loads_of([answer for root_answers in answers for answer in root_answers])
        if not loads:
            return self._complete(users, answers, {})
        return self._after(users, answers, loads)

    async def _after(
        self, users: list[list[User] | None], answers: list[list[list[Any]]], loads: list[Any]
    ) -> dict[str, Any] | None:
        # Waited on, not gathered: a cancelled request must not cancel loads that other
        # requests share (a subscription's re-reads share one read: schema/live).
        waits = [asyncio.ensure_future(load) for load in loads]
        await asyncio.wait(waits)
        awaited = {id(load): outcome(wait) for load, wait in zip(loads, waits, strict=True)}
        return self._complete(users, answers, awaited)

    def _complete(
        self,
        users: list[list[User] | None],
        answers: list[list[list[Any]]],
        awaited: dict[int, Any],
    ) -> dict[str, Any] | None:
        data: dict[str, Any] = {}
        try:
            for root, root_users, root_answers in zip(self.roots, users, answers, strict=True):
                if root_users is None:
                    data[root.response_name] = root.type_name
                    continue
                complete = root.user.complete  # type: ignore[union-attr]
                completed = [
                    complete(user, _settled(user_answers, awaited))
                    for user, user_answers in zip(root_users, root_answers, strict=True)
                ]
                data[root.response_name] = completed if root.answers == MANY else completed[0]
        except Exception:  # graphql-core's path gives the answer or the error
            return None
        return data


def _settled(answers: list[Any], awaited: dict[int, Any]) -> list[Any]:
    # Nothing awaited (a warm cache knew every read): every answer is a value already.
    settled = settle(answers, awaited) if awaited else answers
    if any(isinstance(answer, BaseException) for answer in settled):
        raise Unplain
    return settled


def root_users(root: RootField, context: Context, variables: VariableValues) -> list[User] | None:
    """The users a query's root field answers, or None where graphql-core must answer (an
    argument that does not coerce, an id or a representation refused)."""
    principal = context.principal
    try:
        if root.field_def is None:  # viewer
            ids = [principal.sub]
        else:
            arguments = get_argument_values(root.field_def, root.node, variables)
            if "representations" in arguments:
                ids = [_represented(given) for given in arguments["representations"]]
            elif root.answers == MANY:
                ids = [check_user_id(str(i), "ids") for i in check_id_count(arguments["ids"])]
            else:
                ids = [check_user_id(str(arguments["id"]))]
    except (GraphQLError, BadUserInput):
        return None
    if not all(principal.may_read(user_id) for user_id in ids):
        return None
    return [root.user_class(id=user_id) for user_id in ids]  # type: ignore[arg-type]


def _represented(representation: object) -> str:
    """The id of a router's `{__typename: "User", id}`, checked as `users(ids:)` checks one."""
    if not isinstance(representation, dict) or representation.get("__typename") != "User":
        raise BadUserInput("representations", "not a User representation")
    user_id = representation.get("id")
    if not isinstance(user_id, str) or len(representation) != 2:
        raise BadUserInput("representations", "a User representation is its __typename and id")
    return check_user_id(user_id, "representations")
