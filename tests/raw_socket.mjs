// docs/getting-started.md's second subscription example (websocat) in node, on node's own
// WebSocket: no package to install. `node raw_socket.mjs <url> <message> <message>...` opens a
// graphql-transport-ws socket, sends the first message (the `connection_init`), then the others
// once the server acknowledges, as a person pasting the lines would. It prints every message
// the server sends (one JSON line each; pings are answered with a pong and not printed), and
// `{"close": {"code", "reason"}}` when the socket closes. It runs until it is stopped, or for at
// most 120 seconds.

const [url, first, ...rest] = process.argv.slice(2);
const socket = new WebSocket(url, "graphql-transport-ws");

const deadline = setTimeout(() => {
  console.log(JSON.stringify({ timeout: 120 }));
  process.exit(2);
}, 120_000);

socket.addEventListener("open", () => socket.send(first));
socket.addEventListener("message", (event) => {
  const message = JSON.parse(event.data);
  if (message.type === "ping") {
    socket.send(JSON.stringify({ type: "pong" }));
    return;
  }
  console.log(JSON.stringify(message));
  if (message.type === "connection_ack") {
    for (const line of rest) socket.send(line);
  }
});
socket.addEventListener("close", (event) => {
  console.log(JSON.stringify({ close: { code: event.code, reason: event.reason } }));
  clearTimeout(deadline);
  process.exit(0);
});
socket.addEventListener("error", () => {
  // The close event that follows says how it ended.
});
