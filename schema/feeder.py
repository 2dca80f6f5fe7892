from __future__ import annotations

import datetime as dt

import strawberry

from loaders.rows.feeder import LastPageRow, PaveLabelRow


@strawberry.type
class PaveLabel:
    label: str | None
    updated_date: dt.datetime | None

    @classmethod
    def from_row(cls, row: PaveLabelRow) -> PaveLabel:
        return cls(label=row.label, updated_date=row.updated_date)


@strawberry.type(description="The last page the feeder fed for one Pave request.")
class LastPage:
    pave_request_id: str
    page: int | None
    updated_date: dt.datetime | None

    @classmethod
    def from_row(cls, row: LastPageRow) -> LastPage:
        return cls(
            pave_request_id=row.pave_request_id, page=row.page, updated_date=row.updated_date
        )
