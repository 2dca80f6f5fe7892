"""What a cached item costs in memory, measured: `sys.getsizeof` of every object it holds.

The bound (`INSIGHT_CACHE_MAX_BYTES`) is only as good as this figure, so it is a walk of
the decoded item, not a guess from its attribute count. Attribute names are counted in
every item although decoded items of one response share them, so the figure is an upper
estimate: `tests/loaders/cache/test_sizes.py` holds it between the memory tracemalloc sees
such items take and twice that.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

_getsizeof = sys.getsizeof
#: A reference in a container's slot, included in the container's own getsizeof.
_SCALARS = (str, bytes, int, float, bool, type(None))


def measured_size(value: Any) -> int:
    """Bytes held by `value` and everything it refers to (a decoded item, a list of them)."""
    size = _getsizeof(value)
    if isinstance(value, dict):
        for name, inner in value.items():
            size += _getsizeof(name)
            size += _getsizeof(inner) if isinstance(inner, _SCALARS) else measured_size(inner)
    elif isinstance(value, list | tuple | set | frozenset):
        for inner in value:
            size += _getsizeof(inner) if isinstance(inner, _SCALARS) else measured_size(inner)
    elif hasattr(value, "value") and not isinstance(value, _SCALARS):
        # boto3's Binary wraps its bytes.
        size += _getsizeof(value.value)
    return size


def items_size(items: Iterable[Any]) -> int:
    return sum(measured_size(item) for item in items)


def key_size(key: Any) -> int:
    """A slotted key (`ItemKey`, `QueryKey`) and the strings it holds."""
    return _getsizeof(key) + sum(
        _getsizeof(getattr(key, name)) for name in ("pk", "sk", "sk_prefix") if hasattr(key, name)
    )
