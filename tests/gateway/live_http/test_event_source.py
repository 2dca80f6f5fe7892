"""A browser's own `EventSource`, in headless Chromium, across gateway restarts: a page on
the gateway's origin hands its token over once (`POST /graphql/stream-cookie`: the HttpOnly
cookie an EventSource sends, since it cannot send a header) and opens an EventSource on a
`userChanged` subscription. Each restart is the image's command SIGTERMed (the stream ends
with `retry:`) and a new process on the same port; the EventSource comes back by itself with
`Last-Event-ID`. A write made straight to DynamoDB while no gateway ran arrives as exactly
one event with the new state; an unchanged state sends nothing."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx

from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from schema.clock import SystemClock
from support.metrics_text import total
from support.processes import free_port, stop, wait_until_answered
from tests.chromium import CHROMIUM, CHROMIUM_FLAGS, requires_chromium
from tests.environment import table_variables
from tests.gateway.subscriptions.conftest import SECRET, USER, live_settings, set_low_balance_alert

pytestmark = requires_chromium

SUBSCRIPTION = (
    f'subscription {{ userChanged(ids: ["{USER}"], initial: true) {{ id lowBalanceAlert }} }}'
)
#: Bounds on waits for what must come (a process's start, an event): never a measure.
WAIT_SECONDS = 60.0
#: The page: its token posted for the cookie, then an EventSource recording what it sees.
PAGE_SCRIPT = """async ([token, query]) => {
  const set = await fetch('/graphql/stream-cookie', {
    method: 'POST', headers: {Authorization: 'Bearer ' + token}});
  if (set.status !== 204) throw new Error('the cookie was refused: ' + set.status);
  window.seen = []; window.opens = 0; window.failed = false;
  const source = new EventSource('/graphql?query=' + encodeURIComponent(query));
  source.addEventListener('next', (event) =>
    window.seen.push({id: event.lastEventId, data: JSON.parse(event.data)}));
  source.addEventListener('complete', () => source.close());
  source.onopen = () => { window.opens += 1; };
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) window.failed = true; };
}"""


@asynccontextmanager
async def gateway(settings: Settings, port: int) -> AsyncIterator[subprocess.Popen[bytes]]:
    """The image's command (its `--http` protocol ends the streams with `retry:` at SIGTERM)
    on `port`: stopped with SIGTERM on the way out, the restart an orchestrator makes."""
    env = {
        **os.environ,
        **table_variables(settings.tables),
        "INSIGHT_DYNAMODB_ENDPOINT_URL": str(settings.dynamodb_endpoint_url),
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_LOG_FORMAT": "console",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ",
        "--http", "gateway.live_http.server_protocol:GatewayHttpProtocol",
        "--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "10",
    ]  # fmt: skip
    process = await asyncio.to_thread(
        subprocess.Popen, command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        url = f"http://127.0.0.1:{port}/readyz"
        await asyncio.to_thread(wait_until_answered, url, process, seconds=WAIT_SECONDS)
        yield process
    finally:
        await asyncio.to_thread(stop, process, WAIT_SECONDS)


async def resumed(port: int) -> None:
    """Until the gateway holds the subscription and has read its user's state (the resume's
    read, which sends an event only when the state is not the one the client last saw)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        for _ in range(int(WAIT_SECONDS / 0.1)):
            page = (await client.get("/metrics")).text
            if (
                total(page, "gateway_subscriptions") >= 1
                and total(page, "gateway_subscription_rereads_total") >= 1
            ):
                return
            await asyncio.sleep(0.1)
    raise AssertionError(f"no subscription resumed within {WAIT_SECONDS} s")


async def test_an_event_source_resumes_with_last_event_id_across_gateway_restarts(
    settings: Settings, dynamodb: Any
) -> None:
    from playwright.async_api import Request, Route, async_playwright

    given = live_settings(settings)
    await set_low_balance_alert(dynamodb, given, USER, "40")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    token = mint_token(SECRET, USER, (), timedelta(hours=1), SystemClock())
    streams: list[Request] = []

    async def app_page(route: Route) -> None:
        # The frontend, as if served beside the gateway on its origin (a page of its own).
        await route.fulfill(status=200, content_type="text/html", body="<!doctype html><p>app")

    def requested(request: Request) -> None:
        if request.url.startswith(origin + "/graphql?"):
            streams.append(request)

    async def seen_count(page: Any, count: int) -> None:
        await page.wait_for_function(
            f"() => window.seen.length >= {count}", timeout=WAIT_SECONDS * 1000
        )

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = await browser.new_page()
            await page.route(origin + "/app", app_page)
            page.on("request", requested)
            async with gateway(given, port):
                await page.goto(origin + "/app")
                await page.evaluate(PAGE_SCRIPT, [token, SUBSCRIPTION])
                await seen_count(page, 1)
            # Away: no gateway on the port while the state changes.
            await set_low_balance_alert(dynamodb, given, USER, "55")
            async with gateway(given, port):
                await seen_count(page, 2)
            async with gateway(given, port):  # nothing changed while it was away
                await resumed(port)
            await set_low_balance_alert(dynamodb, given, USER, "70")
            async with gateway(given, port):
                await seen_count(page, 3)
                seen = await page.evaluate("window.seen")
                opens, failed = await page.evaluate("[window.opens, window.failed]")
            cookies = await page.context.cookies()
            sent = [await request.all_headers() for request in streams]
        finally:
            await browser.close()

    assert [event["data"] for event in seen] == [
        {"data": {"userChanged": {"id": USER, "lowBalanceAlert": dollars}}}
        for dollars in ("40.00", "55.00", "70.00")
    ]
    ids = [event["id"] for event in seen]
    assert len(set(ids)) == 3
    # Four streams opened (a first and three resumes), and the EventSource never gave up.
    # The subscription asks `initial: true`: a stream opened without the id the page last
    # saw would send the current state again, so no repeated state is the resumes' doing
    # (`Last-Event-ID`, which the browser adds below what Playwright's requests show).
    assert (opens, failed) == (4, False)
    assert all("authorization" not in headers for headers in sent)
    assert all(headers.get("accept") == "text/event-stream" for headers in sent)
    [cookie] = cookies
    assert (cookie["name"], cookie["path"], cookie["sameSite"]) == (
        "insight_stream_token",
        "/graphql",
        "Strict",
    )
    assert (cookie["httpOnly"], cookie["secure"]) == (True, True)
    assert json.dumps(sent).count(token) == len(sent)  # in each stream's Cookie header alone
