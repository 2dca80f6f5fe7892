"""uv.lock against what declares it and what runs on it: pyproject.toml's bounds, the installed
distributions, and the uv that the Makefile and the Dockerfile install. (`uv lock --check`, in
`make lint`, fails when the lock no longer matches pyproject.toml.)"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.lock_export import ROOT, exported_versions

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = tomllib.loads((ROOT / "uv.lock").read_text())


def _declared(name: str) -> Requirement:
    requirements = [Requirement(line) for line in PYPROJECT["project"]["dependencies"]]
    matches = [r for r in requirements if canonicalize_name(r.name) == name]
    assert len(matches) == 1, f"{name} is not declared once in [project] dependencies"
    return matches[0]


def _locked() -> dict[str, str]:
    packages: list[dict[str, Any]] = LOCK["package"]
    return {
        canonicalize_name(p["name"]): p["version"]
        for p in packages
        if p["name"] != PYPROJECT["project"]["name"]
    }


@pytest.mark.parametrize(
    "name",
    [
        # schema/execution/executor.py imports graphql-core internals of the 3.3 series.
        "graphql-core",
        # The protocol classes subclass uvicorn 0.55's HTTP and WebSocket protocols
        # (docs/dependencies.md, "Beyond the scan").
        "uvicorn",
    ],
)
def test_a_dependency_used_below_its_surface_is_bounded_to_one_minor_series(name: str) -> None:
    specifier = _declared(name).specifier
    upper = [s for s in specifier if s.operator == "<"]
    lower = [s for s in specifier if s.operator == ">="]
    assert len(upper) == 1, f"{name} needs an upper bound: {specifier}"
    assert len(lower) == 1, f"{name} needs a lower bound: {specifier}"
    bound, floor = Version(upper[0].version), Version(lower[0].version)
    locked = Version(_locked()[name])
    assert locked in specifier
    assert (bound.major, bound.minor, bound.micro) == (locked.major, locked.minor + 1, 0)
    assert (floor.major, floor.minor) == (locked.major, locked.minor)


def test_strawberry_is_pinned_to_one_version_with_the_websocket_fixes() -> None:
    specifier = _declared("strawberry-graphql").specifier
    assert [s.operator for s in specifier] == ["=="]
    pinned = Version(next(iter(specifier)).version)
    # 0.312.3 and 0.327.2 fixed the WebSocket handlers' advisories (pyproject.toml says which).
    assert pinned >= Version("0.327.2")
    assert _locked()["strawberry-graphql"] == str(pinned)


@pytest.mark.parametrize("name", ["graphql-core", "strawberry-graphql", "starlette", "uvicorn"])
def test_the_installed_version_is_the_locked_one(name: str) -> None:
    assert metadata.version(name) == _locked()[name]


def test_the_venv_holds_exactly_the_locked_dev_set() -> None:
    # What `make` syncs (the dev extra), as uv exports it from the lock for any platform, each
    # line with its environment marker: every package this one needs is installed at its
    # locked version.
    wanted = exported_versions("--extra", "dev")
    assert {"graphql-core", "strawberry-graphql", "moto", "opentelemetry-sdk"} <= set(wanted)
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    assert {name: installed.get(name) for name in wanted} == wanted
    assert wanted.items() <= _locked().items()


def test_the_makefile_and_the_dockerfile_install_the_same_uv() -> None:
    makefile = (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    found = re.search(r"^UV_VERSION := (\S+)$", makefile, re.MULTILINE)
    assert found is not None
    assert re.findall(r"uv==(\S+)", dockerfile) == [found.group(1)]
    assert "$(UV) sync --quiet --locked" in makefile
    assert "$(UV) lock --check" in makefile
    # The image installs the exported lock with its hashes, nothing resolved in the build.
    assert "uv export --frozen" in dockerfile
    assert "--require-hashes --no-deps -r /tmp/requirements.txt" in dockerfile


def _documented_ranges() -> dict[str, str]:
    """docs/dependencies.md's ranges table: dependency -> declared range."""
    text = (ROOT / "docs" / "dependencies.md").read_text()
    section = text.split("## Ranges", 1)[1]
    rows = re.findall(r"^\| ([\w.-]+) \| ([^|]+) \|", section, re.MULTILINE)
    return {name: spec.strip() for name, spec in rows if name != "dependency"}


def test_the_dependencies_page_lists_every_dependency_it_names_with_its_range() -> None:
    ranges = _documented_ranges()
    assert {"aiobotocore", "botocore", "strawberry-graphql", "uvicorn", "limits"} <= set(ranges)
    for name, spec in ranges.items():
        declared = _declared(canonicalize_name(name)).specifier
        assert declared == SpecifierSet(spec), f"{name}: the page says {spec}, pyproject {declared}"
        assert Version(_locked()[canonicalize_name(name)]) in declared, name
