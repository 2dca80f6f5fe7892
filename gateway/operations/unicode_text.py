"""Lone surrogates: JSON may spell them (`"\\ud800"`), Unicode text may not hold them.

Python's `json` decodes such an escape into a `str` that cannot be encoded as UTF-8, so a
request carrying one would fail wherever its text is next encoded (an error message that
echoes it, a hash of the query, orjson writing the answer). It is refused where it enters,
once, so that nothing past the boundary has to think about it.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def holds_lone_surrogate(value: Any) -> bool:
    """True when any string in `value` (JSON: dicts, lists, strings, numbers), a key or a
    value, holds a surrogate code point. Iterative: a body nested as deep as the JSON
    parser allows cannot overflow the stack here."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False
