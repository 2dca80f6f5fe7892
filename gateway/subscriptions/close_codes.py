"""The close codes a subscriptions socket is closed with, and the one table of the GraphQL
error code each one means: a close is the socket's answer to a refused request, so
`gateway_graphql_errors_total` counts it under that code, as HTTP counts its 400 or 401.

The 44xx codes are graphql-transport-ws's (the npm `graphql-ws` library reads them); 1009 is
RFC 6455's. A close not in the table (the client's own, a server shutting down) is no error.
"""

from __future__ import annotations

from collections.abc import Mapping

#: A message that is not the protocol's: unknown type, bad JSON, no id, a bad payload.
BAD_REQUEST = 4400
#: No valid token at `connection_init`, a `subscribe` before the acknowledgement, the
#: token expired, or a token renewed in band that is invalid or names another `sub`.
UNAUTHORIZED = 4401
#: The client offered no subprotocol the gateway speaks.
SUBPROTOCOL_NOT_ACCEPTABLE = 4406
#: No `connection_init` in time.
INIT_TIMEOUT = 4408
#: A second operation under an id in use.
SUBSCRIBER_EXISTS = 4409
#: A second `connection_init` on the socket. The protocol names it "too many initialisation
#: requests"; it is a client's mistake, not a spent budget (budgets refuse an operation
#: with a RATE_LIMITED `error` message and keep the socket open).
TOO_MANY_INIT = 4429
#: The replica filled with authenticated sockets while this one waited for its token
#: (RFC 6455 "Try Again Later"): not the client's error.
TRY_AGAIN_LATER = 1013
#: A frame over the size bound (RFC 6455 "Message Too Big"; HTTP's is a 413).
MESSAGE_TOO_BIG = 1009

#: Close code → the `extensions.code` the same refusal has over HTTP (docs/errors.md).
ERROR_CODES: Mapping[int, str] = {
    BAD_REQUEST: "BAD_REQUEST",
    UNAUTHORIZED: "UNAUTHENTICATED",
    SUBPROTOCOL_NOT_ACCEPTABLE: "BAD_REQUEST",
    INIT_TIMEOUT: "BAD_REQUEST",
    SUBSCRIBER_EXISTS: "BAD_REQUEST",
    TOO_MANY_INIT: "BAD_REQUEST",
    MESSAGE_TOO_BIG: "BAD_REQUEST",
}
