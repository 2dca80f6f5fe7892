"""`site-incomedetection`: one row per income detection run."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from loaders import validation
from loaders.codec import Item
from loaders.entity import TtlRule, entity
from loaders.errors import BadUserInput
from loaders.record import Input, Record, attribute, expiry, key, record, user_key
from loaders.rows import fields
from loaders.table import Table

__all__ = [
    "INCOME_DETECTION_RUN",
    "MAX_TRANSACTIONS",
    "DetectedTransaction",
    "IncomeDetectionRunRow",
    "MethodResult",
    "method_of_attribute",
]

METHOD_PREFIX = "method_"
METHOD_SUFFIX = "_results"
#: A method's name becomes part of an attribute name, `method_<m>_results`.
METHOD_NAME = re.compile(r"^[a-z0-9]{1,32}$")
#: Bounds on list inputs: far above real use, low enough to keep one item under 400 KB.
MAX_METHODS = 26
MAX_TRANSACTIONS = 500
MAX_ML_PREDICTIONS = 1000


def method_attribute(method: str) -> str:
    return f"{METHOD_PREFIX}{method}{METHOD_SUFFIX}"


def method_of_attribute(name: str) -> str | None:
    if name.startswith(METHOD_PREFIX) and name.endswith(METHOD_SUFFIX):
        method = name[len(METHOD_PREFIX) : -len(METHOD_SUFFIX)]
        return method or None
    return None


@record
class DetectedTransaction(Record):
    """A transaction a detection method (or FloatMe V2) picked: a Map of a method's List."""

    transaction_id: str | None = attribute(
        "The transaction's id.", input=Input("The transaction's id.", validation.identifier)
    )
    name: str | None = attribute(
        "The transaction's name, as the bank shows it.",
        input=Input("The transaction's name, as the bank shows it.", validation.text),
    )
    amount: Decimal | None = attribute(
        "The transaction's amount, in dollars.",
        input=Input("The transaction's amount, in dollars.", validation.money),
    )
    date: date | None = attribute("The transaction's date.", input=Input("The transaction's date."))


def _method_name(field: str, method: str) -> str:
    if not METHOD_NAME.match(method):
        raise BadUserInput(field, "must be 1 to 32 lowercase letters or digits")
    return method


@record
class MethodResult(Record):
    """One method's results: stored as its own List attribute, `method_<m>_results`."""

    method: str = attribute(
        "The method's name, the `<m>` of `method_<m>_results` (`a`, `b`, … `ml`).",
        input=Input(
            "The method's name, 1 to 32 lowercase letters or digits, unique in the run; "
            "stored as `method_<method>_results`.",
            _method_name,
        ),
    )
    transactions: tuple[DetectedTransaction, ...] = attribute(
        "The transactions the method detected as income, as stored.",
        input=Input("The transactions the method detected as income.", maximum=MAX_TRANSACTIONS),
    )


def _prediction_id(field: str, value: str) -> str | None:
    return validation.identifier(field, value) if value else None


@record
class IncomeDetectionRunRow(Record):
    """One income detection run; its methods' results are one attribute each."""

    user_id: str = user_key("The user the run was for.")
    run_date: datetime = key(
        "When the run happened (UTC).",
        stored="run_date",
        input=Input("When the run happened (RFC 3339); default: now.", default=None),
    )
    method_results: tuple[MethodResult, ...] = attribute(
        "Each detection method's results, one entry per method the run stored.",
        by_hand=True,
        input=Input("Each detection method's results, one entry per method.", maximum=MAX_METHODS),
    )
    ml_enabled: bool | None = attribute(
        "Whether the machine-learning method was enabled for the run.",
        input=Input("Whether the machine-learning method was enabled.", default=False),
    )
    ml_results_used: bool | None = attribute(
        "Whether the run used the machine-learning method's results.",
        input=Input("Whether the machine-learning method's results were used.", default=False),
    )
    ml_prediction_id: str | None = attribute(
        "The machine-learning prediction's id.",
        input=Input("The machine-learning prediction's id, if any.", _prediction_id, default=None),
    )
    ml_predictions: tuple[str, ...] = attribute(
        "The transaction ids the model predicted as income.",
        input=Input(
            "The transaction ids the model predicted as income.",
            validation.identifier,
            default=(),
            maximum=MAX_ML_PREDICTIONS,
        ),
    )
    ml_probabilities: tuple[Decimal, ...] = attribute(
        "The model's probability for each of `mlPredictions`, in the same order, from 0 to 1.",
        input=Input(
            "One per `mlPredictions` entry, from 0 to 1.", validation.probability, default=()
        ),
    )
    ttl: int | None = expiry()

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> IncomeDetectionRunRow:
        results = tuple(
            MethodResult(method, tuple(map(DetectedTransaction.from_map, fields.items(item, name))))
            for name in sorted(item)
            if (method := method_of_attribute(name)) is not None
        )
        return cls(**cls.decoded(item), method_results=results)

    def to_map(self) -> Item:
        # Record's, named: a slotted dataclass is a new class, which super() does not know.
        item = Record.to_map(self)
        for result in self.method_results:
            item[method_attribute(result.method)] = [t.to_map() for t in result.transactions]
        return item

    def completed(self, now: datetime) -> IncomeDetectionRunRow:
        """The run date's default and bounds, unique methods, a probability per prediction."""
        run_date = self.run_date or now
        if run_date > now:
            raise BadUserInput("runDate", "must not be in the future")
        if INCOME_DETECTION_RUN.expires(run_date) <= int(now.timestamp()):
            raise BadUserInput(
                "runDate", "must be within the last 7 days (older runs have expired)"
            )
        for n, result in enumerate(self.method_results):
            if any(earlier.method == result.method for earlier in self.method_results[:n]):
                raise BadUserInput(
                    f"methodResults[{n}].method", f"repeats the method {result.method!r}"
                )
        if len(self.ml_probabilities) != len(self.ml_predictions):
            raise BadUserInput(
                "mlProbabilities", "must have one probability per entry of mlPredictions"
            )
        return replace(self, run_date=run_date)


#: One run of income detection, kept a week.
INCOME_DETECTION_RUN = entity(
    "income_detection_run",
    Table.INCOME_DETECTION,
    pk="INCOME_DETECTION#{user_id}",
    sk="{run_date:instant}",
    ttl=TtlRule("run_date", timedelta(days=7)),
    wakes=True,
    record=IncomeDetectionRunRow,
)
