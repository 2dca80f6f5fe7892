"""Who may call what, checked in resolvers before anything is read or written."""

from __future__ import annotations

from schema.context import Info
from schema.errors import Forbidden


def require_writer(info: Info) -> None:
    """Mutations need the `writer` role; without it the mutation's field is null with
    FORBIDDEN and nothing is read or written."""
    if not info.context.principal.may_write:
        raise Forbidden("Mutations need the writer role")


def require_reader(info: Info, user_id: str) -> None:
    """An end user reads only their own user (the token's `sub`), a `dashboard` any user;
    otherwise FORBIDDEN, raised before any of that user's rows is read."""
    if not info.context.principal.may_read(user_id):
        raise Forbidden(f"Not allowed to read user {user_id}")
