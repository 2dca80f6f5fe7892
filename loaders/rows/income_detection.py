"""`site-incomedetection`: one row per income detection run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from loaders.codec import Item, format_instant, parse_instant
from loaders.entity import TtlRule, entity
from loaders.rows import fields
from loaders.table import Table

__all__ = [
    "INCOME_DETECTION_RUN",
    "METHOD_PREFIX",
    "METHOD_SUFFIX",
    "DetectedTransaction",
    "IncomeDetectionRunRow",
    "MethodResult",
    "method_attribute",
    "method_of_attribute",
]

METHOD_PREFIX = "method_"
METHOD_SUFFIX = "_results"


def method_attribute(method: str) -> str:
    return f"{METHOD_PREFIX}{method}{METHOD_SUFFIX}"


def method_of_attribute(name: str) -> str | None:
    if name.startswith(METHOD_PREFIX) and name.endswith(METHOD_SUFFIX):
        method = name[len(METHOD_PREFIX) : -len(METHOD_SUFFIX)]
        return method or None
    return None


@dataclass(frozen=True, slots=True)
class DetectedTransaction:
    transaction_id: str | None
    name: str | None
    amount: Decimal | None
    date: date | None

    @classmethod
    def from_map(cls, value: Mapping[str, Any]) -> DetectedTransaction:
        return cls(
            transaction_id=fields.text(value, "transaction_id"),
            name=fields.text(value, "name"),
            amount=fields.decimal(value, "amount"),
            date=fields.day(value, "date"),
        )

    def to_map(self) -> dict[str, Any]:
        return fields.without_none(
            {
                "transaction_id": self.transaction_id,
                "name": self.name,
                "amount": self.amount,
                "date": fields.put_day(self.date),
            }
        )


@dataclass(frozen=True, slots=True)
class MethodResult:
    method: str
    transactions: tuple[DetectedTransaction, ...]


@dataclass(frozen=True, slots=True)
class IncomeDetectionRunRow:
    user_id: str
    run_date: datetime
    method_results: tuple[MethodResult, ...]
    ml_enabled: bool | None
    ml_results_used: bool | None
    ml_prediction_id: str | None
    ml_predictions: tuple[str, ...]
    ml_probabilities: tuple[Decimal, ...]
    ttl: int | None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> IncomeDetectionRunRow:
        results = []
        for name in sorted(item):
            method = method_of_attribute(name)
            if method is not None:
                transactions = tuple(
                    DetectedTransaction.from_map(t) for t in fields.items(item, name)
                )
                results.append(MethodResult(method, transactions))
        return cls(
            user_id=INCOME_DETECTION_RUN.user_of(item["PK"]),
            run_date=fields.instant(item, "run_date") or parse_instant(item["SK"]),
            method_results=tuple(results),
            ml_enabled=fields.boolean(item, "ml_enabled"),
            ml_results_used=fields.boolean(item, "ml_results_used"),
            ml_prediction_id=fields.text(item, "ml_prediction_id"),
            ml_predictions=fields.texts(item, "ml_predictions"),
            ml_probabilities=fields.decimals(item, "ml_probabilities"),
            ttl=fields.integer(item, "ttl"),
        )

    def to_item(self) -> Item:
        key = INCOME_DETECTION_RUN.key(user_id=self.user_id, run_date=self.run_date)
        item = fields.without_none(
            {
                "PK": key.pk,
                "SK": key.sk,
                "run_date": format_instant(self.run_date),
                "ml_enabled": self.ml_enabled,
                "ml_results_used": self.ml_results_used,
                "ml_prediction_id": self.ml_prediction_id,
                "ml_predictions": list(self.ml_predictions),
                "ml_probabilities": list(self.ml_probabilities),
                "ttl": self.ttl,
            }
        )
        for result in self.method_results:
            item[method_attribute(result.method)] = [t.to_map() for t in result.transactions]
        return item


#: One run of income detection, kept a week.
INCOME_DETECTION_RUN = entity(
    "income_detection_run",
    Table.INCOME_DETECTION,
    pk="INCOME_DETECTION#{user_id}",
    sk="{run_date:instant}",
    ttl=TtlRule("run_date", timedelta(days=7)),
    wakes=True,
    row=IncomeDetectionRunRow.from_item,
    example={"user_id": "demo-ada", "run_date": datetime(2026, 12, 2, 11, 31, 28, tzinfo=UTC)},
)
