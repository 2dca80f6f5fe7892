// What the clients share: one JSON object per stdout line (what the Python test reads), and a
// bounded life. A client runs until the test closes its stdin, or for at most `seconds`.

export function emit(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

// What an `error` sink receives, as JSON: GraphQL errors (graphql-ws's array, Apollo's
// CombinedGraphQLErrors), a CloseEvent (its code and reason), or anything else (its message).
export function describe(error) {
  if (Array.isArray(error)) return { errors: error };
  if (Array.isArray(error?.errors)) return { errors: error.errors };
  if (error && typeof error.code === "number" && "reason" in error) {
    return { close: { code: error.code, reason: String(error.reason) } };
  }
  return { message: String(error?.message ?? error) };
}

// `stop` (which may be async) runs when stdin closes; after `seconds` the process ends anyway.
export function runUntilStdinCloses(stop, seconds = 120) {
  const deadline = setTimeout(() => {
    emit({ timeout: seconds });
    process.exit(2);
  }, seconds * 1000);
  process.stdin.on("end", async () => {
    clearTimeout(deadline);
    await stop();
    process.exit(0);
  });
  process.stdin.resume();
}
