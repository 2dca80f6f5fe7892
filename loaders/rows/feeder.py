"""The feeder's two entities: the insights-refresh label and the last page fed per request."""

from __future__ import annotations

from datetime import datetime, timedelta

from loaders import validation
from loaders.entity import TtlRule, entity
from loaders.record import Input, Record, attribute, expiry, key, record, user_key
from loaders.rows.users import USERS
from loaders.table import Table

__all__ = ["LAST_PAGE", "PAVE_LABEL", "REFRESH_INSIGHTS", "LastPageRow", "PaveLabelRow"]

REFRESH_INSIGHTS = "REFRESH_INSIGHTS"
MAX_PAGE = 1_000_000_000


@record
class PaveLabelRow(Record):
    """The feeder's label on the user, asking for their insights to be mined again."""

    TYPE = "pave_label"

    user_id: str = user_key("The user to label.")
    label: str | None = attribute("The label: `REFRESH_INSIGHTS`.", fixed=REFRESH_INSIGHTS)
    updated_date: datetime | None = attribute("When the label was set (UTC).", clock=True)


@record
class LastPageRow(Record):
    """The last page the feeder fed for one Pave request."""

    TYPE = "last_page"

    user_id: str = user_key("The user the request is for.")
    pave_request_id: str = key(
        "The Pave request's id.",
        stored="pave_request_id",
        input=Input("The Pave request's id.", validation.identifier),
    )
    page: int | None = attribute(
        "The last page number fed.",
        input=Input(
            "The page number just fed.",
            lambda field, page: validation.whole_number(field, page, minimum=0, maximum=MAX_PAGE),
        ),
    )
    updated_date: datetime | None = attribute("When the page was recorded (UTC).", clock=True)
    ttl: int | None = expiry()


#: The feeder's label that asks for the user's insights to be refreshed.
PAVE_LABEL = entity(
    "pave_label",
    Table.PAVE,
    pk="LABEL#{user_id}",
    sk="PAVE#REFRESH_INSIGHTS",
    wakes=True,
    record=PaveLabelRow,
)

#: The last page the feeder fed, per Pave request.
LAST_PAGE = entity(
    "last_page",
    Table.PAVE,
    pk=USERS,
    sk="LAST_PAGE#REQUEST_ID#{pave_request_id}",
    ttl=TtlRule("updated_date", timedelta(days=5)),
    wakes=True,
    record=LastPageRow,
    read_units=0.5,
    read_items=3,
    queried=True,
)
