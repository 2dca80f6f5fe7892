"""The GraphiQL page is never framed by another site, and the embedded mode warns when its
page (which holds a dashboard token) is served on an address other machines reach."""

from __future__ import annotations

import argparse

import httpx
import pytest

from gateway.app import create_app
from gateway.cli.serve import exposed_token_warning, run_serve
from gateway.settings import Settings


@pytest.mark.parametrize("path", ["/graphql", "/graphql?query=%7B%20viewer%20%7B%20id%20%7D%20%7D"])
async def test_the_graphiql_page_forbids_framing(settings: Settings, path: str) -> None:
    app = create_app(settings)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        response = await client.get(path, headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == "frame-ancestors 'none'"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_no_warning_on_a_loopback_address(host: str) -> None:
    assert exposed_token_warning(host) is None


def test_serve_embedded_on_every_interface_warns_on_stderr(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    # An endpoint beside --embedded stops the command before anything starts: the warning
    # has been written by then.
    args = argparse.Namespace(embedded=True, host="0.0.0.0", port=0, endpoint="http://127.0.0.1:1")
    assert run_serve(args, settings) == 2
    err = capsys.readouterr().err
    assert "warning: --embedded on 0.0.0.0, not a loopback address" in err
    assert "dashboard token" in err


def test_serve_embedded_on_loopback_does_not_warn(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(
        embedded=True, host="127.0.0.1", port=0, endpoint="http://127.0.0.1:1"
    )
    assert run_serve(args, settings) == 2
    assert "warning" not in capsys.readouterr().err
