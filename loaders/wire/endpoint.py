"""The lean path's connections, configured from the botocore client they serve beside: its
endpoint, `max_pool_connections`, connect and read timeouts, keep-alive, and TLS as its
aiohttp session verifies (`verify`, a CA bundle, a client certificate).

One pool a botocore client, made on its first lean call and closed with the client (on
the exit stack aiobotocore closes its own aiohttp session with). An endpoint reached
through a proxy is not served: its calls keep botocore's path, which knows proxies."""

from __future__ import annotations

import ssl
from typing import Any
from weakref import WeakKeyDictionary

from aiobotocore.client import AioBaseClient
from botocore.httpsession import create_urllib3_context, get_cert_path

from loaders.wire.pool import ConnectionPool

__all__ = ["pool_for", "reachable_directly", "signing_credentials_of"]

#: aiobotocore's keep-alive when the client's config names none.
DEFAULT_KEEPALIVE_SECONDS = 12.0

_POOLS: WeakKeyDictionary[AioBaseClient, ConnectionPool] = WeakKeyDictionary()


def _http_session(client: AioBaseClient) -> Any:
    # aiobotocore keeps its transport settings on the endpoint's session, not on the Config.
    endpoint: Any = getattr(client, "_endpoint")  # noqa: B009 (not in its stubs)
    return endpoint.http_session


def signing_credentials_of(client: AioBaseClient) -> Any:
    """The credentials object the client signs with (None: it found none)."""
    signer: Any = getattr(client, "_request_signer")  # noqa: B009 (not in its stubs)
    return signer._credentials


def reachable_directly(client: AioBaseClient) -> bool:
    """Whether the client reaches its endpoint without a proxy (configured or from the
    environment, as botocore finds them)."""
    proxies: Any = _http_session(client)._proxy_config
    return not proxies.proxy_url_for(client.meta.endpoint_url)


def tls_context(http_session: Any) -> ssl.SSLContext:
    """The TLS context aiobotocore's session would use, checking the host name as well."""
    if not http_session._verify:
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE
        return unverified
    context: ssl.SSLContext = create_urllib3_context()
    if http_session._cert_file:
        context.load_cert_chain(http_session._cert_file, http_session._key_file)
    context.load_verify_locations(get_cert_path(http_session._verify))
    context.check_hostname = True
    return context


def pool_for(client: AioBaseClient) -> ConnectionPool:
    """The client's pool, made (and its closing arranged) on the first call."""
    pool = _POOLS.get(client)
    if pool is not None and not pool.closed:
        return pool
    config: Any = client.meta.config
    http_session = _http_session(client)
    connector: dict[str, Any] = config.connector_args or {}
    url: str = client.meta.endpoint_url
    pool = ConnectionPool(
        url,
        size=config.max_pool_connections,
        connect_timeout=config.connect_timeout,
        read_timeout=config.read_timeout,
        keepalive=connector.get("keepalive_timeout", DEFAULT_KEEPALIVE_SECONDS),
        tls=tls_context(http_session) if url.startswith("https:") else None,
    )
    http_session._exit_stack.push_async_callback(pool.close)
    _POOLS[client] = pool
    return pool
