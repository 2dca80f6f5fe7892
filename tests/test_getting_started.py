"""docs/getting-started.md works as written: its shell steps (the queries, the mutations,
the token command), pasted in order into a shell holding the tokens `serve --embedded`
printed, answer what the page shows (dates aside, which depend on the day)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.gateway.cli.serving import clean_env, serve

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
FENCE = re.compile(r"^( *)```(\w+)\n(.*?)^\1```$", re.M | re.S)
DATE = re.compile(r"\d{4}-\d{2}(-\d{2}(T[0-9:.]+Z)?)?")


def blocks() -> list[tuple[str, str]]:
    return [(kind, textwrap.dedent(body)) for _, kind, body in FENCE.findall(PAGE.read_text())]


def steps() -> list[tuple[str, str | None]]:
    """Each shell step that talks to the gateway, with the JSON answer shown after it."""
    found: list[tuple[str, str | None]] = []
    listed = blocks()
    for n, (kind, body) in enumerate(listed):
        if kind != "sh" or not ("curl" in body or "insight-gateway token" in body):
            continue
        shown = listed[n + 1][1] if n + 1 < len(listed) and listed[n + 1][0] == "json" else None
        found.append((body, shown))
    return found


def undated(text: str) -> object:
    return json.loads(DATE.sub("<date>", text))


def test_the_page_has_a_step_for_each_kind_of_operation() -> None:
    bodies = "\n".join(body for body, _ in steps())
    for needed in ("$TOKEN", "$DASHBOARD_TOKEN", "$WRITER_TOKEN", "users(ids: $ids)", "viewer"):
        assert needed in bodies
    assert "viewerChanged" in PAGE.read_text()
    assert "TODO" not in PAGE.read_text()


def test_every_step_answers_as_the_page_shows(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    with serve(tmp_path, "--embedded") as served:
        env = clean_env(**served.tokens)
        port = served.url.rsplit(":", 1)[1]
        for body, shown in steps():
            script = body.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
            completed = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert completed.returncode == 0, (script, completed.stderr)
            answer = completed.stdout
            assert '"errors"' not in answer, (script, answer)
            if shown is not None:
                assert undated(answer) == undated(shown), script
            else:
                assert json.loads(answer)["data"], script
