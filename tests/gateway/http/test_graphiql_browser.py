"""GraphiQL in a real headless Chromium, against `insight-gateway serve --embedded` on
127.0.0.1, with every other address refused: the page, its scripts and the demo token all
come from the gateway itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gateway.cli.demo import ADA
from gateway.http.graphiql_assets import assets_present
from tests.chromium import CHROMIUM, CHROMIUM_FLAGS, requires_chromium
from tests.gateway.cli.serving import serve

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
QUERY_EDITOR = ".graphiql-query-editor .CodeMirror"
HEADERS_EDITOR = ".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror"
RESULT = ".result-window .CodeMirror"

pytestmark = requires_chromium


@dataclass(frozen=True, slots=True)
class Embedded:
    url: str
    token: str


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedded]:
    """`insight-gateway serve --embedded`, as `make serve` runs it, on a free port, in a
    checkout of its own (its development secret is the test's, not the working tree's)."""
    if not assets_present():
        pytest.fail("GraphiQL's assets are missing: run `make graphiql-assets`")
    checkout = tmp_path_factory.mktemp("serve")
    (checkout / "pyproject.toml").write_text("")
    with serve(checkout, "--embedded") as served:
        assert f"GraphiQL: {served.url}/graphql" in served.printed
        assert "DASHBOARD_TOKEN" in served.tokens, served.printed
        yield Embedded(url=served.url, token=served.tokens["DASHBOARD_TOKEN"])


def test_graphiql_opens_on_the_demo_query_and_a_typed_query_shows_the_demo_users_data(
    embedded: Embedded, tmp_path: Path
) -> None:
    from playwright.sync_api import Route, sync_playwright

    elsewhere: list[str] = []

    def only_the_gateway(route: Route) -> None:
        url = route.request.url
        if url.startswith(embedded.url + "/") or url.startswith("data:"):
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
            context.route("**/*", only_the_gateway)
            page = context.new_page()
            page.goto(embedded.url + "/graphql", wait_until="load")
            page.wait_for_selector(QUERY_EDITOR, timeout=20_000)

            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "graphiql-opened.png"))
            prefilled_query = _editor_value(page, QUERY_EDITOR)
            prefilled_headers = json.loads(_editor_value(page, HEADERS_EDITOR))
            # The page as it opens runs as it is: its query, with its token.
            page.click(".graphiql-execute-button")
            page.wait_for_function(
                "() => document.querySelector('.result-window').innerText.includes('approved')",
                timeout=20_000,
            )
            prefilled_result = json.loads(_editor_value(page, RESULT))

            page.click(QUERY_EDITOR)
            page.keyboard.press("Control+A")
            page.keyboard.press("Delete")
            # CodeMirror closes brackets and quotes as they are typed and steps over the closing
            # character when it is typed, so typing the whole query gives exactly this text.
            query = (
                f'{{ user(id: "{ADA}") {{ id incomeVerification {{ txnName amountInCents }} '
                "lowBalanceAlert } }"
            )
            page.keyboard.type(query, delay=5)
            page.keyboard.press("Escape")  # close the completion popup, if open
            typed = _editor_value(page, QUERY_EDITOR)
            page.keyboard.press("Shift+Control+P")  # prettify, as a person would, for the picture
            page.keyboard.press("Escape")
            # GraphiQL parses the editor's text into its state (the operation name) after a short
            # debounce; a click before that would send the old query's operation name.
            page.wait_for_timeout(500)
            page.click(".graphiql-execute-button")
            page.wait_for_function(
                "() => document.querySelector('.result-window').innerText.includes('ACME')",
                timeout=20_000,
            )
            result = json.loads(_editor_value(page, RESULT))
        finally:
            # Taken on failure too: the picture shows what the page did instead.
            ARTIFACTS.mkdir(exist_ok=True)
            for open_page in context.pages:
                open_page.screenshot(path=str(ARTIFACTS / "graphiql.png"))
            context.close()

    assert "query DemoUser" in prefilled_query
    assert f'user(id: "{ADA}")' in prefilled_query
    assert prefilled_headers == {"Authorization": f"Bearer {embedded.token}"}
    assert "errors" not in prefilled_result
    assert prefilled_result["data"]["user"]["id"] == ADA
    assert prefilled_result["data"]["user"]["incomeVerification"]["amountInCents"] == 184250
    assert typed == query
    assert result == {
        "data": {
            "user": {
                "id": ADA,
                "incomeVerification": {"txnName": "ACME PAYROLL", "amountInCents": 184250},
                "lowBalanceAlert": "100.00",
            }
        }
    }
    assert elsewhere == []


def _run_subscription(page: Page) -> object:
    """ADA's `userChanged` typed into the editor and run; the first answer shown."""
    page.wait_for_selector(QUERY_EDITOR, timeout=20_000)
    page.click(QUERY_EDITOR)
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    query = (
        f'subscription {{ userChanged(ids: ["{ADA}"], initial: true) {{ id lowBalanceAlert }} }}'
    )
    page.keyboard.type(query, delay=5)
    page.keyboard.press("Escape")
    page.wait_for_timeout(500)
    page.click(".graphiql-execute-button")
    page.wait_for_function(
        "() => document.querySelector('.result-window').innerText.includes('100.00')",
        timeout=20_000,
    )
    return json.loads(_editor_value(page, RESULT))


