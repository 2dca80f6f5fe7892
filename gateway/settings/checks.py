"""Checks across settings, run by `Settings.from_environ` once every variable is parsed: each
takes the settings and raises `SettingsError` naming the variables."""

from __future__ import annotations

from collections.abc import Callable

from gateway.configuration.fields import SettingsError, declared
from gateway.settings.requests import RequestSettings


def _trusted_documents_have_a_manifest(settings: RequestSettings) -> None:
    mode = settings.trusted_documents
    if mode != "off" and settings.trusted_documents_file is None:
        env = {name: variable.env for name, variable in declared(type(settings))}
        manifest = env["trusted_documents_file"]
        raise SettingsError(f"{env['trusted_documents']}={mode} needs {manifest} (the manifest)")


def _some_price_is_above_zero(settings: RequestSettings) -> None:
    if settings.price_read_unit == 0 and settings.price_vcpu_hour == 0:
        env = {name: variable.env for name, variable in declared(type(settings))}
        raise SettingsError(
            f"{env['price_read_unit']} and {env['price_vcpu_hour']} are both 0: the access "
            "plan needs a price above 0 to choose by"
        )


CHECKS: tuple[Callable[[RequestSettings], None], ...] = (
    _trusted_documents_have_a_manifest,
    _some_price_is_above_zero,
)
