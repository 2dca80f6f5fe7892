"""recordIncomeDetectionRun: one `site-incomedetection` row (TTL seven days)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from loaders import validation
from loaders.errors import BadUserInput
from loaders.rows.income_detection import INCOME_DETECTION_RUN, IncomeDetectionRunRow, MethodResult
from loaders.transactions import Writes
from loaders.writers.common import (
    MAX_METHODS,
    MAX_ML_PREDICTIONS,
    TransactionCommand,
    validated_transactions,
)

__all__ = [
    "METHOD_NAME",
    "IncomeDetectionRunCommand",
    "MethodResultCommand",
    "income_detection_run_row",
    "record_income_detection_run",
]

#: A method's name becomes part of an attribute name, `method_<m>_results`.
METHOD_NAME = re.compile(r"^[a-z0-9]{1,32}$")


@dataclass(frozen=True, slots=True)
class MethodResultCommand:
    method: str
    transactions: Sequence[TransactionCommand]


@dataclass(frozen=True, slots=True)
class IncomeDetectionRunCommand:
    user_id: str
    method_results: Sequence[MethodResultCommand]
    #: None: now.
    run_date: datetime | None = None
    ml_enabled: bool = False
    ml_results_used: bool = False
    ml_prediction_id: str | None = None
    ml_predictions: Sequence[str] = ()
    ml_probabilities: Sequence[Decimal] = ()


def income_detection_run_row(
    command: IncomeDetectionRunCommand, now: datetime
) -> IncomeDetectionRunRow:
    run_date = now if command.run_date is None else command.run_date
    if run_date > now:
        raise BadUserInput("runDate", "must not be in the future")
    if INCOME_DETECTION_RUN.expires(run_date) <= int(now.timestamp()):
        raise BadUserInput("runDate", "must be within the last 7 days (older runs have expired)")
    validation.bounded("methodResults", command.method_results, maximum=MAX_METHODS)
    results: list[MethodResult] = []
    for n, result in enumerate(command.method_results):
        field = f"methodResults[{n}]"
        if not METHOD_NAME.match(result.method):
            raise BadUserInput(f"{field}.method", "must be 1 to 32 lowercase letters or digits")
        if any(earlier.method == result.method for earlier in results):
            raise BadUserInput(f"{field}.method", f"repeats the method {result.method!r}")
        transactions = validated_transactions(f"{field}.transactions", result.transactions)
        results.append(MethodResult(result.method, transactions))
    validation.bounded("mlPredictions", command.ml_predictions, maximum=MAX_ML_PREDICTIONS)
    predictions = tuple(
        validation.identifier(f"mlPredictions[{n}]", prediction)
        for n, prediction in enumerate(command.ml_predictions)
    )
    probabilities = tuple(
        validation.probability(f"mlProbabilities[{n}]", probability)
        for n, probability in enumerate(command.ml_probabilities)
    )
    if len(probabilities) != len(predictions):
        raise BadUserInput(
            "mlProbabilities", "must have one probability per entry of mlPredictions"
        )
    prediction_id = command.ml_prediction_id
    return IncomeDetectionRunRow(
        user_id=validation.identifier("userId", command.user_id),
        run_date=run_date,
        method_results=tuple(results),
        ml_enabled=command.ml_enabled,
        ml_results_used=command.ml_results_used,
        ml_prediction_id=(
            validation.identifier("mlPredictionId", prediction_id) if prediction_id else None
        ),
        ml_predictions=predictions,
        ml_probabilities=probabilities,
        ttl=INCOME_DETECTION_RUN.expires(run_date),
    )


def record_income_detection_run(
    writes: Writes, command: IncomeDetectionRunCommand, now: datetime
) -> IncomeDetectionRunRow:
    row = income_detection_run_row(command, now)
    writes.put(INCOME_DETECTION_RUN.table, row.to_item())
    return row
