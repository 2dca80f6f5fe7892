from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest

from gateway.http.graphiql_assets import (
    ASSETS,
    ASSETS_DIR,
    Asset,
    AssetFetchError,
    _read_member,
    assets_present,
    integrity_of,
    main,
)


def _tarball(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_integrity_is_the_subresource_integrity_form() -> None:
    # The SRI of the empty string, as browsers compute it.
    assert integrity_of(b"") == (
        "sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb"
    )


def test_a_file_that_matches_its_pin_is_read(tmp_path: Path) -> None:
    data = b"window.React = {};"
    asset = Asset("react", "umd/react.js", "react.js", integrity_of(data))
    tarball = _tarball(tmp_path / "react.tgz", {"umd/react.js": data})

    assert _read_member(tarball, asset) == data


def test_a_file_that_differs_from_its_pin_is_refused(tmp_path: Path) -> None:
    asset = Asset("react", "umd/react.js", "react.js", integrity_of(b"the pinned bytes"))
    tarball = _tarball(tmp_path / "react.tgz", {"umd/react.js": b"other bytes"})

    with pytest.raises(AssetFetchError, match="does not match its pinned hash"):
        _read_member(tarball, asset)


def test_assets_are_present_only_when_every_file_matches(tmp_path: Path) -> None:
    if not assets_present():
        pytest.skip("GraphiQL's assets are not fetched")
    copy = tmp_path / "graphiql"
    shutil.copytree(ASSETS_DIR, copy)
    assert assets_present(copy)

    (copy / ASSETS[0].name).write_bytes(b"truncated")
    assert not assets_present(copy)

    (copy / ASSETS[0].name).unlink()
    assert not assets_present(copy)


def test_fetching_without_npm_fails_clearly_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "graphiql"

    code = main(["--dest", str(dest), "--npm", str(tmp_path / "no-npm-here")])

    assert code == 1
    assert "is not on PATH" in capsys.readouterr().err
    assert not dest.exists()


def test_make_serve_without_npm_warns_and_carries_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "graphiql"

    code = main(["--dest", str(dest), "--npm", str(tmp_path / "no-npm-here"), "--optional"])

    assert code == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ")
    assert "is not on PATH" in err
    assert "public CDN" in err
    assert not dest.exists()
