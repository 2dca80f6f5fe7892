from __future__ import annotations

from loaders.rows.feeder import LastPageRow, PaveLabelRow
from schema.declared import output


@output(
    PaveLabelRow,
    description="The feeder's label on the user (the `pave_label` row): `REFRESH_INSIGHTS` "
    "asks for the user's insights to be mined again.",
)
class PaveLabel:
    pass


@output(
    LastPageRow,
    description="The last page the feeder fed to the miner for one Pave request (a "
    "`last_page` row, deleted 5 days after `updatedDate`).",
)
class LastPage:
    pass
