"""Whether an operation is a mutation, decided from its text before it runs (a batch
orders its mutations; a socket and a keyed request treat them apart)."""

from __future__ import annotations

from collections import OrderedDict

from graphql import OperationDefinitionNode, OperationType, parse
from graphql.error import GraphQLError

#: Distinct (text, operation name) pairs whose operation type is remembered.
KIND_MEMORY = 512


class OperationKinds:
    """Whether a text's executed operation is a mutation, remembered per text.

    Only a text that contains the word `mutation` is parsed (with the token limit, so that
    a hostile text costs no more than the limit that refuses it later); one that does not
    parse, or names no operation it holds, counts as a query: its execution refuses it on
    its own, with its own error.
    """

    def __init__(self, max_tokens: int, maxsize: int = KIND_MEMORY) -> None:
        self.max_tokens = max_tokens
        self.maxsize = maxsize
        self._known: OrderedDict[tuple[str, str | None], bool] = OrderedDict()

    def is_mutation(self, text: str, operation_name: str | None) -> bool:
        if "mutation" not in text:
            return False
        key = (text, operation_name)
        known = self._known.get(key)
        if known is None:
            known = self._parse(text, operation_name)
            self._known[key] = known
            while len(self._known) > self.maxsize:
                self._known.popitem(last=False)
        else:
            self._known.move_to_end(key)
        return known

    def _parse(self, text: str, operation_name: str | None) -> bool:
        try:
            document = parse(text, no_location=True, max_tokens=self.max_tokens)
        except GraphQLError:
            return False
        operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
        if operation_name is not None:
            operations = [op for op in operations if op.name and op.name.value == operation_name]
        return len(operations) == 1 and operations[0].operation is OperationType.MUTATION
