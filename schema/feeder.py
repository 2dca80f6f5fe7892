from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.feeder import LastPageRow, PaveLabelRow


@strawberry.type(
    description="The feeder's label on the user (the `pave_label` row): `REFRESH_INSIGHTS` "
    "asks for the user's insights to be mined again."
)
class PaveLabel:
    label: str | None = strawberry.field(description="The label: `REFRESH_INSIGHTS`.")
    updated_date: dt.datetime | None = strawberry.field(description="When the label was set (UTC).")

    @classmethod
    def from_row(cls, row: PaveLabelRow) -> PaveLabel:
        return cls(label=row.label, updated_date=row.updated_date)


@strawberry.type(
    description="The last page the feeder fed to the miner for one Pave request (a "
    "`last_page` row, deleted 5 days after `updatedDate`)."
)
class LastPage:
    pave_request_id: str = strawberry.field(description="The Pave request's id.")
    page: int | None = strawberry.field(description="The last page number fed.")
    updated_date: dt.datetime | None = strawberry.field(
        description="When the page was recorded (UTC)."
    )

    @classmethod
    def from_row(cls, row: LastPageRow) -> LastPage:
        return cls(
            pave_request_id=row.pave_request_id, page=row.page, updated_date=row.updated_date
        )
