// Apollo Client over GraphQLWsLink (the setup docs/subscriptions.md shows): a query, then a
// subscription, both through the same link; the query's data and then each subscription
// result are printed as JSON lines ({"query": data}, {"next": {"data": …}}, {"error": …}).
// Usage: node apollo.mjs '{"url": "ws://…/graphql", "token": "…", "query": "…",
//                          "subscription": "…", "variables": {…}}'
import { ApolloClient, InMemoryCache, gql } from "@apollo/client";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

import { describe, emit, runUntilStdinCloses } from "./lines.mjs";

const { url, token, query, subscription, variables } = JSON.parse(process.argv[2]);

const link = new GraphQLWsLink(
  createClient({
    url,
    webSocketImpl: WebSocket, // node 20 has no global WebSocket
    connectionParams: () => ({ Authorization: `Bearer ${token}` }),
  }),
);
const client = new ApolloClient({ link, cache: new InMemoryCache() });

let watching;
runUntilStdinCloses(async () => {
  watching?.unsubscribe();
  client.stop();
  await link.client.dispose();
});

try {
  const { data } = await client.query({ query: gql(query), variables });
  emit({ query: data });
} catch (error) {
  emit({ error: describe(error) });
}

watching = client.subscribe({ query: gql(subscription), variables }).subscribe({
  next: ({ data, error }) => emit(error ? { error: describe(error) } : { next: { data } }),
  error: (error) => emit({ error: describe(error) }),
  complete: () => emit({ complete: true }),
});
