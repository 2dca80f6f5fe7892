"""The schema changes like a public API: against the last released schema
(`schema/released/`), a change needs a newer version, every breaking change is recorded
under that version's `### Breaking` in CHANGELOG.md, every dangerous one in its section,
and nothing is removed that was not deprecated first."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import (
    build_schema as from_sdl,
)
from graphql import (
    find_breaking_changes,
    find_dangerous_changes,
    lexicographic_sort_schema,
    print_schema,
)

from gateway.cli.schema_changes import coordinate, newest_release
from schema.root import build_schema
from tests.schema.schema_changes import (
    CHANGELOG,
    format_version,
    project_version,
    removed_without_deprecation,
    subsection,
    unrecorded,
    version_section,
)


@pytest.fixture(scope="module")
def schemas() -> tuple[Any, Any]:
    """(the newest released schema, the schema built now)."""
    return from_sdl(newest_release().path.read_text()), build_schema()._schema


def current_section() -> str:
    section = version_section(CHANGELOG.read_text(), project_version())
    assert section is not None, (
        f"CHANGELOG.md has no `## {format_version(project_version())} (YYYY-MM-DD)` section"
    )
    return section


def test_a_changed_schema_has_a_newer_version(schemas: tuple[Any, Any]) -> None:
    released, built = schemas
    release = newest_release()

    changed = print_schema(lexicographic_sort_schema(released)) != print_schema(
        lexicographic_sort_schema(built)
    )

    assert project_version() >= release.version
    if changed:
        assert project_version() > release.version, (
            f"the schema changed since {release.path.name}: raise pyproject.toml's version "
            "and record the change in CHANGELOG.md"
        )
        current_section()


def test_every_breaking_change_is_recorded_under_breaking(schemas: tuple[Any, Any]) -> None:
    released, built = schemas
    breaking = find_breaking_changes(released, built)
    if not breaking:
        return

    missing = unrecorded(breaking, subsection(current_section(), "Breaking"), schemas)

    assert missing == [], (
        f"name these under `### Breaking` of {format_version(project_version())} in "
        f"CHANGELOG.md: {missing}"
    )


def test_every_dangerous_change_is_recorded(schemas: tuple[Any, Any]) -> None:
    released, built = schemas
    dangerous = find_dangerous_changes(released, built)
    if not dangerous:
        return

    missing = unrecorded(dangerous, current_section(), schemas)

    assert missing == [], f"record these in CHANGELOG.md: {missing}"


def test_nothing_is_removed_that_was_not_deprecated_first(schemas: tuple[Any, Any]) -> None:
    released, built = schemas

    removed = removed_without_deprecation(find_breaking_changes(released, built), *schemas)

    assert removed == [], f"deprecate these in a release before removing them: {removed}"


# The checks themselves, on schemas small enough to read.
OLD = """
type Query { user(id: ID!, at: Int): User! }
type User { id: ID! alert: String! old: Int @deprecated(reason: "Use alert.") kept: Int }
enum Decision { SENT LOCKED }
type Mutation { decide: Decision }
"""
NEW = """
type Query { user(id: ID!): User }
type User { id: ID! alert: String alerts: String count: Int }
enum Decision { SENT COOLDOWN }
type Mutation { decide: Decision }
"""
CHANGELOG_TEXT = """# Changelog

## 0.3.0 (2027-01-05)

### Breaking
- `User.alert` is nullable.
- `Query.user(at:)` is gone.

### Added
- `Decision.COOLDOWN`.

## 0.2.0 (2026-12-02)

### Breaking
- `Query.user` is nullable.
"""


def test_the_checks_name_each_unrecorded_change() -> None:
    old, new = from_sdl(OLD), from_sdl(NEW)
    breaking = find_breaking_changes(old, new)
    section = version_section(CHANGELOG_TEXT, (0, 3, 0))
    assert section is not None

    assert sorted(coordinate(c, (old, new)) for c in breaking) == [
        "Decision.LOCKED",
        "Query.user",
        "Query.user(at:)",
        "User.alert",
        "User.kept",
        "User.old",
    ]
    # `Query.user` is recorded under 0.2.0 only, and `Query.user(at:)` or `User.alerts`
    # do not name `Query.user` or `User.alert`.
    missing = unrecorded(breaking, subsection(section, "Breaking"), (old, new))
    assert sorted(m.split(": ")[0] for m in missing) == [
        "Decision.LOCKED",
        "Query.user",
        "User.kept",
        "User.old",
    ]
    assert sorted(removed_without_deprecation(breaking, old, new)) == [
        "Argument Query.user(at:) was removed.",
        "Enum value Decision.LOCKED was removed.",
        "Field User.kept was removed.",
    ]
    dangerous = find_dangerous_changes(old, new)
    assert [coordinate(c, (old, new)) for c in dangerous] == ["Decision.COOLDOWN"]
    assert unrecorded(dangerous, section, (old, new)) == []


def test_a_version_without_a_section_is_none() -> None:
    assert version_section(CHANGELOG_TEXT, (0, 4, 0)) is None
    assert subsection(version_section(CHANGELOG_TEXT, (0, 2, 0)) or "", "Deprecated") == ""
