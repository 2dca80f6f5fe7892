"""DynamoDB's wire form, written out by hand in tests: the contract's exact bytes."""

from __future__ import annotations


def s(value: str) -> dict[str, str]:
    return {"S": value}


def n(value: str | int) -> dict[str, str]:
    return {"N": str(value)}
