"""An HTTP-level refusal: a status, the GatewayError the client reads (BadRequest, for a request
that is not a GraphQL request at all), extra headers."""

from __future__ import annotations

from collections.abc import Mapping

from loaders.errors import GatewayError


class HttpProblem(Exception):
    """Raised while reading a request that cannot become a GraphQL operation at all."""

    def __init__(
        self, status: int, error: GatewayError, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error
        self.headers = dict(headers or {})
