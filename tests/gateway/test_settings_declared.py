"""Settings are declared once: parsing, defaults, messages and QueryLimits come from the fields."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from gateway.configuration import SettingsError, declared, read_fields, setting, setting_group
from gateway.configuration.parsers import budget
from gateway.settings import VARIABLES, Settings
from loaders.tables import TableNames
from schema.extensions import QueryLimits


def test_the_environment_unset_gives_the_declared_defaults() -> None:
    assert Settings.from_environ({}) == Settings()
    assert Settings().query_limits == QueryLimits(
        max_tokens=2000,
        max_depth=10,
        max_aliases=30,
        max_cost=10_000,
        introspection=True,
        max_selections=1000,
        max_fragment_depth=50,
        max_overlaps=1000,
    )


def test_settings_are_frozen_and_slotted() -> None:
    settings = Settings(max_query_depth=3)

    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_query_depth = 4  # type: ignore[misc]
    assert not hasattr(settings, "__dict__")
    assert settings.query_limits.max_depth == 3


def test_every_field_has_its_own_variables() -> None:
    names = [variable.env for variable in VARIABLES.values()]

    assert len(names) == len(set(names))
    assert {name.split(".")[0] for name in VARIABLES} == {
        f.name for f in dataclasses.fields(Settings)
    }
    assert VARIABLES["tables.pave"].env == "INSIGHT_TABLE_PAVE"
    assert VARIABLES["tables.pave"].default == TableNames().pave


def test_a_blank_variable_keeps_the_default_and_one_table_name_keeps_the_others() -> None:
    settings = Settings.from_environ(
        {"INSIGHT_MAX_QUERY_DEPTH": "  ", "INSIGHT_TABLE_LOCKS": " team-locks "}
    )

    assert settings.max_query_depth == 10
    assert settings.tables == dataclasses.replace(TableNames(), locks="team-locks")


@dataclass(frozen=True, slots=True)
class _Example:
    depth: int = setting("X_DEPTH", 3, "how deep", minimum=1, maximum=9)
    ratio: float = setting("X_RATIO", 0.5, "a share", minimum=0, maximum=1)
    mode: str = setting("X_MODE", "off", "a mode", choices=("off", "on"))
    name: str | None = setting("X_NAME", None, "a name")
    rate: str = setting("X_RATE", "1/second", "a budget", parse=budget)
    tables: TableNames = setting_group(TableNames, "X_TABLE_", "table name")  # noqa: RUF009


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, {}),
        ({"X_DEPTH": "9", "X_RATIO": "1e-1"}, {"depth": 9, "ratio": 0.1}),
        ({"X_MODE": "on", "X_NAME": " ada "}, {"mode": "on", "name": "ada"}),
        ({"X_RATE": " 5 / hour "}, {"rate": "5/hour"}),
        ({"X_TABLE_PAVE": "p"}, {"tables": TableNames(pave="p")}),
    ],
)
def test_a_declaration_is_read_by_its_type(
    environ: dict[str, str], expected: dict[str, object]
) -> None:
    assert read_fields(_Example, environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"X_DEPTH": "0"}, "X_DEPTH must be at least 1, not 0"),
        ({"X_DEPTH": "10"}, "X_DEPTH must be at most 9, not 10"),
        ({"X_DEPTH": "2.5"}, "X_DEPTH must be a whole number, not '2.5'"),
        ({"X_RATIO": "inf"}, "X_RATIO must be a finite number, not 'inf'"),
        ({"X_MODE": "ON"}, "X_MODE must be off or on, not 'ON'"),
        ({"X_RATE": "5/day"}, "X_RATE must be N/second, N/minute or N/hour, not '5/day'"),
    ],
)
def test_a_bad_value_is_refused_naming_its_variable(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        read_fields(_Example, environ)

    assert str(raised.value) == message


def test_a_field_declared_otherwise_fails_at_once() -> None:
    @dataclass(frozen=True)
    class Undeclared:
        depth: int = 3

    @dataclass(frozen=True)
    class Unparsed:
        ids: tuple[int, ...] = setting("X_IDS", (), "ids")

    with pytest.raises(TypeError, match=r"Undeclared.depth is not declared with setting"):
        list(declared(Undeclared))
    with pytest.raises(
        TypeError, match=r"Unparsed.ids: a tuple\[int, \.\.\.\] setting needs parse="
    ):
        list(declared(Unparsed))


def test_an_unknown_variable_is_named_with_the_closest_setting() -> None:
    warned: list[str] = []
    environ = {
        "INSIGHT_SUBSCRIPTION": "true",
        "INSIGHT_FUZZ_EXAMPLES": "5000",
        "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION": "5",
        "HOME": "/root",
    }

    settings = Settings.from_environ(environ, warn=warned.append)

    assert settings.subscriptions is False  # the misspelt variable changed nothing
    assert settings.subscriptions_max_per_connection == 5
    assert warned == [
        "unknown setting INSIGHT_FUZZ_EXAMPLES",
        "unknown setting INSIGHT_SUBSCRIPTION (did you mean INSIGHT_SUBSCRIPTIONS?)",
    ]


def test_without_a_warn_an_unknown_variable_is_a_logged_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    Settings.from_environ({"INSIGHT_CACHE_MAX_BYTE": "1"})

    [record] = [r for r in caplog.records if r.name == "gateway.settings"]
    assert record.levelname == "WARNING"
    assert record.getMessage() == (
        "unknown setting INSIGHT_CACHE_MAX_BYTE (did you mean INSIGHT_CACHE_MAX_BYTES?)"
    )


def test_strict_settings_refuse_an_unknown_variable() -> None:
    environ = {"INSIGHT_STRICT_SETTINGS": "true", "INSIGHT_SUBSCRIPTION": "true"}

    with pytest.raises(SettingsError) as refused:
        Settings.from_environ(environ, warn=pytest.fail)

    assert str(refused.value) == (
        "unknown setting INSIGHT_SUBSCRIPTION (did you mean INSIGHT_SUBSCRIPTIONS?) "
        "(INSIGHT_STRICT_SETTINGS=true)"
    )
    assert Settings.from_environ({"INSIGHT_STRICT_SETTINGS": "true"}).strict_settings is True
