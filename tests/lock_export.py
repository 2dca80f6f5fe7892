"""What `uv export` makes of uv.lock for this platform: each package it requires, by canonical
name, with its locked version (read by the lock test and the image test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def exported_versions(*options: str) -> dict[NormalizedName, str]:
    """`uv export --frozen --no-hashes --no-emit-project OPTIONS` (the venv's uv), each line
    whose environment marker holds here, as {name: version}."""
    uv = Path(sys.executable).with_name("uv")
    assert uv.exists(), "uv is not in the venv: run make"
    exported = subprocess.run(
        [str(uv), "export", "--frozen", *options, "--no-hashes", "--no-emit-project",
         "--format", "requirements-txt"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    versions: dict[NormalizedName, str] = {}
    for line in exported.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate():
                versions[canonicalize_name(requirement.name)] = str(requirement.specifier)[2:]
    return versions
