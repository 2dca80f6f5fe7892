"""The served gateway of the socket tests (subscriptions on, its stream readers stopped)."""

from tests.gateway.subscriptions.conftest import live

__all__ = ["live"]
