"""The group index keeps one copy of a document's text for all the groups that share it,
and lets it go with the last of them."""

from __future__ import annotations

from schema.live.groups import GroupIndex
from schema.live.ports import NoObserver
from schema.live.subscriber import Subscriber
from schema.principal import Principal

QUERY = "subscription { viewerChanged { id lowBalanceAlert } }"


async def free(principal: Principal, cost: int) -> float:
    return 0.0


async def send(payload: dict[str, object]) -> None:
    return None


def subscriber(user: str) -> Subscriber:
    return Subscriber(
        principal=Principal(user),
        user_ids=(user,),
        cost=1,
        send=send,
        charge=free,
        observer=NoObserver(),
    )


def test_groups_of_one_document_share_one_copy_of_its_text() -> None:
    index = GroupIndex()
    subscribers = [subscriber(f"u-{n}") for n in range(5)]
    groups = [
        # Each socket's subscribe brings its own copy of the text (as JSON decoding makes).
        index.join(each, query="".join(list(QUERY)), operation_name=None, variables=None)[0]
        for each in subscribers
    ]
    assert len(index) == 5
    assert len({id(group.key.query) for group in groups}) == 1
    assert len({id(group.key.variables) for group in groups}) == 1
    assert index.texts == 2  # the document, and the variables' canonical "{}"
    for each in subscribers:
        index.leave(each)
    assert (len(index), index.texts) == (0, 0)
