"""The group index: every subscription of the replica, grouped by what its answer for one
user depends on, and found by user id when a change comes.

A group is (document, operation name, variables, read scope, user id): every subscriber in
it would see the same answer for that user, so one re-read answers them all. The read
scope is the subscriber's read rule (`dashboard`, any user; else its own user only), not
the subscriber: 100 dashboards watching one user with one document are one group.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loaders import entities
from loaders.live.changes import Change
from schema.live.ports import Payload, RereadReason
from schema.live.subscriber import Subscriber
from schema.principal import DASHBOARD, Principal


def user_of(change: Change) -> str | None:
    """The user whose answers `change` may alter; None when it makes no event (SPEC 7:
    not the captures, not the locks): as the entities of its table declare."""
    return entities.user_of(change.table, change.partition_key)


def read_scope(principal: Principal) -> str:
    """What a principal may read, as far as one user's answer can tell."""
    return DASHBOARD if DASHBOARD in principal.roles else "self"


@dataclass(frozen=True, slots=True)
class GroupKey:
    query: str
    operation_name: str | None
    variables: str
    scope: str
    user_id: str


@dataclass(eq=False, slots=True)
class Group:
    """One group's subscribers, and the state of its re-reads (kept by the scheduler)."""

    key: GroupKey
    variables: dict[str, Any] | None
    subscribers: set[Subscriber] = field(default_factory=set)
    #: A change came: every subscriber gets the next re-read.
    dirty: bool = False
    #: Why the group is dirty (the first cause since its last re-read): the metrics' label.
    reason: RereadReason = "change"
    #: Subscribers that asked for the current state (`initial: true`), not yet re-read.
    initial: set[Subscriber] = field(default_factory=set)
    running: bool = False
    timer: asyncio.TimerHandle | None = None
    #: Re-reads in a row DynamoDB did not answer whole (0: the last one was whole).
    failures: int = 0
    #: Wakes the group when the first item its last re-read read expires (its TTL).
    expiry: asyncio.TimerHandle | None = None
    #: The last answer read: an equal new one is replaced by it, so that each subscriber
    #: finds it unchanged by identity, and the deep comparison is made once per group.
    last: Payload | None = None

    def stop_timers(self) -> None:
        for timer in (self.timer, self.expiry):
            if timer is not None:
                timer.cancel()
        self.timer = self.expiry = None


class GroupIndex:
    """The groups by key and by user id, and every subscriber with the groups it is in."""

    def __init__(self) -> None:
        self._groups: dict[GroupKey, Group] = {}
        self._by_user: dict[str, set[Group]] = {}
        self.subscribers: dict[Subscriber, list[Group]] = {}
        #: One copy of each document's text (and operation name, variables) for all its
        #: groups: each socket's subscribe brings its own, which would stay in its group's
        #: key for the group's life (10,000 frontends, 10,000 groups of one document).
        self._texts: dict[str, tuple[str, int]] = {}  # text → (the one copy, its groups)

    def __len__(self) -> int:
        return len(self._groups)

    @property
    def texts(self) -> int:
        """The distinct texts (documents, variables) the groups' keys hold, one copy each."""
        return len(self._texts)

    def __iter__(self) -> Iterator[Group]:
        return iter(list(self._groups.values()))

    def holds(self, group: Group) -> bool:
        """`group` is still indexed (not dropped when its last subscriber left)."""
        return self._groups.get(group.key) is group

    def woken_by(self, changes: Sequence[Change]) -> Iterator[Group]:
        """The groups whose answers `changes` may alter."""
        for user_id in dict.fromkeys(filter(None, map(user_of, changes))):
            yield from self._by_user.get(user_id, ())

    def join(
        self,
        subscriber: Subscriber,
        *,
        query: str,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
    ) -> list[Group]:
        """Put `subscriber` in the group of each of its users (made when new)."""
        canonical = json.dumps(variables or {}, sort_keys=True, default=str)
        scope = read_scope(subscriber.principal)
        groups = self.subscribers[subscriber] = []
        for user_id in subscriber.user_ids:
            key = GroupKey(query, operation_name, canonical, scope, user_id)
            group = self._groups.get(key)
            if group is None:
                key = GroupKey(
                    self._take(query), operation_name, self._take(canonical), scope, user_id
                )
                group = Group(key, dict(variables) if variables else None)
                self._groups[key] = group
                self._by_user.setdefault(user_id, set()).add(group)
            group.subscribers.add(subscriber)
            groups.append(group)
        return groups

    def _take(self, text: str) -> str:
        """The one copy of `text`, counted for a new group."""
        one, groups = self._texts.get(text, (text, 0))
        self._texts[one] = (one, groups + 1)
        return one

    def _give_back(self, text: str) -> None:
        one, groups = self._texts[text]
        if groups > 1:
            self._texts[one] = (one, groups - 1)
        else:
            del self._texts[one]

    def leave(self, subscriber: Subscriber) -> None:
        """Take `subscriber` out of its groups; a group left empty is dropped."""
        for group in self.subscribers.pop(subscriber, ()):
            group.subscribers.discard(subscriber)
            group.initial.discard(subscriber)
            if not group.subscribers:
                self._drop(group)

    def _drop(self, group: Group) -> None:
        group.stop_timers()
        if self._groups.pop(group.key, None) is group:
            self._give_back(group.key.query)
            self._give_back(group.key.variables)
        same_user = self._by_user.get(group.key.user_id)
        if same_user is not None:
            same_user.discard(group)
            if not same_user:
                del self._by_user[group.key.user_id]
