// Apollo Client with its BatchHttpLink against a running gateway, for
// tests/clients/test_batch_http_link.py:
//   node batch.mjs <GraphQL URL> <bearer token> <queries JSON array>
// issues every query at once (no cache), so that BatchHttpLink sends them in one POST, and
// prints one JSON line: {"results": [{data} | {error}, ...]} in the order of the queries.
// The client names itself `batch-link-test` 1.0 (Apollo's client-awareness headers).
import { ApolloClient, InMemoryCache, gql } from "@apollo/client";
import { BatchHttpLink } from "@apollo/client/link/batch-http";

const [uri, token, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson);

const client = new ApolloClient({
  link: new BatchHttpLink({
    uri,
    headers: { Authorization: `Bearer ${token}` },
    batchMax: 10,
    // Long enough that queries issued in one tick always share a batch on a loaded machine.
    batchInterval: 100,
  }),
  cache: new InMemoryCache(),
  clientAwareness: { name: "batch-link-test", version: "1.0" },
});

const results = await Promise.all(
  queries.map((query) =>
    client
      .query({ query: gql(query), fetchPolicy: "no-cache" })
      .then((result) => ({ data: result.data }))
      .catch((error) => ({ error: String(error) })),
  ),
);
process.stdout.write(JSON.stringify({ results }) + "\n");
