"""Who is calling: the verified claims of the request's bearer token."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DASHBOARD", "WRITER", "Principal"]

DASHBOARD = "dashboard"
WRITER = "writer"


@dataclass(frozen=True, slots=True)
class Principal:
    sub: str
    roles: frozenset[str] = frozenset()

    def may_read(self, user_id: str) -> bool:
        """An end user reads only their own user; `dashboard` reads any."""
        return DASHBOARD in self.roles or user_id == self.sub

    @property
    def may_write(self) -> bool:
        return WRITER in self.roles
