"""GraphiQL in a real headless Chromium, served by uvicorn on 127.0.0.1 with no other network."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import strawberry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL

from gateway.graphiql import graphiql_static_mount, render_graphiql_page
from gateway.graphiql_assets import assets_present
from tests.live_server import serve_in_thread

CHROMIUM = shutil.which("chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)


@strawberry.type
class Greeting:
    text: str
    sent_header: str | None


@strawberry.type
class Query:
    @strawberry.field
    def greeting(self, name: str, info: strawberry.Info) -> Greeting:
        # Echoes the header from GraphiQL's Headers editor, to show that it is sent.
        request: Request = info.context["request"]
        return Greeting(text=f"hello {name}", sent_header=request.headers.get("x-demo"))


class PageView(GraphQL[Any, None]):
    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(
            render_graphiql_page(default_headers={"X-Demo": "pre-filled"}, local_assets=True)
        )


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    if not assets_present():
        pytest.fail("GraphiQL's assets are missing: run `make graphiql-assets`")
    view = PageView(strawberry.Schema(query=Query))
    app = Starlette(
        routes=[
            Route("/graphql", view, methods=["GET", "POST"]),
            graphiql_static_mount(),
        ]
    )
    with serve_in_thread(app) as url:
        yield url


def test_a_typed_query_runs_and_its_data_shows_in_the_result_pane(
    base_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import Route as BrowserRoute
    from playwright.sync_api import sync_playwright

    elsewhere: list[str] = []

    def only_this_server(route: BrowserRoute) -> None:
        url = route.request.url
        if url.startswith(base_url + "/") or url.startswith("data:"):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        try:
            context.route("**/*", only_this_server)
            page = context.new_page()
            page.goto(base_url + "/graphql", wait_until="load")
            page.wait_for_selector(".graphiql-query-editor .CodeMirror", timeout=20_000)

            headers = page.evaluate(
                _editor_value, ".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror"
            )
            assert json.loads(headers) == {"X-Demo": "pre-filled"}

            page.click(".graphiql-query-editor .CodeMirror")
            page.keyboard.press("Control+A")
            page.keyboard.press("Delete")
            # CodeMirror closes brackets and quotes as they are typed and steps over the closing
            # character when it is typed, so typing the whole query gives exactly this text.
            query = '{ greeting(name: "insight") { text sentHeader } }'
            page.keyboard.type(query, delay=5)
            page.keyboard.press("Escape")  # close the completion popup, if open
            assert page.evaluate(_editor_value, ".graphiql-query-editor .CodeMirror") == query

            # GraphiQL parses the editor's text into its state (the operation name) after a short
            # debounce; a click before that would send the old query's operation name.
            page.wait_for_timeout(500)
            page.click(".graphiql-execute-button")
            page.wait_for_function(
                "() => document.querySelector('.result-window').innerText.includes('insight')",
                timeout=20_000,
            )
            result = json.loads(page.evaluate(_editor_value, ".result-window .CodeMirror"))
        finally:
            # Taken on failure too: the picture shows what the page did instead.
            ARTIFACTS.mkdir(exist_ok=True)
            for open_page in context.pages:
                open_page.screenshot(path=str(ARTIFACTS / "graphiql.png"))
            context.close()

    assert result == {"data": {"greeting": {"text": "hello insight", "sentHeader": "pre-filled"}}}
    assert elsewhere == []


_editor_value = "(selector) => document.querySelector(selector).CodeMirror.getValue()"
