"""What the lean path's connections follow: `WireSettings`, the same values that build the
botocore client (the gateway makes them from its own settings, gateway/resources.py; a
test from a client's public `meta`), and what it cannot follow (`refusal`): a proxy, a
retry mode other than standard, an endpoint with a path. Such a client's reads stay on
botocore's path.

One pool an endpoint URL (with account-ID endpoints, the URL is the credentials'), made on
its first call and closed with the botocore client: on the exit stack aiobotocore closes
its own aiohttp session with (`close_with`, the one private reach; docs/dependencies.md)."""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from botocore.httpsession import create_urllib3_context, get_cert_path
from botocore.utils import get_environ_proxies

from loaders.wire.pool import ConnectionPool

__all__ = ["STANDARD", "WireSettings", "close_with", "default_verify", "tls_context"]

#: botocore's standard retry mode, the one the lean path follows.
STANDARD = "standard"
#: aiobotocore's keep-alive when the client's config names none.
DEFAULT_KEEPALIVE_SECONDS = 12.0
#: An account-ID endpoint (botocore's ruleset for the aws partition, 1.40).
ACCOUNT_ENDPOINT = "https://{account}.ddb.{region}.amazonaws.com"


def default_verify() -> bool | str:
    """botocore's TLS verification when the client names none: a CA bundle from the
    environment (`AWS_CA_BUNDLE`, then `REQUESTS_CA_BUNDLE`), else the system's."""
    return os.environ.get("AWS_CA_BUNDLE") or os.environ.get("REQUESTS_CA_BUNDLE") or True


@dataclass(frozen=True, slots=True)
class WireSettings:
    """The lean path's configuration: the botocore client's, value for value."""

    endpoint_url: str
    region: str
    user_agent: str = "insight-gateway"
    retry_mode: str = STANDARD
    pool_size: int = 10
    connect_timeout: float | None = 60.0
    read_timeout: float | None = 60.0
    keepalive: float = DEFAULT_KEEPALIVE_SECONDS
    verify: bool | str = True
    client_cert: str | tuple[str, str] | None = None
    #: The configured proxies (botocore's `Config.proxies`); the environment's are added.
    proxies: Mapping[str, str] = field(default_factory=dict)
    #: Whether botocore would send to an account-ID endpoint when the credentials carry an
    #: account (no endpoint URL configured, `account_id_endpoint_mode` not disabled).
    account_endpoints: bool = False

    @classmethod
    def of_client(cls, client: Any, *, verify: bool | str | None = None) -> WireSettings:
        """From a botocore client's public `meta` (the TLS choice is the client's argument,
        not kept on it: pass it again). No account-ID endpoints: a client given to a test
        names its endpoint."""
        config: Any = client.meta.config
        retries: Mapping[str, Any] = config.retries or {}
        connector: Mapping[str, Any] = config.connector_args or {}
        return cls(
            endpoint_url=client.meta.endpoint_url,
            region=client.meta.region_name,
            user_agent=config.user_agent or "insight-gateway",
            retry_mode=retries.get("mode") or os.environ.get("AWS_RETRY_MODE") or "legacy",
            pool_size=config.max_pool_connections,
            connect_timeout=config.connect_timeout,
            read_timeout=config.read_timeout,
            keepalive=connector.get("keepalive_timeout", DEFAULT_KEEPALIVE_SECONDS),
            verify=default_verify() if verify is None else verify,
            client_cert=config.client_cert,
            proxies=config.proxies or {},
        )

    def refusal(self) -> str | None:
        """Why the lean path cannot follow this configuration (None: it can)."""
        if self.retry_mode != STANDARD:
            return f"retry mode {self.retry_mode!r} (the lean path retries as standard mode)"
        parts = urlsplit(self.endpoint_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return f"endpoint {self.endpoint_url!r} is not an http(s) URL"
        if parts.path not in ("", "/") or parts.query:
            return f"endpoint {self.endpoint_url!r} has a path"
        proxies = dict(self.proxies) or get_environ_proxies(self.endpoint_url)
        if proxies.get(parts.scheme):
            return f"a proxy for {parts.scheme} (the lean path connects directly)"
        return None

    def url_for(self, account_id: str | None) -> str:
        """The endpoint a call goes to: the account's, as botocore picks it, when the
        credentials carry one."""
        if self.account_endpoints and account_id:
            return ACCOUNT_ENDPOINT.format(account=account_id, region=self.region)
        return self.endpoint_url

    def pool(self, url: str) -> ConnectionPool:
        return ConnectionPool(
            url,
            size=self.pool_size,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            keepalive=self.keepalive,
            tls=tls_context(self.verify, self.client_cert) if url.startswith("https:") else None,
        )


def tls_context(verify: bool | str, client_cert: str | tuple[str, str] | None) -> ssl.SSLContext:
    """The TLS context aiobotocore's session would use, checking the host name as well."""
    if not verify:
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE
        return unverified
    context: ssl.SSLContext = create_urllib3_context()
    if isinstance(client_cert, tuple):
        context.load_cert_chain(*client_cert)
    elif client_cert:
        context.load_cert_chain(client_cert)
    context.load_verify_locations(get_cert_path(True) if verify is True else verify)
    context.check_hostname = True
    return context


def close_with(client: Any, pool: ConnectionPool) -> None:
    """Close `pool` when the botocore client closes. aiobotocore has no public hook for
    its closing: its endpoint's HTTP session closes an exit stack, which this joins."""
    endpoint: Any = getattr(client, "_endpoint")  # noqa: B009 (not in its stubs)
    endpoint.http_session._exit_stack.push_async_callback(pool.close)
