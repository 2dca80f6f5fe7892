"""Bounds of list-shaping arguments, checked before any read."""

from __future__ import annotations

from loaders import validation
from loaders.errors import BadUserInput

MAX_USERS = 100
MAX_MONTHS = 12
MAX_LIMIT = 100


def check_range(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise BadUserInput(name, f"must be from {low} to {high}, not {value}")
    return value


def check_id_count(ids: list[str]) -> list[str]:
    if not 1 <= len(ids) <= MAX_USERS:
        raise BadUserInput("ids", f"must hold 1 to {MAX_USERS} ids, not {len(ids)}")
    return ids


def check_user_ids(ids: list[str]) -> list[str]:
    """The count and every id, refused whole (a subscription's ids)."""
    for user_id in check_id_count(ids):
        check_user_id(user_id, "ids")
    return ids


def check_user_id(user_id: str, name: str = "id") -> str:
    """An id within DynamoDB's key limits, checked before any read: an id over them would
    fail the BatchGetItem it shares with every other id of the request."""
    return validation.key_part(name, user_id)
