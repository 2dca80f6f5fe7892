"""The feeder's two entities: the insights-refresh label and the last page fed per request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from loaders.codec import Item
from loaders.entity import TtlRule, entity
from loaders.rows import fields
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["LAST_PAGE", "PAVE_LABEL", "REFRESH_INSIGHTS", "LastPageRow", "PaveLabelRow"]

REFRESH_INSIGHTS = "REFRESH_INSIGHTS"


@dataclass(frozen=True, slots=True)
class PaveLabelRow:
    user_id: str
    label: str | None
    updated_date: datetime | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> PaveLabelRow:
        return cls(
            user_id=PAVE_LABEL.user_of(item["PK"]),
            label=fields.text(item, "label"),
            updated_date=fields.instant(item, "updated_date"),
        )

    def to_item(self) -> Item:
        key = PAVE_LABEL.key(user_id=self.user_id)
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
            user_id=LAST_PAGE.user_of(item["PK"]),
            pave_request_id=fields.text(item, "pave_request_id")
            or LAST_PAGE.sk_value(item["SK"], "pave_request_id"),
            page=fields.integer(item, "page"),
            updated_date=fields.instant(item, "updated_date"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = LAST_PAGE.key(user_id=self.user_id, pave_request_id=self.pave_request_id)
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


#: The feeder's label that asks for the user's insights to be refreshed.
PAVE_LABEL = entity(
    "pave_label",
    Table.PAVE,
    pk="LABEL#{user_id}",
    sk="PAVE#REFRESH_INSIGHTS",
    wakes=True,
    row=PaveLabelRow.from_item,
    example={"user_id": "demo-ada"},
)

#: The last page the feeder fed, per Pave request.
LAST_PAGE = entity(
    "last_page",
    Table.PAVE,
    pk=USERS,
    sk="LAST_PAGE#REQUEST_ID#{pave_request_id}",
    ttl=TtlRule("updated_date", timedelta(days=5)),
    wakes=True,
    row=LastPageRow.from_item,
    read_units=0.5,
    read_items=3,
    queried=True,
    example={"user_id": "demo-ada", "pave_request_id": "req-7f3a"},
)
