from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from gateway.app import create_app
from gateway.cli.demo import ADA
from gateway.cli.examples import demo_user_query
from gateway.cli.serve import embedded_graphiql
from gateway.http.graphiql import ASSETS_PATH, GraphiQLDefaults, graphiql_static_mount
from gateway.http.graphiql_assets import ASSETS, ASSETS_DIR, assets_present
from gateway.settings import Settings


def _config(page: str) -> dict[str, object]:
    match = re.search(r"const config = (.*);\n", page)
    assert match is not None
    config: dict[str, object] = json.loads(match.group(1))
    return config


def _asset_urls(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', page)


def test_local_assets_are_loaded_from_the_gateway_with_their_pinned_hashes() -> None:
    page = GraphiQLDefaults().render(local_assets=True)

    assert _asset_urls(page) == [f"{ASSETS_PATH}/graphiql.min.css"] + [
        f"{ASSETS_PATH}/{a.name}" for a in ASSETS if a.name.endswith(".js")
    ]
    assert "unpkg.com" not in page
    for asset in ASSETS:
        assert f'integrity="{asset.integrity}"' in page


def test_without_local_assets_the_page_falls_back_to_the_pinned_cdn_files() -> None:
    page = GraphiQLDefaults().render(local_assets=False)

    urls = _asset_urls(page)
    assert "https://unpkg.com/graphiql@3.8.3/graphiql.min.js" in urls
    assert "https://unpkg.com/react@18.3.1/umd/react.production.min.js" in urls
    assert all(url.startswith("https://unpkg.com/") for url in urls)
    assert page.count('crossorigin="anonymous"') == len(ASSETS)


def test_the_default_is_local_exactly_when_the_assets_were_fetched() -> None:
    page = GraphiQLDefaults().render()

    assert ("unpkg.com" not in page) is assets_present()


def test_default_query_and_headers_are_prefilled_and_cannot_break_out_of_the_script() -> None:
    query = '{ user(id: "</script><script>alert(1)</script>") { id } }'
    page = GraphiQLDefaults(query=query, headers={"Authorization": "Bearer abc.def"}).render()

    config = _config(page)
    assert config["defaultQuery"] == query
    assert json.loads(str(config["defaultHeaders"])) == {"Authorization": "Bearer abc.def"}
    assert page.count("</script>") == len([a for a in ASSETS if a.name.endswith(".js")]) + 1


def test_with_no_default_query_the_page_opens_on_a_welcome_query_and_no_headers() -> None:
    page = GraphiQLDefaults().render()
    config = _config(page)

    assert "viewer" in str(config["defaultQuery"])
    assert config["defaultHeaders"] == ""
    # Queries go to the page's own address.
    assert "new URL(window.location.pathname, window.location.href)" in page


@pytest.mark.skipif(not assets_present(), reason="GraphiQL's assets are not fetched")
async def test_the_static_mount_serves_the_fetched_files() -> None:
    response = await _get(Starlette(routes=[graphiql_static_mount()]), "graphiql.min.js")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith(
        ("text/javascript", "application/javascript")
    )
    assert response.content == (ASSETS_DIR / "graphiql.min.js").read_bytes()


async def test_the_static_mount_answers_404_while_the_assets_are_absent(tmp_path: Path) -> None:
    app = Starlette(routes=[graphiql_static_mount(tmp_path / "missing")])

    response = await _get(app, "graphiql.min.js")

    assert response.status_code == 404


async def _get(app: Starlette, asset_name: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        return await client.get(f"{ASSETS_PATH}/{asset_name}")


async def test_the_app_serves_its_page_and_assets_with_the_given_defaults() -> None:
    defaults = embedded_graphiql(token="header.payload.signature")
    app = create_app(Settings(), graphiql=defaults)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        page = await client.get("/graphql", headers={"Accept": "text/html"})
        script = await client.get(f"{ASSETS_PATH}/react.production.min.js")

    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    config = _config(page.text)
    assert config["defaultQuery"] == demo_user_query(ADA)
    assert json.loads(str(config["defaultHeaders"])) == {
        "Authorization": "Bearer header.payload.signature"
    }
    assert ("unpkg.com" not in page.text) is assets_present()
    assert script.status_code == (200 if assets_present() else 404)


def test_the_embedded_page_without_a_token_has_the_query_and_no_headers() -> None:
    defaults = embedded_graphiql(token=None)

    assert defaults.query == demo_user_query(ADA)
    assert dict(defaults.headers) == {}
