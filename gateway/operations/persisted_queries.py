"""Apollo's automatic persisted queries: a client may send a query's SHA-256 in place of it.

The protocol: `extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}`. With no
`query`, the hash is looked up; a miss answers PERSISTED_QUERY_NOT_FOUND (message
"PersistedQueryNotFound", which Apollo's clients match) and the client sends the query and
its hash together, which registers it once the hash is verified. The cache is a bounded LRU,
by entries and by characters, so hostile clients can only evict, never grow it.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from typing import Any

from gateway.operations.operation import BadRequest
from loaders.errors import GatewayError

APQ_VERSION = 1
_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")


class PersistedQueryNotFound(GatewayError):
    code = "PERSISTED_QUERY_NOT_FOUND"
    default_message = "PersistedQueryNotFound"


class PersistedQueryNotSupported(GatewayError):
    code = "PERSISTED_QUERY_NOT_SUPPORTED"
    default_message = "PersistedQueryNotSupported"


class PersistedQueries:
    """The query texts registered by hash, the least recently used evicted first."""

    def __init__(self, max_entries: int, max_total_chars: int = 16_000_000) -> None:
        self.max_entries = max_entries
        self.max_total_chars = max_total_chars
        self._queries: OrderedDict[str, str] = OrderedDict()
        self._total_chars = 0

    def __len__(self) -> int:
        return len(self._queries)

    def __contains__(self, sha256_hash: object) -> bool:
        return sha256_hash in self._queries

    def resolve(self, query: str | None, extensions: Any, *, register: bool = True) -> str | None:
        """The query text of a request: as sent, or from its persisted-query hash.

        Returns `query` unchanged when the request does not use the protocol. With
        `register=False` (trusted documents enforced) a text sent with its hash is served
        but never registered, so that the cache only ever holds what it was allowed to.
        """
        sha256_hash = persisted_query_hash(extensions)
        if sha256_hash is None:
            return query
        if self.max_entries == 0:
            raise PersistedQueryNotSupported()
        if query is None:
            found = self._queries.get(sha256_hash)
            if found is None:
                raise PersistedQueryNotFound()
            self._queries.move_to_end(sha256_hash)
            return found
        if hashlib.sha256(query.encode("utf-8")).hexdigest() != sha256_hash:
            raise BadRequest("extensions.persistedQuery.sha256Hash does not match the query")
        if register:
            self._register(sha256_hash, query)
        return query

    def _register(self, sha256_hash: str, query: str) -> None:
        if len(query) > self.max_total_chars:
            return
        previous = self._queries.pop(sha256_hash, None)
        if previous is not None:
            self._total_chars -= len(previous)
        self._queries[sha256_hash] = query
        self._total_chars += len(query)
        while len(self._queries) > self.max_entries or self._total_chars > self.max_total_chars:
            _, evicted = self._queries.popitem(last=False)
            self._total_chars -= len(evicted)


def persisted_query_hash(extensions: Any) -> str | None:
    """The request's `extensions.persistedQuery.sha256Hash` (lower case), None without one;
    a malformed one is refused (BadRequest)."""
    persisted = extensions.get("persistedQuery") if isinstance(extensions, dict) else None
    return None if persisted is None else _checked_hash(persisted)


def _checked_hash(persisted: Any) -> str:
    if not isinstance(persisted, dict):
        raise BadRequest("extensions.persistedQuery must be an object")
    version = persisted.get("version")
    if version != APQ_VERSION or isinstance(version, bool):
        raise BadRequest(f"extensions.persistedQuery.version must be {APQ_VERSION}")
    sha256_hash = persisted.get("sha256Hash")
    if not isinstance(sha256_hash, str) or not _SHA256_HEX.fullmatch(sha256_hash):
        raise BadRequest("extensions.persistedQuery.sha256Hash must be 64 hex digits")
    return sha256_hash.lower()
