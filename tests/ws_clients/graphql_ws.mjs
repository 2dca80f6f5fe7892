// graphql-ws's own client (the one docs/subscriptions.md shows): one operation, and every
// message its sink receives printed as a JSON line ({"next": …}, {"error": …}, {"complete": true}).
// Usage: node graphql_ws.mjs '{"url": "ws://…/graphql", "token": "…", "query": "…", "variables": {…}}'
import { createClient } from "graphql-ws";
import WebSocket from "ws";

import { describe, emit, runUntilStdinCloses } from "./lines.mjs";

const { url, token, query, variables } = JSON.parse(process.argv[2]);

const client = createClient({
  url,
  webSocketImpl: WebSocket, // node 20 has no global WebSocket
  connectionParams: { Authorization: `Bearer ${token}` },
});

client.subscribe(
  { query, variables },
  {
    next: (result) => emit({ next: result }),
    error: (error) => emit({ error: describe(error) }),
    complete: () => emit({ complete: true }),
  },
);

runUntilStdinCloses(() => client.dispose());
