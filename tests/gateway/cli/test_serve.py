"""`insight-gateway serve` as a newcomer runs it: the tokens it prints work (the end user's,
the dashboard's, the writer's, and one `insight-gateway token` mints in the same checkout),
they survive a restart, a taken port stops it at once, and a production serve never reads the
checkout's development secret."""

from __future__ import annotations

import shutil
import socket
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.auth.dev_secret import DEV_SECRET_FILE, load_or_create_dev_secret
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from schema.clock import SystemClock
from support.processes import free_port
from tests.gateway.cli.serving import SCRIPT, Served, clean_env, serve


def graphql(
    served: Served, token: str, query: str, variables: dict[str, Any] | None = None
) -> httpx.Response:
    return httpx.post(
        served.url + "/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone's root: a pyproject.toml and no development secret yet."""
    root = tmp_path_factory.mktemp("checkout")
    (root / "pyproject.toml").write_text("")
    return root


def test_serve_prints_three_working_tokens_keeps_its_secret_and_survives_a_restart(
    checkout: Path,
) -> None:
    with serve(checkout, "--embedded") as first:
        tokens = first.tokens
        assert list(tokens) == ["TOKEN", "DASHBOARD_TOKEN", "WRITER_TOKEN"], first.printed
        assert "(made now)" in first.printed

        viewer = graphql(first, tokens["TOKEN"], FRONTEND_QUERY)
        assert viewer.status_code == 200, viewer.text
        ada = viewer.json()["data"]["viewer"]
        assert ada["id"] == "demo-ada"
        assert ada["savingsMonths"], "the end user's token reads the demo user's own rows"

        users = graphql(
            first,
            tokens["DASHBOARD_TOKEN"],
            "query($ids: [ID!]!) { users(ids: $ids) { id } }",
            {"ids": ["demo-bob", "demo-ada"]},
        )
        assert users.json() == {"data": {"users": [{"id": "demo-bob"}, {"id": "demo-ada"}]}}

        written = graphql(
            first,
            tokens["WRITER_TOKEN"],
            'mutation { recordLastPage(input: {userId: "demo-cy", paveRequestId: "r-1", '
            "page: 2}) { page } }",
        )
        assert written.json() == {"data": {"recordLastPage": {"page": 2}}}

        minted = subprocess.run(
            [SCRIPT, "token", "--sub", "demo-bob"],
            cwd=checkout,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert minted.returncode == 0, minted.stderr
        bob = graphql(first, minted.stdout.strip(), "{ viewer { id } }")
        assert bob.json() == {"data": {"viewer": {"id": "demo-bob"}}}

    secret = checkout / DEV_SECRET_FILE
    assert secret.stat().st_mode & 0o777 == 0o600
    kept = secret.read_text()

    with serve(checkout, "--embedded") as second:
        assert "(made now)" not in second.printed
        again = graphql(second, tokens["TOKEN"], "{ viewer { id } }")
        assert again.json() == {"data": {"viewer": {"id": "demo-ada"}}}
        bob_again = graphql(second, minted.stdout.strip(), "{ viewer { id } }")
        assert bob_again.json() == {"data": {"viewer": {"id": "demo-bob"}}}
    assert secret.read_text() == kept


def test_a_taken_port_exits_2_with_one_plain_line_and_prints_no_token(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        completed = subprocess.run(
            [SCRIPT, "serve", "--embedded", "--port", str(port)],
            cwd=tmp_path,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [
        f"insight-gateway: port {port} on 127.0.0.1 is already in use; choose another with "
        f"--port (make serve PORT={port + 1})"
    ]
    assert not (tmp_path / DEV_SECRET_FILE).exists()


def test_a_production_serve_never_reads_the_development_secret(
    tmp_path: Path, endpoint_url: str
) -> None:
    secret, _ = load_or_create_dev_secret(tmp_path / DEV_SECRET_FILE)
    token = mint_token(secret, "demo-ada", [], timedelta(hours=1), SystemClock())
    env = clean_env(
        INSIGHT_DYNAMODB_ENDPOINT_URL=endpoint_url,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
    )

    with serve(tmp_path, env=env) as production:
        refused = graphql(production, token, "{ viewer { id } }")

    assert production.tokens == {}
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_takes_a_port_and_does_not_need_npm() -> None:
    root = Path(__file__).resolve().parents[3]
    dry = subprocess.run(
        ["make", "-n", "-C", str(root), "serve", "PORT=8123"],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert dry.returncode == 0, dry.stderr
    commands = dry.stdout.splitlines()
    assert ".venv/bin/python -m gateway.http.graphiql_assets --optional" in commands
    assert ".venv/bin/insight-gateway serve --embedded --port 8123" in commands


def test_a_misspelt_setting_is_named_and_serve_goes_on(tmp_path: Path, endpoint_url: str) -> None:
    env = clean_env(
        INSIGHT_DYNAMODB_ENDPOINT_URL=endpoint_url,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        INSIGHT_SUBSCRIPTION="true",
    )

    with serve(tmp_path, env=env) as served:
        alive = httpx.get(f"{served.url}/healthz", timeout=10)
    [stderr] = tmp_path.glob("stderr-*.txt")

    assert alive.status_code == 200
    assert stderr.read_text().splitlines()[0] == (
        "insight-gateway: warning: unknown setting INSIGHT_SUBSCRIPTION "
        "(did you mean INSIGHT_SUBSCRIPTIONS?)"
    )


def test_under_strict_settings_a_misspelt_setting_exits_2_as_a_bad_value_does(
    tmp_path: Path,
) -> None:
    def run(**variables: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [SCRIPT, "serve", "--embedded", "--port", str(free_port())],
            cwd=tmp_path,
            env=clean_env(INSIGHT_STRICT_SETTINGS="true", **variables),
            capture_output=True,
            text=True,
            timeout=60,
        )

    misspelt = run(INSIGHT_SUBSCRIPTION="true")
    bad_value = run(INSIGHT_SUBSCRIPTIONS="maybe")

    assert (misspelt.returncode, misspelt.stdout) == (2, "")
    assert misspelt.stderr.splitlines() == [
        "insight-gateway: unknown setting INSIGHT_SUBSCRIPTION (did you mean "
        "INSIGHT_SUBSCRIPTIONS?) (INSIGHT_STRICT_SETTINGS=true)"
    ]
    assert (bad_value.returncode, bad_value.stdout) == (2, "")
    assert bad_value.stderr.startswith("insight-gateway: INSIGHT_SUBSCRIPTIONS ")
    assert not (tmp_path / DEV_SECRET_FILE).exists()
