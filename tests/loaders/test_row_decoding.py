"""The rows written for each record (`loaders/row_decoding.py`) are the rows its readers give:
over the demo's items of every entity, and over the same items with any attribute replaced by
a value of any shape (absent, NULL, empty, another type), the written decoder answers the
same row, or raises the same error, as `Record.decoded` and the dataclass's `__init__`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.cli.demo import demo_items
from gateway.settings import Settings
from loaders import record
from loaders.codec import from_wire, to_wire
from loaders.entities import ENTITIES
from loaders.row_decoding import written_decoder

NOW = datetime(2026, 12, 7, 4, 0, tzinfo=UTC)

#: Every (row codec, item) of the demo that the codec reads without an error, each item as a
#: read gives it (from DynamoDB's wire form).
SAMPLES: list[tuple[Callable[[Mapping[str, Any]], Any], dict[str, Any]]] = []
for _table, _written in demo_items(NOW, Settings()):
    _item = from_wire(to_wire(_written))
    for _declared in ENTITIES:
        if _declared.table != _table or _declared.row is None:
            continue
        try:
            _declared.row(_item)
        except (TypeError, ValueError, KeyError):
            continue
        SAMPLES.append((_declared.row, dict(_item)))

#: Values of every shape an attribute may hold, right or wrong for its field.
SHAPES: list[Any] = [
    None,
    "",
    "text",
    "2026-12-07",
    "2026-12-07T04:00:00Z",
    "2026-12-07T04:00:00.123456789+01:00",
    "not a date",
    Decimal("12.50"),
    Decimal(7),
    True,
    False,
    [],
    ["a", "b"],
    [Decimal(1)],
    {},
    {"name": "n", "amount": Decimal("1.5"), "date": "2026-12-01"},
    b"bytes",
]
VALUES = st.one_of(
    st.sampled_from(SHAPES),
    st.text(max_size=8),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
)


def outcome(decode: Callable[[Mapping[str, Any]], Any], item: Mapping[str, Any]) -> Any:
    try:
        return decode(item)
    except Exception as error:  # the readers' own errors, compared by type and message
        return (type(error), str(error))


def by_readers(codec: Callable[[Mapping[str, Any]], Any], item: Mapping[str, Any]) -> Any:
    """The outcome with every record's readers and `__init__` (no written decoder); the
    written ones are put back after."""
    kept = dict(record._item_decoders), dict(record._map_decoders)
    record._item_decoders.clear()
    record._map_decoders.clear()
    try:
        with patch.object(record, "written_decoder", lambda *args, **kwargs: None):
            return outcome(codec, item)
    finally:
        record._item_decoders.clear()
        record._map_decoders.clear()
        record._item_decoders.update(kept[0])
        record._map_decoders.update(kept[1])


def test_the_demo_has_an_item_of_every_read_entity() -> None:
    read = {declared.row for declared in ENTITIES if declared.row is not None}
    assert {codec for codec, _ in SAMPLES} == read


def test_every_demo_row_is_the_readers_row() -> None:
    for codec, item in SAMPLES:
        written = outcome(codec, item)
        assert not isinstance(written, tuple), written
        assert written == by_readers(codec, item)


def test_every_attribute_absent_or_of_every_shape_decodes_as_the_readers_decode() -> None:
    compared = 0
    for codec, item in SAMPLES:
        for name in item:
            absent = {key: value for key, value in item.items() if key != name}
            for changed in (absent, *({**item, name: shape} for shape in SHAPES)):
                assert outcome(codec, changed) == by_readers(codec, changed), (name, changed)
                compared += 1
    assert compared > 1000


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_attribute_of_any_shape_decodes_as_the_readers_decode(data: st.DataObject) -> None:
    codec, item = data.draw(st.sampled_from(SAMPLES))
    changed = dict(item)
    for name in data.draw(st.lists(st.sampled_from(sorted(item)), max_size=3)):
        if data.draw(st.booleans()):
            changed.pop(name, None)
        else:
            changed[name] = data.draw(VALUES)
    assert outcome(codec, changed) == by_readers(codec, changed)


def test_a_record_whose_readers_do_not_set_every_field_keeps_the_generic_path() -> None:
    from loaders.rows.income_detection import IncomeDetectionRunRow

    decoders = IncomeDetectionRunRow.__decoders__
    assert written_decoder(IncomeDetectionRunRow, decoders) is None
