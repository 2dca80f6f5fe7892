"""GraphiQL's browser assets: which npm packages, which files, and fetching them at build time.

The gateway serves these files itself so that GraphiQL works on a network with no internet
access. They are fetched from the npm registry by `make` and by the Dockerfile's build stage
(`python -m gateway.http.graphiql_assets`), verified against the hashes pinned here, and never
committed. This module uses only the standard library so that the build can run it before the
gateway's dependencies are installed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

# GraphiQL 3 is the last major version with a self-contained UMD build; it needs React 18's
# UMD builds as globals (React 19 no longer ships them).
PACKAGES: dict[str, str] = {
    "graphiql": "3.8.3",
    "react": "18.3.1",
    "react-dom": "18.3.1",
}

ASSETS_DIR = Path(__file__).parent.parent / "static" / "graphiql"


@dataclass(frozen=True, slots=True)
class Asset:
    """One file of an npm package, served under `name` and pinned by its SRI hash."""

    package: str
    path_in_package: str
    name: str
    integrity: str

    @property
    def version(self) -> str:
        return PACKAGES[self.package]

    @property
    def cdn_url(self) -> str:
        return f"https://unpkg.com/{self.package}@{self.version}/{self.path_in_package}"


# In the order the page loads them: React before GraphiQL, which expects it as a global.
ASSETS: tuple[Asset, ...] = (
    Asset(
        "react",
        "umd/react.production.min.js",
        "react.production.min.js",
        "sha384-DGyLxAyjq0f9SPpVevD6IgztCFlnMF6oW/XQGmfe+IsZ8TqEiDrcHkMLKI6fiB/Z",
    ),
    Asset(
        "react-dom",
        "umd/react-dom.production.min.js",
        "react-dom.production.min.js",
        "sha384-gTGxhz21lVGYNMcdJOyq01Edg0jhn/c22nsx0kyqP0TxaV5WVdsSH1fSDUf5YJj1",
    ),
    Asset(
        "graphiql",
        "graphiql.min.js",
        "graphiql.min.js",
        "sha384-HbRVEFG0JGJZeAHCJ9Xm2+tpknBQ7QZmNlO/DgZtkZ0aJSypT96YYGRNod99l9Ie",
    ),
    Asset(
        "graphiql",
        "graphiql.min.css",
        "graphiql.min.css",
        "sha384-Mq3vbRBY71jfjQAt/DcjxUIYY33ksal4cgdRt9U/hNPvHBCaT2JfJ/PTRiPKf0aM",
    ),
)


class AssetFetchError(RuntimeError):
    """The assets could not be fetched or did not match their pinned hashes."""


def integrity_of(data: bytes) -> str:
    """The Subresource Integrity string of `data` (the form browsers check)."""
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode("ascii")


def assets_present(directory: Path = ASSETS_DIR) -> bool:
    """Whether every asset is in `directory` with its pinned content."""
    for asset in ASSETS:
        path = directory / asset.name
        if not path.is_file() or integrity_of(path.read_bytes()) != asset.integrity:
            return False
    return True


def fetch(directory: Path = ASSETS_DIR, *, npm: str = "npm") -> None:
    """Download the pinned packages with `npm pack` and install the assets into `directory`.

    Every file is checked against its pinned hash before anything is written, so a failed or
    tampered download leaves the directory as it was.
    """
    if shutil.which(npm) is None:
        raise AssetFetchError(f"{npm!r} is not on PATH; it is needed to fetch GraphiQL's assets")
    with tempfile.TemporaryDirectory(prefix="graphiql-assets-") as tmp:
        tarballs = _npm_pack(npm, Path(tmp))
        contents = {asset.name: _read_member(tarballs[asset.package], asset) for asset in ASSETS}
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in contents.items():
            partial = directory / (name + ".partial")
            partial.write_bytes(data)
            os.replace(partial, directory / name)


def _npm_pack(npm: str, destination: Path) -> dict[str, Path]:
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    command = [npm, "pack", "--json", "--silent", "--pack-destination", str(destination), *specs]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    except subprocess.CalledProcessError as error:
        raise AssetFetchError(f"npm pack failed: {error.stderr.strip()}") from None
    except subprocess.TimeoutExpired:
        raise AssetFetchError("npm pack did not finish within 300 seconds") from None
    packed = json.loads(completed.stdout)
    return {entry["name"]: destination / entry["filename"] for entry in packed}


def _read_member(tarball: Path, asset: Asset) -> bytes:
    # npm tarballs keep every file under a top-level "package/" directory.
    with tarfile.open(tarball, "r:gz") as archive:
        member = archive.extractfile(f"package/{asset.path_in_package}")
        if member is None:
            raise AssetFetchError(f"{asset.package} has no file {asset.path_in_package}")
        data = member.read()
    if integrity_of(data) != asset.integrity:
        raise AssetFetchError(
            f"{asset.package}@{asset.version}/{asset.path_in_package} does not match its pinned "
            f"hash {asset.integrity}"
        )
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gateway.http.graphiql_assets",
        description="Fetch GraphiQL's pinned assets from the npm registry for offline serving.",
    )
    parser.add_argument("--dest", type=Path, default=ASSETS_DIR, help="target directory")
    parser.add_argument("--npm", default="npm", help="the npm executable")
    parser.add_argument(
        "--force", action="store_true", help="fetch even when the assets are already present"
    )
    parser.add_argument(
        "--optional",
        action="store_true",
        help="warn and exit 0 when they cannot be fetched (no npm, no network): the gateway "
        "then serves a GraphiQL page that loads its scripts from the public CDN",
    )
    args = parser.parse_args(argv)
    if not args.force and assets_present(args.dest):
        print(f"GraphiQL assets already present in {args.dest}")
        return 0
    try:
        fetch(args.dest, npm=args.npm)
    except AssetFetchError as error:
        if args.optional:
            print(
                f"warning: {error}; GraphiQL will load its scripts from the public CDN "
                "(install node and npm, then `make graphiql-assets`, to serve them offline)",
                file=sys.stderr,
            )
            return 0
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"GraphiQL assets installed in {args.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
