"""Checks across settings, run by `Settings.from_environ` once every variable is parsed: each
takes the settings and raises `SettingsError` naming the variables."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gateway.configuration.fields import SettingsError, declared

if TYPE_CHECKING:
    from gateway.settings import Settings


def _trusted_documents_have_a_manifest(settings: Settings) -> None:
    mode = settings.trusted_documents
    if mode != "off" and settings.trusted_documents_file is None:
        env = {name: variable.env for name, variable in declared(type(settings))}
        manifest = env["trusted_documents_file"]
        raise SettingsError(f"{env['trusted_documents']}={mode} needs {manifest} (the manifest)")


CHECKS: tuple[Callable[[Settings], None], ...] = (_trusted_documents_have_a_manifest,)
