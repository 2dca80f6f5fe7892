"""`INSIGHT_SUBSCRIPTIONS_COMPRESSION`: under the gateway's WebSocket protocol (the image's
`--ws`), per-message compression is off by default, the client's offer of permessage-deflate
declined in the handshake's answer, and on when the setting says so."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect

from gateway.app import create_app
from gateway.settings import Settings
from support.fixed_clock import FixedClock
from support.serving import serving
from tests.gateway.subscriptions.conftest import live_settings
from tests.gateway.subscriptions.socket_client import PROTOCOL, WAIT_SECONDS


@pytest.mark.parametrize(
    ("compression", "negotiated"), [(False, None), (True, "permessage-deflate")]
)
async def test_compression_is_negotiated_only_when_the_setting_is_on(
    settings: Settings, clock: FixedClock, compression: bool, negotiated: str | None
) -> None:
    given = live_settings(settings, subscriptions_compression=compression)
    async with (
        serving(create_app(given, clock=clock)) as url,
        # The client offers permessage-deflate, as browsers do.
        connect(
            url,
            subprotocols=[PROTOCOL],  # type: ignore[list-item]
            open_timeout=WAIT_SECONDS,
            compression="deflate",
        ) as connection,
    ):
        assert connection.request is not None
        assert "permessage-deflate" in connection.request.headers["Sec-WebSocket-Extensions"]
        assert connection.response is not None
        answered = connection.response.headers.get("Sec-WebSocket-Extensions")
        assert (answered.split(";")[0] if answered else None) == negotiated
