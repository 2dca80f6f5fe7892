"""How a setting is declared, parsed and documented; the settings themselves are in
`gateway/settings/`."""

from __future__ import annotations

from gateway.configuration.fields import (
    Declared,
    SettingsError,
    declared,
    read_fields,
    setting,
    setting_group,
    unknown_variables,
)

__all__ = [
    "Declared",
    "SettingsError",
    "declared",
    "read_fields",
    "setting",
    "setting_group",
    "unknown_variables",
]
