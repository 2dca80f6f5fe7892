// graphql-ws's own client left to reconnect by itself: each connection goes to the next of
// `urls` (as a balancer would send it to another replica), and what happens is printed as JSON
// lines: {"connected": url}, {"closed": code}, and the sink's {"next": …}, {"error": …}.
// Usage: node reconnect.mjs '{"urls": ["ws://…/graphql", …], "token": "…", "query": "…"}'
import { createClient } from "graphql-ws";
import WebSocket from "ws";

import { describe, emit, runUntilStdinCloses } from "./lines.mjs";

const { urls, token, query } = JSON.parse(process.argv[2]);
let attempt = 0;

const client = createClient({
  url: () => urls[attempt++ % urls.length],
  webSocketImpl: WebSocket, // node 20 has no global WebSocket
  connectionParams: () => ({ Authorization: `Bearer ${token}` }),
  on: {
    connected: (socket) => emit({ connected: socket.url }),
    closed: (event) => emit({ closed: event.code }),
  },
});

client.subscribe(
  { query },
  {
    next: (result) => emit({ next: result }),
    error: (error) => emit({ error: describe(error) }),
    complete: () => emit({ complete: true }),
  },
);

runUntilStdinCloses(() => client.dispose());