def _editor_value(page: Page, selector: str) -> str:
    value: str = page.evaluate(
        "(selector) => document.querySelector(selector).CodeMirror.getValue()", selector
    )
    return value


def test_a_link_to_a_query_opens_graphiql_on_it_through_the_root(
    embedded: Embedded, tmp_path: Path
) -> None:
    from urllib.parse import urlencode

    from playwright.sync_api import sync_playwright

    query = "query Linked($id: ID!) { user(id: $id) { id lowBalanceAlert } }"
    variables = json.dumps({"id": ADA})
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page()
            # A link to the root, as a person would share it: `/` leads to `/graphql`.
            page.goto(f"{embedded.url}/?{urlencode({'query': query, 'variables': variables})}")
            page.wait_for_selector(QUERY_EDITOR, timeout=20_000)
            landed = page.url
            opened = _editor_value(page, QUERY_EDITOR)
            page.click(".graphiql-execute-button")
            page.wait_for_function(
                "() => document.querySelector('.result-window').innerText.includes('100.00')",
                timeout=20_000,
            )
            result = json.loads(_editor_value(page, RESULT))
        finally:
            browser.close()

    assert landed.startswith(embedded.url + "/graphql?")
    assert opened == query
    assert result == {"data": {"user": {"id": ADA, "lowBalanceAlert": "100.00"}}}


def test_graphiql_runs_a_subscription_over_the_gateways_own_websocket(
    embedded: Embedded, tmp_path: Path
) -> None:
    from playwright.sync_api import Route, WebSocket, sync_playwright

    elsewhere: list[str] = []
    sockets: list[str] = []

    def only_the_gateway(route: Route) -> None:
        url = route.request.url
        if url.startswith(embedded.url + "/") or url.startswith("data:"):
            route.continue_()
        else:
            elsewhere.append(url)
            route.abort()

    def opened(socket: WebSocket) -> None:
        sockets.append(socket.url)

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        try:
            context.route("**/*", only_the_gateway)
            page = context.new_page()
            page.on("websocket", opened)
            page.goto(embedded.url + "/graphql", wait_until="load")
            result = _run_subscription(page)
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            for open_page in context.pages:
                open_page.screenshot(path=str(ARTIFACTS / "graphiql-subscription.png"))
            context.close()

    assert result == {"data": {"userChanged": {"id": ADA, "lowBalanceAlert": "100.00"}}}
    assert sockets == [embedded.url.replace("http://", "ws://") + "/graphql"]
    assert elsewhere == []


def test_graphiql_runs_a_subscription_over_sse_with_transport_sse(
    embedded: Embedded, tmp_path: Path
) -> None:
    """`/graphql?transport=sse`: the subscription goes as GraphQL over SSE (a fetch with
    `Accept: text/event-stream`), and no WebSocket is opened."""
    from playwright.sync_api import Request, WebSocket, sync_playwright

    sockets: list[str] = []
    accepts: list[str] = []

    def opened(socket: WebSocket) -> None:
        sockets.append(socket.url)

    def requested(request: Request) -> None:
        if request.method == "POST":
            accepts.append(request.headers.get("accept", ""))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page()
            page.on("websocket", opened)
            page.on("request", requested)
            page.goto(embedded.url + "/graphql?transport=sse", wait_until="load")
            result = _run_subscription(page)
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            for open_page in browser.contexts[0].pages if browser.contexts else []:
                open_page.screenshot(path=str(ARTIFACTS / "graphiql-subscription-sse.png"))
            browser.close()

    assert result == {"data": {"userChanged": {"id": ADA, "lowBalanceAlert": "100.00"}}}
    assert sockets == []
    assert "text/event-stream" in accepts
