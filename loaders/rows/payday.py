from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from loaders.codec import Item
from loaders.entity import TtlRule, entity
from loaders.rows import fields
from loaders.table import Table

__all__ = ["DETECTION_METHODS", "PAYDAY", "AlgorithmPrediction", "PaydayRow"]

DETECTION_METHODS = (
    "PAVE_PAYDAY_CALCULATION",
    "FLOATME_V2_PAYDAY_CALCULATION",
    "FLOATME_PAYDAY_CALCULATION",
)


@dataclass(frozen=True, slots=True)
class AlgorithmPrediction:
    """One payday algorithm's full prediction (the `pave`, `fm` and `v2` maps)."""

    payday: date | None
    frequency: str | None
    instant_collection_date: date | None
    standard_collection_date: date | None
    extended_collection_date: date | None

    @classmethod
    def from_map(cls, value: Mapping[str, Any]) -> AlgorithmPrediction:
        return cls(
            payday=fields.day(value, "payday"),
            frequency=fields.text(value, "frequency"),
            instant_collection_date=fields.day(value, "instant_collection_date"),
            standard_collection_date=fields.day(value, "standard_collection_date"),
            extended_collection_date=fields.day(value, "extended_collection_date"),
        )

    def to_map(self) -> dict[str, Any]:
        return {
            "payday": fields.put_day(self.payday),
            "frequency": self.frequency,
            "instant_collection_date": fields.put_day(self.instant_collection_date),
            "standard_collection_date": fields.put_day(self.standard_collection_date),
            "extended_collection_date": fields.put_day(self.extended_collection_date),
        }


def _prediction(item: Mapping[str, Any], name: str) -> AlgorithmPrediction | None:
    value = fields.mapping(item, name)
    return AlgorithmPrediction.from_map(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class PaydayRow:
    user_id: str
    prediction_date: date | None
    detection_used: str | None
    next_date: date | None
    source: str | None
    frequency: str | None
    loan_id: str | None
    created_date: datetime | None
    pave: AlgorithmPrediction | None
    fm: AlgorithmPrediction | None
    v2: AlgorithmPrediction | None
    ttl: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> PaydayRow:
        return cls(
            user_id=PAYDAY.user_of(item["PK"]),
            prediction_date=fields.day(item, "prediction_date"),
            detection_used=fields.text(item, "detection_used"),
            next_date=fields.day(item, "next_date"),
            source=fields.text(item, "source"),
            frequency=fields.text(item, "frequency"),
            loan_id=fields.text(item, "loan_id"),
            created_date=fields.instant(item, "created_date"),
            pave=_prediction(item, "pave"),
            fm=_prediction(item, "fm"),
            v2=_prediction(item, "v2"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = PAYDAY.key(user_id=self.user_id)
        item = fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "type": "payday",
                "prediction_date": fields.put_day(self.prediction_date),
                "detection_used": self.detection_used,
                "next_date": fields.put_day(self.next_date),
                "source": self.source,
                "frequency": self.frequency,
                "loan_id": self.loan_id,
                "created_date": fields.put_instant(self.created_date),
                "ttl": self.ttl,
            }
        )
        # The three predictions are always present, NULL when that algorithm did not run.
        for name, prediction in (("pave", self.pave), ("fm", self.fm), ("v2", self.v2)):
            item[name] = prediction.to_map() if prediction is not None else None
        return item


#: A user's payday prediction, served only on the UTC day it was made.
PAYDAY = entity(
    "payday",
    Table.PAVE,
    pk="PAYDAY#{user_id}",
    sk="PREDICTION",
    ttl=TtlRule("created_date", timedelta(days=2)),
    wakes=True,
    row=PaydayRow.from_item,
    example={"user_id": "demo-ada"},
)
