"""Whether an operation is a mutation, decided from its text before it runs (a batch
orders its mutations; a socket and a keyed request treat them apart)."""

from __future__ import annotations

from functools import lru_cache, partial

from graphql import OperationDefinitionNode, OperationType, parse
from graphql.error import GraphQLError

#: Distinct (text, operation name) pairs whose operation type is remembered.
KIND_MEMORY = 512


class OperationKinds:
    """Whether a text's executed operation is a mutation, remembered per text (the least
    recently used forgotten first).

    Only a text that contains the word `mutation` is parsed (with the token limit, so that
    a hostile text costs no more than the limit that refuses it later); one that does not
    parse, or names no operation it holds, counts as a query: its execution refuses it on
    its own, with its own error.
    """

    def __init__(self, max_tokens: int) -> None:
        self._parsed = lru_cache(KIND_MEMORY)(partial(_is_mutation, max_tokens))

    def is_mutation(self, text: str, operation_name: str | None) -> bool:
        return "mutation" in text and self._parsed(text, operation_name)


def _is_mutation(max_tokens: int, text: str, operation_name: str | None) -> bool:
    try:
        document = parse(text, no_location=True, max_tokens=max_tokens)
    except GraphQLError:
        return False
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is not None:
        operations = [op for op in operations if op.name and op.name.value == operation_name]
    return len(operations) == 1 and operations[0].operation is OperationType.MUTATION
