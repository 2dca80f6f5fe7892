from __future__ import annotations

from loaders.rows.income_detection import DetectedTransaction as DetectedTransactionRow
from loaders.rows.income_detection import IncomeDetectionRunRow, MethodResult
from schema.declared import output


@output(DetectedTransactionRow, description="A transaction a detection method picked as income.")
class DetectedTransaction:
    pass


@output(
    MethodResult,
    description="One detection method's results (its `method_<m>_results` attribute).",
    nested=(DetectedTransaction,),
)
class IncomeDetectionMethodResult:
    pass


@output(
    IncomeDetectionRunRow,
    description="One income detection run (a `site-incomedetection` row), deleted 7 days "
    "after `runDate`.",
    nested=(IncomeDetectionMethodResult,),
)
class IncomeDetectionRun:
    pass
