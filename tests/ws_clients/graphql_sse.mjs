// graphql-sse's own client, distinct connections mode (its default): one operation over
// `text/event-stream`, and every result its sink receives printed as a JSON line
// ({"next": …}, {"error": …}, {"complete": true}).
// Usage: node graphql_sse.mjs '{"url": "http://…/graphql", "token": "…", "query": "…", "variables": {…}}'
import { createClient } from "graphql-sse";

import { describe, emit, runUntilStdinCloses } from "./lines.mjs";

const { url, token, query, variables } = JSON.parse(process.argv[2]);

const client = createClient({
  url,
  headers: { Authorization: `Bearer ${token}` },
  retryAttempts: 0, // a refusal is printed, not retried
});

const stop = client.subscribe(
  { query, variables },
  {
    next: (result) => emit({ next: result }),
    error: (error) => emit({ error: describe(error) }),
    complete: () => emit({ complete: true }),
  },
);

runUntilStdinCloses(() => {
  stop();
  client.dispose();
});
