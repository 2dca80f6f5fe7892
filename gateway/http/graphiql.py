"""The GraphiQL page, loading its scripts from the gateway itself.

The page points at the assets under `ASSETS_PATH` when they were fetched at build time (see
`gateway.http.graphiql_assets`) and falls back to the public CDN only when they are absent, so that
GraphiQL works on a network with no internet access.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gateway.http.graphiql_assets import ASSETS, ASSETS_DIR, Asset, assets_present

ASSETS_PATH = "/static/graphiql"

_FAVICON = (
    "data:image/svg+xml,<svg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 100 100%22>"
    "<text y=%22.9em%22 font-size=%2280%22>%E2%97%88</text></svg>"
)


@dataclass(frozen=True, slots=True)
class GraphiQLDefaults:
    """What the page opens with: the embedded mode puts a demo query and its token here."""

    query: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def render(
        self,
        *,
        query: str | None = None,
        variables: str | None = None,
        local_assets: bool | None = None,
    ) -> str:
        """The HTML of the page; `query` and `variables` (a link's `?query=…&variables=…`)
        replace the default query. `local_assets` forces the local or the CDN assets
        (default: local when fetched). Queries go to the page's own address."""
        if local_assets is None:
            local_assets = assets_present()
        config = {
            "defaultQuery": query or self.query or _WELCOME_QUERY,
            "defaultVariables": (variables if query else None) or "",
            "defaultHeaders": json.dumps(dict(self.headers), indent=2) if self.headers else "",
        }
        return _PAGE.format(
            favicon=_FAVICON,
            styles="\n".join(
                f'    <link rel="stylesheet" {_attributes(asset, "href", local_assets)} />'
                for asset in ASSETS
                if asset.name.endswith(".css")
            ),
            scripts="\n".join(
                f"    <script {_attributes(asset, 'src', local_assets)}></script>"
                for asset in ASSETS
                if asset.name.endswith(".js")
            ),
            config=_json_for_script(config),
        )


def graphiql_redirect_route(path: str = "/", target: str = "/graphql") -> Route:
    """`GET /` leads a browser to GraphiQL, keeping the query string (`/?query=…`)."""

    async def redirect(request: Request) -> Response:
        query = request.url.query
        return RedirectResponse(f"{target}?{query}" if query else target, status_code=307)

    return Route(path, redirect, methods=["GET"])


def graphiql_static_mount(directory: Path = ASSETS_DIR, path: str = ASSETS_PATH) -> Mount:
    """The route serving the fetched assets; it answers 404 while they are absent."""
    return Mount(path, app=_OptionalStaticFiles(directory=directory, check_dir=False))


class _OptionalStaticFiles(StaticFiles):
    # A gateway built without the assets still starts, answers 404 here, and its page uses the
    # CDN; plain StaticFiles would fail every request on the missing directory instead.
    async def check_config(self) -> None:
        if self.directory is not None and await anyio.Path(self.directory).is_dir():
            await super().check_config()


def _attributes(asset: Asset, url_attribute: str, local: bool) -> str:
    url = f"{ASSETS_PATH}/{asset.name}" if local else asset.cdn_url
    # Subresource Integrity in both cases: the browser refuses a file that is not the pinned one.
    attributes = f'{url_attribute}="{html.escape(url)}" integrity="{asset.integrity}"'
    if not local:
        attributes += ' crossorigin="anonymous"'
    return attributes


def _json_for_script(value: object) -> str:
    # Inside <script>, "</script>" or "<!--" in a query would end the element early.
    return (
        json.dumps(value)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


_WELCOME_QUERY = """\
# The Insight gateway.
#
# Run a query with Ctrl-Enter or the play button;
# Ctrl-Space completes. Put your token in Headers:
#   {"Authorization": "Bearer <JWT>"}
query Me {
  viewer {
    id
  }
}
"""

_PAGE = """\
<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Insight gateway · GraphiQL</title>
    <link rel="icon" href="{favicon}" />
    <style>
      body {{ height: 100%; margin: 0; width: 100%; overflow: hidden; }}
      #graphiql {{ height: 100vh; display: flex; }}
      #graphiql-failed {{ font-family: sans-serif; padding: 2rem; }}
    </style>
{styles}
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
{scripts}
    <script>
      (function () {{
        const config = {config};
        const root = document.getElementById("graphiql");
        if (typeof GraphiQL === "undefined" || typeof ReactDOM === "undefined") {{
          root.innerHTML =
            '<p id="graphiql-failed">GraphiQL\\'s scripts could not be loaded. Build the ' +
            "gateway with its assets (<code>make graphiql-assets</code>) to serve them " +
            "without internet access.</p>";
          return;
        }}
        const url = new URL(window.location.pathname, window.location.href);
        const http = GraphiQL.createFetcher({{ url: url.toString() }});
        const socketUrl = new URL(url.toString());
        socketUrl.protocol = url.protocol === "https:" ? "wss:" : "ws:";
        // Subscriptions go over a WebSocket by default (graphql-transport-ws, the pinned
        // graphql-ws client), one per subscription, with the Headers editor's token as its
        // connection_init payload; everything else over HTTP.
        function isSubscription(params, options) {{
          const document = options && options.documentAST;
          if (!document) return /^\\s*subscription\\b/.test(params.query || "");
          const operations = document.definitions.filter((d) => d.kind === "OperationDefinition");
          const chosen = operations.find(
            (d) => !params.operationName || (d.name && d.name.value === params.operationName),
          );
          return Boolean(chosen) && chosen.operation === "subscription";
        }}
        function asError(error) {{
          if (Array.isArray(error) || error instanceof Error) return error;
          if (error && typeof error.code === "number") {{
            return new Error("WebSocket closed with " + error.code + ": " + (error.reason || ""));
          }}
          return new Error(String(error));
        }}
        // `/graphql?transport=sse` (or no graphql-ws script): subscriptions over GraphQL
        // over SSE instead (graphql-sse, distinct connections), by fetch, with the token in
        // the request's headers.
        const overSse =
          new URLSearchParams(window.location.search).get("transport") === "sse" ||
          typeof graphqlWs === "undefined";
        function sseBlocks(text) {{
          const blocks = text.split("\\n\\n");
          return {{ complete: blocks.slice(0, -1), rest: blocks[blocks.length - 1] }};
        }}
        function overEventStream(params, headers) {{
          return {{
            subscribe(observer) {{
              const controller = new AbortController();
              (async () => {{
                const response = await fetch(url.toString(), {{
                  method: "POST",
                  headers: {{
                    ...headers,
                    "Content-Type": "application/json",
                    Accept: "text/event-stream",
                  }},
                  body: JSON.stringify(params),
                  signal: controller.signal,
                }});
                if (!response.ok) {{
                  const answer = await response.json();
                  observer.error(answer.errors || new Error("HTTP " + response.status));
                  return;
                }}
                const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
                let buffered = "";
                for (;;) {{
                  const {{ value, done }} = await reader.read();
                  if (done) break;
                  const {{ complete, rest }} = sseBlocks(buffered + value);
                  buffered = rest;
                  for (const block of complete) {{
                    const lines = block.split("\\n");
                    const event = lines.find((l) => l.startsWith("event:"));
                    const data = lines.filter((l) => l.startsWith("data:"));
                    const name = event ? event.slice(6).trim() : "";
                    if (name === "complete") {{
                      observer.complete();
                      return;
                    }}
                    if (name === "next") {{
                      observer.next(JSON.parse(data.map((l) => l.slice(5)).join("\\n")));
                    }}
                  }}
                }}
                observer.complete();
              }})().catch((error) => {{
                if (error.name !== "AbortError") observer.error(asError(error));
              }});
              return {{ unsubscribe: () => controller.abort() }};
            }},
          }};
        }}
        function fetcher(params, options) {{
          if (!isSubscription(params, options)) {{
            return http(params, options);
          }}
          const headers = (options && options.headers) || {{}};
          if (overSse) {{
            return overEventStream(params, headers);
          }}
          return {{
            subscribe(observer) {{
              const client = graphqlWs.createClient({{
                url: socketUrl.toString(),
                connectionParams: headers,
                retryAttempts: 0,
              }});
              const dispose = client.subscribe(params, {{
                next: (value) => observer.next(value),
                error: (error) => observer.error(asError(error)),
                complete: () => observer.complete(),
              }});
              return {{
                unsubscribe() {{
                  dispose();
                  client.dispose();
                }},
              }};
            }},
          }};
        }}
        ReactDOM.createRoot(root).render(
          React.createElement(GraphiQL, {{
            fetcher: fetcher,
            query: config.defaultQuery,
            variables: config.defaultVariables || undefined,
            headers: config.defaultHeaders,
            defaultEditorToolsVisibility: config.defaultHeaders ? "headers" : true,
            isHeadersEditorEnabled: true,
            // Tokens stay out of the browser's storage.
            shouldPersistHeaders: false,
          }}),
        );
      }})();
    </script>
  </body>
</html>
"""
