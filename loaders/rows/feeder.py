"""The feeder's two entities: the insights-refresh label and the last page fed per request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loaders import keys
from loaders.codec import Item
from loaders.rows import fields

REFRESH_INSIGHTS = "REFRESH_INSIGHTS"


@dataclass(frozen=True, slots=True)
class PaveLabelRow:
    user_id: str
    label: str | None
    updated_date: datetime | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> PaveLabelRow:
        return cls(
            user_id=keys.user_id_of(item["PK"]),
            label=fields.text(item, "label"),
            updated_date=fields.instant(item, "updated_date"),
        )

    def to_item(self) -> Item:
        key = keys.pave_label(self.user_id)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "pave_label",
                "label": self.label,
                "updated_date": fields.put_instant(self.updated_date),
            }
        )


@dataclass(frozen=True, slots=True)
class LastPageRow:
    user_id: str
    pave_request_id: str
    page: int | None
    updated_date: datetime | None
    ttl: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> LastPageRow:
        return cls(
            user_id=keys.user_id_of(item["PK"]),
            pave_request_id=fields.text(item, "pave_request_id")
            or keys.last_page_request_id_of(item["SK"]),
            page=fields.integer(item, "page"),
            updated_date=fields.instant(item, "updated_date"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = keys.last_page(self.user_id, self.pave_request_id)
        return fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "last_page",
                "pave_request_id": self.pave_request_id,
                "page": self.page,
                "updated_date": fields.put_instant(self.updated_date),
                "ttl": self.ttl,
            }
        )
