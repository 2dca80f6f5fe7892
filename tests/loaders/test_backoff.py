from __future__ import annotations

import pytest

from loaders.backoff import Backoff


@pytest.mark.parametrize(
    ("doublings", "ceiling"), [(0, 0.25), (1, 0.5), (3, 2.0), (5, 5.0), (10_000, 5.0)]
)
def test_the_pause_is_between_half_the_ceiling_and_the_ceiling(
    doublings: int, ceiling: float
) -> None:
    pauses = [Backoff(0.25, 5.0).pause(doublings) for _ in range(200)]
    assert all(ceiling / 2 <= pause <= ceiling for pause in pauses)
    # Jittered: replicas failing together do not retry in step.
    assert len(set(pauses)) > 1
