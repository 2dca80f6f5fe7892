"""`insight-gateway serve` as a newcomer runs it, in a checkout of the test's own (so that the
development secret it makes is the test's), on a free port: what it printed, and the tokens
it printed to paste."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.processes import free_port, stop, wait_until_answered

SCRIPT = Path(sys.executable).parent / "insight-gateway"
EXPORT = re.compile(r"^export ([A-Z_]+)=(\S+)$", re.M)


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    printed: str
    tokens: dict[str, str]


def clean_env(**more: str) -> dict[str, str]:
    """The environment of a newcomer's shell: no INSIGHT_* variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSIGHT_")}
    return {**env, **more}


@contextmanager
def serve(checkout: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`insight-gateway serve ARGS --port P` run in `checkout`, until it answers /healthz."""
    port = free_port()
    out, err = checkout / f"stdout-{port}.txt", checkout / f"stderr-{port}.txt"
    with (
        out.open("w") as stdout,
        err.open("w") as stderr,
        subprocess.Popen(
            [SCRIPT, "serve", *args, "--port", str(port)],
            cwd=checkout,
            stdout=stdout,
            stderr=stderr,
            env=env or clean_env(),
        ) as process,
    ):
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_answered(url + "/healthz", process, seconds=60, output=err.read_text)
            printed = out.read_text()
            yield Served(url, printed, dict(EXPORT.findall(printed)))
        finally:
            stop(process, seconds=20)
