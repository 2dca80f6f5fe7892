from __future__ import annotations

from datetime import date, datetime, timedelta

from loaders import validation
from loaders.entity import TtlRule, entity
from loaders.record import Input, Record, attribute, expiry, record, user_key
from loaders.table import Table

__all__ = ["PAYDAY", "AlgorithmPrediction", "PaydayRow"]

DETECTION_METHODS = (
    "PAVE_PAYDAY_CALCULATION",
    "FLOATME_V2_PAYDAY_CALCULATION",
    "FLOATME_PAYDAY_CALCULATION",
)


@record
class AlgorithmPrediction(Record):
    """One payday algorithm's full prediction (the `pave`, `fm` and `v2` Maps, each of whose
    five attributes is stored, NULL when the algorithm gave none)."""

    payday: date | None = attribute(
        "The predicted payday.", keep_null=True, input=Input("The predicted payday.")
    )
    frequency: str | None = attribute(
        "The pay cadence the algorithm found (e.g. `biweekly`).",
        keep_null=True,
        input=Input("The pay cadence found (e.g. `biweekly`).", validation.non_empty_text),
    )
    instant_collection_date: date | None = attribute(
        "The instant collection date for this payday.",
        keep_null=True,
        input=Input("The instant collection date; null when none.", default=None),
    )
    standard_collection_date: date | None = attribute(
        "The standard collection date for this payday.",
        keep_null=True,
        input=Input("The standard collection date; null when none.", default=None),
    )
    extended_collection_date: date | None = attribute(
        "The extended collection date for this payday.",
        keep_null=True,
        input=Input("The extended collection date; null when none.", default=None),
    )


@record
class PaydayRow(Record):
    """The user's payday prediction, overwritten on each recompute."""

    TYPE = "payday"

    user_id: str = user_key("The user the prediction is for.")
    prediction_date: date | None = attribute(
        "The UTC day the prediction was computed on; always today's UTC date when served.",
        clock=True,
    )
    detection_used: str | None = attribute(
        "The winning algorithm: `PAVE_PAYDAY_CALCULATION`, "
        "`FLOATME_V2_PAYDAY_CALCULATION` or `FLOATME_PAYDAY_CALCULATION`.",
        input=Input(
            "PAVE_PAYDAY_CALCULATION, FLOATME_V2_PAYDAY_CALCULATION or "
            "FLOATME_PAYDAY_CALCULATION; that algorithm's prediction must be given.",
            validation.choice(DETECTION_METHODS),
        ),
    )
    next_date: date | None = attribute(
        "The chosen prediction's next payday (a calendar date).",
        input=Input("The chosen prediction's next payday."),
    )
    source: str | None = attribute(
        "The chosen prediction's income source name (the employer or payer).",
        input=Input("The chosen prediction's income source name.", validation.text),
    )
    frequency: str | None = attribute(
        "The chosen prediction's pay cadence (e.g. `biweekly`).",
        input=Input("The chosen prediction's pay cadence.", validation.non_empty_text),
    )
    loan_id: str | None = attribute(
        "The loan whose request computed this prediction.",
        input=Input("The loan whose request computed it.", validation.identifier, first=True),
    )
    created_date: datetime | None = attribute("When the row was written (UTC).", clock=True)
    # The three predictions are always stored, NULL when that algorithm did not run.
    pave: AlgorithmPrediction | None = attribute(
        "The Pave algorithm's full prediction; null when the chain short-circuited before it ran.",
        keep_null=True,
        input=Input("The Pave algorithm's prediction; null when it did not run.", default=None),
    )
    fm: AlgorithmPrediction | None = attribute(
        "The FloatMe algorithm's full prediction.",
        keep_null=True,
        input=Input("The FloatMe algorithm's prediction.", default=None),
    )
    v2: AlgorithmPrediction | None = attribute(
        "The FloatMe V2 algorithm's full prediction; null when the chain short-circuited "
        "before it ran.",
        keep_null=True,
        input=Input(
            "The FloatMe V2 algorithm's prediction; null when it did not run.", default=None
        ),
    )
    ttl: int | None = expiry()


#: A user's payday prediction, served only on the UTC day it was made.
PAYDAY = entity(
    "payday",
    Table.PAVE,
    pk="PAYDAY#{user_id}",
    sk="PREDICTION",
    ttl=TtlRule("created_date", timedelta(days=2)),
    wakes=True,
    record=PaydayRow,
)
