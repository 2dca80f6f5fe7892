"""Live data over plain HTTP: GraphQL over Server-Sent Events (`graphql-sse`, distinct
connections) and Apollo's multipart subscriptions, on /graphql by the request's Accept.

- `framing.py`: each transport's bytes, and the id that names an event's state;
- `stream.py`: one streamed response, and the replica's streams ended at a restart;
- `stream_cookie.py`: a browser's `EventSource` credential (an HttpOnly cookie);
- `view.py`: the view's hook (the checks, `Last-Event-ID` / `extensions.lastEventId`, the
  operation run, the stream held);
- `server_protocol.py`: uvicorn's HTTP protocol, its request head bounded, ending the
  streams at SIGTERM.

The hub (schema.live) and the socket's bounds (gateway.subscriptions) are shared with the
WebSocket transport.
"""

from gateway.live_http.framing import StreamKind, event_id, stream_kind
from gateway.live_http.stream import LiveStream, OpenStreams
from gateway.live_http.view import LiveStreams

__all__ = ["LiveStream", "LiveStreams", "OpenStreams", "StreamKind", "event_id", "stream_kind"]
