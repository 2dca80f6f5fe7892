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


CHECKS: tuple[Callable[[RequestSettings], None], ...] = (_trusted_documents_have_a_manifest,)
