"""The gateway's settings, read once from the environment into a frozen object.

Each setting is declared once, as a field of `Settings` (by topic, in the modules beside this
one, each class extending the one before): its variable, type (the annotation),
default, bounds and one line of documentation. Parsing, the messages naming the variable,
`docs/configuration.md` (`make docs`) and `QueryLimits` are derived from it. A new setting:

    max_query_depth: int = setting(
        "INSIGHT_MAX_QUERY_DEPTH", 10, "deepest selection accepted", minimum=1
    )

`int`, `float`, `bool`, `str` and `str | None` (unset by default) are parsed by their
annotation; any other type names its `parse` (`gateway/configuration/parsers.py`); a check
across settings is a function in `gateway/settings/checks.py`. Then `make docs` writes
the configuration page again (a test fails until it does).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gateway.configuration import (
    Declared,
    SettingsError,
    declared,
    read_fields,
    unknown_variables,
)
from gateway.settings.checks import CHECKS
from gateway.settings.live import LiveSettings
from schema.extensions import QueryLimits
from schema.plan_prices import Prices

__all__ = ["VARIABLES", "Settings", "SettingsError"]

logger = logging.getLogger("gateway.settings")


@dataclass(frozen=True, slots=True)
class Settings(LiveSettings):
    """Every setting of the gateway (`service`, `requests` and `live` declare them)."""

    @property
    def query_limits(self) -> QueryLimits:
        return QueryLimits(
            max_tokens=self.max_query_tokens,
            max_depth=self.max_query_depth,
            max_aliases=self.max_query_aliases,
            max_cost=self.max_query_cost,
            introspection=self.introspection,
            max_selections=self.max_query_selections,
            max_fragment_depth=self.max_query_fragment_depth,
            max_overlaps=self.max_query_overlaps,
        )

    @property
    def plan_prices(self) -> Prices:
        """The prices the access plan chooses by (schema/plan_prices.py)."""
        return Prices(read_unit=self.price_read_unit, vcpu_hour=self.price_vcpu_hour)

    @classmethod
    def from_environ(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        warn: Callable[[str], None] | None = None,
    ) -> Settings:
        """Read every setting from `environ` (default: the process environment).

        An `INSIGHT_*` variable no setting declares is named, with the closest setting: a
        SettingsError under `INSIGHT_STRICT_SETTINGS=true`, else one `warn` each (default: a
        WARNING of the `gateway.settings` logger)."""
        source = os.environ if environ is None else environ
        settings = cls(**read_fields(cls, source))
        for check in CHECKS:
            check(settings)
        unknown = unknown_variables(cls, source)
        if unknown and settings.strict_settings:
            raise SettingsError("; ".join(unknown) + " (INSIGHT_STRICT_SETTINGS=true)")
        for line in unknown:
            (warn or logger.warning)(line)
        return settings


#: Every variable by its field's name (`tables.pave` for a group's member). Made at import,
#: so that a field declared without `setting(...)` fails at once.
VARIABLES: dict[str, Declared] = dict(declared(Settings))
