// A composed graph on 127.0.0.1, for tests/federation/test_composition.py:
//   node router.js <insight subgraph URL> <insight subgraph SDL file> <teams JSON>
// starts "accounts", a tiny second subgraph whose teams list their members as `User`
// references, composes the supergraph from both subgraphs' SDL (@apollo/composition), and
// serves it with @apollo/gateway. Prints {"router": URL} on its first line once ready, and
// exits when its standard input closes (the test ended, or died).
//
// The router forwards `Authorization` and `X-Insight-Cost` to the subgraphs, and answers
// each insight fetch's `extensions.cost` in its own `extensions.insightCosts`.
const fs = require("node:fs");
const { parse } = require("graphql");
const { ApolloServer } = require("@apollo/server");
const { startStandaloneServer } = require("@apollo/server/standalone");
const { ApolloServerPluginInlineTraceDisabled } = require("@apollo/server/plugin/disabled");
const { buildSubgraphSchema } = require("@apollo/subgraph");
const { composeServices } = require("@apollo/composition");
const { ApolloGateway, RemoteGraphQLDataSource } = require("@apollo/gateway");

const [insightUrl, insightSdlFile, teamsJson] = process.argv.slice(2);
const teams = JSON.parse(teamsJson);
const LOOPBACK = { host: "127.0.0.1", port: 0 };

const accountsTypeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])

  type Query {
    team(name: String!): Team
  }

  type Team {
    name: String!
    members: [User]!
  }

  type User @key(fields: "id", resolvable: false) {
    id: ID!
  }
`);

const accountsResolvers = {
  Query: {
    team: (_, { name }) => (name in teams ? { name, members: teams[name] } : null),
  },
  Team: {
    members: (team) => team.members.map((id) => ({ __typename: "User", id })),
  },
};

class ForwardingDataSource extends RemoteGraphQLDataSource {
  willSendRequest({ request, context }) {
    for (const header of ["authorization", "x-insight-cost"]) {
      const value = context.headers?.[header];
      if (value) request.http.headers.set(header, value);
    }
  }

  async didReceiveResponse({ response, context }) {
    const cost = response.extensions?.cost;
    if (cost && this.name === "insight") context.insightCosts.push(cost);
    return response;
  }
}

const reportInsightCosts = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind === "single" && contextValue.insightCosts.length > 0) {
          const result = response.body.singleResult;
          result.extensions = { ...result.extensions, insightCosts: contextValue.insightCosts };
        }
      },
    };
  },
};

async function main() {
  const accounts = new ApolloServer({
    schema: buildSubgraphSchema([{ typeDefs: accountsTypeDefs, resolvers: accountsResolvers }]),
    // Its notice would go to stdout, where the first line is the router's address.
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url: accountsUrl } = await startStandaloneServer(accounts, { listen: LOOPBACK });

  const composed = composeServices([
    { name: "accounts", typeDefs: accountsTypeDefs, url: accountsUrl },
    { name: "insight", typeDefs: parse(fs.readFileSync(insightSdlFile, "utf8")), url: insightUrl },
  ]);
  if (composed.errors) {
    process.stderr.write(composed.errors.map((e) => e.message).join("\n") + "\n");
    process.exit(1);
  }

  const gateway = new ApolloGateway({
    supergraphSdl: composed.supergraphSdl,
    buildService: ({ name, url }) => Object.assign(new ForwardingDataSource({ url }), { name }),
  });
  const router = new ApolloServer({ gateway, plugins: [reportInsightCosts] });
  const { url } = await startStandaloneServer(router, {
    listen: LOOPBACK,
    context: async ({ req }) => ({ headers: req.headers, insightCosts: [] }),
  });
  process.stdout.write(JSON.stringify({ router: url }) + "\n");
}

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
