"""The wire parameters of one write, shared by `Dynamo.put` and a transaction's entries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loaders.codec import to_wire, value_to_wire

__all__ = ["written"]


def written(
    table_name: str,
    target: str,
    item: Mapping[str, Any],
    condition: str | None = None,
    names: Mapping[str, str] | None = None,
    values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The wire parameters of a write: `item` (python values) as its `target` ("Item" for a
    Put, "Key" for a ConditionCheck), with its condition, for PutItem and for a
    TransactWriteItems entry alike."""
    params: dict[str, Any] = {"TableName": table_name, target: to_wire(item)}
    if condition is not None:
        params["ConditionExpression"] = condition
    if names:
        params["ExpressionAttributeNames"] = dict(names)
    if values:
        params["ExpressionAttributeValues"] = {
            name: value_to_wire(value) for name, value in values.items()
        }
    return params
