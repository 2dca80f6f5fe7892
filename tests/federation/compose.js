// Apollo's composition of subgraph SDL files, for tests/federation/test_cost_directives.py:
//   node compose.js <name>=<SDL file> ...
// prints {"supergraphSdl": "..."} when the subgraphs compose, else {"errors": [...]}, and
// {"hints": [...]} alongside either. Exits 0 in both cases: the test reads the answer.
const fs = require("node:fs");
const { parse } = require("graphql");
const { composeServices } = require("@apollo/composition");

const services = process.argv.slice(2).map((argument) => {
  const [name, file] = argument.split("=");
  return { name, typeDefs: parse(fs.readFileSync(file, "utf8")), url: `http://${name}.invalid/graphql` };
});
const composed = composeServices(services);
const hints = (composed.hints || []).map((hint) => hint.toString());
if (composed.errors) {
  process.stdout.write(JSON.stringify({ errors: composed.errors.map((e) => e.message), hints }) + "\n");
} else {
  process.stdout.write(JSON.stringify({ supergraphSdl: composed.supergraphSdl, hints }) + "\n");
}
