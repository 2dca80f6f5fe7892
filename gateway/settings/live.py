"""The settings of live data: subscriptions, the streams' leases, the change feed and the
coherent cache."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.configuration import setting
from gateway.configuration.parsers import storage_uri
from gateway.settings.requests import RequestSettings


@dataclass(frozen=True, slots=True)
class LiveSettings(RequestSettings):
    # Live data (SPEC section 7): subscriptions, fed by the tables' DynamoDB Streams; each
    # shard read by one replica at a time under a lease in `locks`; changes shared between
    # replicas through the change feed.
    subscriptions: bool = setting(
        "INSIGHT_SUBSCRIPTIONS",
        False,
        "serve subscriptions (`graphql-transport-ws` on `/graphql`) and read the tables' "
        "DynamoDB Streams (`make serve` turns it on)",
    )
    change_feed_uri: str = setting(
        "INSIGHT_CHANGE_FEED_URI",
        "memory://",
        "how replicas share changes: `memory://` (one replica) or Redis (publish/subscribe, "
        "every replica)",
        parse=storage_uri,
    )
    subscriptions_max_per_connection: int = setting(
        "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION",
        20,
        "subscriptions one socket may hold at once",
        minimum=1,
        maximum=1000,
    )
    subscriptions_max_sockets_per_principal: int = setting(
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL",
        10,
        "open sockets one token `sub` may hold on a replica; over it, the upgrade is refused "
        "(429) or the socket closed with 4429 at `connection_init`",
        minimum=1,
        maximum=10_000,
    )
    subscriptions_max_sockets: int = setting(
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS",
        10_000,
        "open sockets per replica; over it, the upgrade is refused with 503 and `Retry-After` "
        "(the balancer tries another replica)",
        minimum=1,
        maximum=1_000_000,
    )
    # Before its token is checked a socket holds no replica place (issue 42), only one of
    # this allowance, for this long: docs/subscriptions.md has the reasoning.
    subscriptions_max_unauthenticated: int = setting(
        "INSIGHT_SUBSCRIPTIONS_MAX_UNAUTHENTICATED",
        256,
        "sockets per replica waiting for their `connection_init` (a token in the upgrade's "
        "`Authorization` needs none); spent, upgrades without a token get 503",
        minimum=1,
        maximum=1_000_000,
    )
    subscriptions_init_seconds: float = setting(
        "INSIGHT_SUBSCRIPTIONS_INIT_SECONDS",
        3.0,
        "how long a socket may wait before `connection_init` (then closed with 4408)",
        minimum=0.1,
        maximum=60,
    )
    subscriptions_compression: bool = setting(
        "INSIGHT_SUBSCRIPTIONS_COMPRESSION",
        False,
        "WebSocket per-message compression (permessage-deflate); off, a socket costs far "
        "less memory, and events are small",
    )
    stream_lease_seconds: float = setting(
        "INSIGHT_STREAM_LEASE_SECONDS",
        10.0,
        "a stream shard's lease in `locks`: a killed replica's shards are taken over after this",
        minimum=1,
        maximum=600,
    )
    # The coherent cache (SPEC section 8), trusted only while the change feed is whole.
    cache: bool = setting(
        "INSIGHT_CACHE",
        False,
        "the coherent cache: on, repeated reads are answered from memory, dropped by the "
        "change feed",
    )
    cache_max_bytes: int = setting(
        "INSIGHT_CACHE_MAX_BYTES",
        268_435_456,
        "the cache's bound per replica, least recently used out first",
        minimum=1_048_576,
        maximum=2**40,
    )
    cache_max_lag_seconds: float = setting(
        "INSIGHT_CACHE_MAX_LAG_SECONDS",
        2.0,
        "while any shard's position is older than this, or the feed is cut off, every read "
        "goes to DynamoDB",
        minimum=0.1,
        maximum=3600,
    )
