"""DynamoDB's attribute values as the lean path hands them over: as they came in the JSON,
only blobs (`B`, `BS`, nested in `M` and `L` too) decoded to bytes, as botocore's parser
decodes them.

botocore parses every attribute value of every item by walking the `AttributeValue`
shape: ten member lookups and a tagged-union check per value, for a result that is the
JSON it started from. DynamoDB's JSON already is the wire form the codec reads."""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["BLOB_MARKS", "decode_blobs", "may_hold_blobs"]


def attribute_value(value: dict[str, Any]) -> dict[str, Any]:
    """One attribute value as botocore's full parse gives it."""
    if "S" in value or "N" in value or "BOOL" in value or "NULL" in value or "SS" in value:
        return value
    if "M" in value:
        return {"M": {name: attribute_value(inner) for name, inner in value["M"].items()}}
    if "L" in value:
        return {"L": [attribute_value(inner) for inner in value["L"]]}
    if "B" in value:
        return {"B": base64.b64decode(value["B"])}
    if "BS" in value:
        return {"BS": [base64.b64decode(inner) for inner in value["BS"]]}
    return value


#: A body with no blob anywhere is handed over without visiting its values at all (our
#: tables hold no blobs but the lock's `data`). A blob needs a `"B"` or `"BS"` key, unless
#: spelled with escapes: any of these, even as a value, takes the careful path.
BLOB_MARKS = (b'"B"', b'"BS"', b"\\u")


#: The `B`s `may_hold_blobs` looks at one by one before it searches for the marks whole: a
#: body holds a few (`BOOL` tags, a name), and no body makes it loop longer than this.
LOOKED_AT_BS = 64


def may_hold_blobs(body: bytes) -> bool:
    """Whether `body` has any of `BLOB_MARKS`. Each mark holds a `B` or a backslash, and a
    one-byte search is memchr's: a body holding neither is done at once, and one holding a
    few `B`s (its `BOOL` tags) has each looked at where memchr finds it, instead of three
    searches of the whole body for the marks (2 µs against 86 µs over a user's 38 KB
    partition, the bench's users' Query)."""
    if b"\\" in body and b"\\u" in body:
        return True
    at = body.find(b"B")
    for _ in range(LOOKED_AT_BS):
        if at == -1:
            return False
        if body[at - 1 : at + 2] == b'"B"' or body[at - 1 : at + 3] == b'"BS"':
            return True
        at = body.find(b"B", at + 1)
    return any(mark in body for mark in BLOB_MARKS)


def _items_with_blobs(items: list[Any]) -> list[Any]:
    return [{name: attribute_value(value) for name, value in item.items()} for item in items]


def decode_blobs(parsed: dict[str, Any]) -> None:
    """Blobs (`B`, `BS`) in a read's items and keys decoded to bytes, as botocore does."""
    for field in ("Item", "LastEvaluatedKey"):
        if isinstance(parsed.get(field), dict):
            [parsed[field]] = _items_with_blobs([parsed[field]])
    if isinstance(parsed.get("Items"), list):
        parsed["Items"] = _items_with_blobs(parsed["Items"])
    for table, items in (parsed.get("Responses") or {}).items():
        parsed["Responses"][table] = _items_with_blobs(items)
    for request in (parsed.get("UnprocessedKeys") or {}).values():
        request["Keys"] = _items_with_blobs(request["Keys"])
