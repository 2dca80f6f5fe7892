"""The environment that points a gateway process (a child process or a container) at the
tests' tables: one variable per table, named as `gateway.settings` declares it."""

from __future__ import annotations

import dataclasses

from gateway.settings import VARIABLES
from loaders.tables import TableNames


def table_variables(names: TableNames) -> dict[str, str]:
    """`INSIGHT_TABLE_…` for every table, so that no caller lists the tables by hand."""
    return {
        VARIABLES[f"tables.{field.name}"].env: getattr(names, field.name)
        for field in dataclasses.fields(names)
    }
