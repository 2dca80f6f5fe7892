"""Fixtures the gateway's tests share: the fault proxy in front of moto, and Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from support.faults import FaultProxy, fault_proxy


@pytest.fixture
async def proxy(endpoint_url: str) -> AsyncIterator[FaultProxy]:
    """The suite's fault proxy in front of moto, for one test."""
    async with fault_proxy(endpoint_url) as proxy:
        yield proxy
