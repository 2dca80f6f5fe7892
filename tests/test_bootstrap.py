"""support/bootstrap, which `make test` (and bench, load, image) runs first: nothing missing,
it says and changes nothing; something missing where it cannot install (no apt-get here: the
PATH is the test's), it stops at once with one line naming the Debian packages and the command
that installs them. Its installing branch (root on Debian) is what CI runs on a fresh machine."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "support" / "bootstrap"
#: What the script itself runs.
TOOLS = ("bash", "id", "sort")
#: The commands `test` looks for, each with its Debian package.
TEST_NEEDS = {
    "node": "nodejs",
    "npm": "npm",
    "chromium": "chromium",
    "nginx": "nginx",
    "redis-server": "redis-server",
    "prometheus": "prometheus",
    "promtool": "prometheus",
    "podman": "podman",
    "buildah": "buildah",
    "mmdebstrap": "mmdebstrap",
    "runc": "runc",
}


def run(target: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(path / "bash"), str(SCRIPT), target],
        env={"PATH": str(path)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """A PATH with the script's own tools and nothing the suite needs (and no apt-get)."""
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found is not None
        (tmp_path / tool).symlink_to(found)
    return tmp_path


def missing(names: set[str]) -> list[str]:
    """The packages of `names`, less those found in /usr/sbin (where Debian keeps nginx and
    runc, and the script also looks), sorted."""
    found = {name for name in names if os.access(f"/usr/sbin/{name}", os.X_OK)}
    return sorted({TEST_NEEDS[name] for name in names - found})


def test_what_is_missing_is_named_in_one_line_with_its_install_command(bare: Path) -> None:
    done = run("test", bare)
    named = " ".join([*missing(set(TEST_NEEDS)), "fonts-dejavu-core"])
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"support/bootstrap: missing {named}; install them with: "
        f"sudo apt-get install -y --no-install-recommends {named}"
    ]


def test_a_target_asks_only_for_what_it_needs(bare: Path) -> None:
    done = run("image", bare)
    assert done.returncode == 1
    named = " ".join(missing({"podman", "buildah", "mmdebstrap", "runc"}))
    assert f"missing {named};" in done.stderr


def test_nothing_missing_says_and_changes_nothing(bare: Path) -> None:
    for name in TEST_NEEDS:
        (bare / name).write_text("#!/bin/sh\n")
        (bare / name).chmod(0o755)
    done = run("test", bare)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_an_unknown_target_is_bad_usage(bare: Path) -> None:
    done = run("serve", bare)
    assert done.returncode == 2
    assert "usage: support/bootstrap" in done.stderr
