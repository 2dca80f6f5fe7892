"""Bounds of list-shaping arguments, checked before any read."""

from __future__ import annotations

from loaders.errors import BadUserInput

MAX_USERS = 100
MAX_MONTHS = 12
MAX_LIMIT = 100


def check_range(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise BadUserInput(name, f"must be from {low} to {high}, not {value}")
    return value


def check_user_ids(ids: list[str]) -> list[str]:
    if not 1 <= len(ids) <= MAX_USERS:
        raise BadUserInput("ids", f"must hold 1 to {MAX_USERS} ids, not {len(ids)}")
    for user_id in ids:
        check_user_id(user_id, "ids")
    return ids


def check_user_id(user_id: str, name: str = "id") -> str:
    if not user_id.strip():
        raise BadUserInput(name, "must not be empty")
    return user_id
