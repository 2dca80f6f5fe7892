// Apollo Client over its HttpLink alone: a subscription sent as a multipart HTTP
// subscription (`multipart/mixed;subscriptionSpec=1.0`, HttpLink's own for a subscription),
// each result printed as a JSON line ({"next": {"data": …, "eventId": …}}, {"error": …}).
// Usage: node apollo_http.mjs '{"url": "http://…/graphql", "token": "…", "subscription": "…",
//                               "variables": {…}, "lastEventId": "…" (optional)}'
import { ApolloClient, HttpLink, InMemoryCache, gql } from "@apollo/client";

import { describe, emit, runUntilStdinCloses } from "./lines.mjs";

const { url, token, subscription, variables, lastEventId } = JSON.parse(process.argv[2]);

const link = new HttpLink({
  uri: url,
  headers: { Authorization: `Bearer ${token}` },
  includeExtensions: true,
});
const client = new ApolloClient({ link, cache: new InMemoryCache() });

const watching = client
  .subscribe({
    query: gql(subscription),
    variables,
    extensions: lastEventId ? { lastEventId } : undefined,
  })
  .subscribe({
    next: ({ data, error, extensions }) =>
      emit(error ? { error: describe(error) } : { next: { data, eventId: extensions?.eventId } }),
    error: (error) => emit({ error: describe(error) }),
    complete: () => emit({ complete: true }),
  });

runUntilStdinCloses(() => {
  watching.unsubscribe();
  client.stop();
});
