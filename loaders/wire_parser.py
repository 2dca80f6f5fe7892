"""A faster botocore response parser for DynamoDB's JSON protocol.

botocore parses every attribute value of every item by walking the `AttributeValue`
shape: ten member lookups and a tagged-union check per value, for a result that is the
JSON it started from. The profile of a full User (bench/) put that walk first, ahead of
GraphQL execution. DynamoDB's JSON already is the wire form our codec reads, so this
parser hands attribute values over as they came, decoding only blobs (`B`, `BS`, nested
in `M` and `L` too) as botocore does, and decodes the body with orjson. Everything else
(errors, metadata, every other shape) is botocore's own parsing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from aiobotocore.parsers import PROTOCOL_PARSERS, AioResponseParserFactory

__all__ = [
    "ATTRIBUTE_VALUE",
    "BLOB_MARKS",
    "AttributeValueParser",
    "FastResponseParserFactory",
    "attribute_value",
    "may_hold_blobs",
]

_JSONParser: Any = PROTOCOL_PARSERS["json"]

ATTRIBUTE_VALUE = "AttributeValue"


def attribute_value(value: dict[str, Any], blob: Callable[[str], bytes]) -> dict[str, Any]:
    """One attribute value as botocore's full parse gives it."""
    if "S" in value or "N" in value or "BOOL" in value or "NULL" in value or "SS" in value:
        return value
    if "M" in value:
        return {"M": {name: attribute_value(inner, blob) for name, inner in value["M"].items()}}
    if "L" in value:
        return {"L": [attribute_value(inner, blob) for inner in value["L"]]}
    if "B" in value:
        return {"B": blob(value["B"])}
    if "BS" in value:
        return {"BS": [blob(inner) for inner in value["BS"]]}
    return value


#: A body with no blob anywhere is handed over without visiting its values at all (our
#: tables hold no blobs but the lock's `data`). A blob needs a `"B"` or `"BS"` key, unless
#: spelled with escapes: any of these, even as a value, takes the careful path.
BLOB_MARKS = (b'"B"', b'"BS"', b"\\u")


def may_hold_blobs(body: bytes) -> bool:
    """Whether `body` has any of `BLOB_MARKS`. Each mark holds a `B` or a backslash, and a
    one-byte search is memchr's (0.4 µs over an 18 KB Query against 15 µs for each
    three-byte one, `python -m bench calls`): a body with neither is done at once."""
    if b"B" not in body and b"\\" not in body:
        return False
    return any(mark in body for mark in BLOB_MARKS)


class AttributeValueParser(_JSONParser):  # type: ignore[misc]
    # One parser per response (aiobotocore creates them so): the flag is this body's.
    _blobs = True

    def _parse_body_as_json(self, body_contents: bytes) -> Any:
        # orjson reads a 40 KB partition several times faster than the json module; a
        # body it refuses gets botocore's own handling.
        self._blobs = may_hold_blobs(body_contents)
        if body_contents:
            try:
                return orjson.loads(body_contents)
            except orjson.JSONDecodeError:
                pass
        return super()._parse_body_as_json(body_contents)

    def _handle_structure(self, shape: Any, value: Any) -> Any:
        if shape.name == ATTRIBUTE_VALUE and isinstance(value, dict):
            return attribute_value(value, self._blob_parser) if self._blobs else value
        return super()._handle_structure(shape, value)

    def _handle_map(self, shape: Any, value: Any) -> Any:
        # Items, keys and the like: maps from attribute name to AttributeValue.
        if shape.value.name == ATTRIBUTE_VALUE:
            if not self._blobs:
                return value
            blob = self._blob_parser
            return {
                name: attribute_value(inner, blob) if isinstance(inner, dict) else inner
                for name, inner in value.items()
            }
        return super()._handle_map(shape, value)


class FastResponseParserFactory(AioResponseParserFactory):
    """aiobotocore's parser factory, with `AttributeValueParser` for the JSON protocol."""

    def create_parser(self, protocol_name: str) -> Any:
        if protocol_name == "json":
            defaults: dict[str, Any] = getattr(self, "_defaults", {})
            return AttributeValueParser(**defaults)
        return super().create_parser(protocol_name)
