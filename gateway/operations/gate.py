"""Which text an operation runs, and whether its sender may run it: trusted documents first,
then automatic persisted queries, then the text as sent.

Decided before parsing, on a hash or dict look-up, so that a refused operation costs
neither a parse nor a DynamoDB call. Modes (`INSIGHT_TRUSTED_DOCUMENTS`):
- `off`: everything is served (listed operations may still be named by hash or documentId);
- `audit`: everything is served; each unlisted document is logged once and counted;
- `enforce`: an unlisted operation is refused (PERSISTED_QUERY_NOT_IN_LIST), unless the
  principal holds a bypass role; automatic persisted queries never register a text.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from enum import StrEnum

from graphql import GraphQLSchema

from gateway.operations.operation import BadRequest, Operation
from gateway.operations.persisted_queries import (
    PersistedQueries,
    PersistedQueryNotFound,
    persisted_query_hash,
)
from gateway.protection.trusted_documents import (
    PersistedQueryNotInList,
    TrustedDocuments,
    TrustedOperation,
    sha256_hex,
)
from gateway.settings.requests import RequestSettings
from schema.principal import Principal

logger = logging.getLogger("gateway.trusted_documents")

#: Distinct unlisted documents remembered (as hashes) so that each is logged once.
AUDIT_MEMORY = 10_000
#: Characters of an unlisted text shown in its log line.
AUDIT_TEXT_CHARS = 2_000


class TrustMode(StrEnum):
    OFF = "off"
    AUDIT = "audit"
    ENFORCE = "enforce"


class UntrustedLog:
    """Logs each distinct unlisted document once, remembering at most `maxsize` hashes
    (the least recently seen forgotten first, so a flood of distinct texts cannot grow it)."""

    def __init__(self, maxsize: int = AUDIT_MEMORY) -> None:
        self.maxsize = maxsize
        self._seen: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._seen)

    def record(self, text: str, operation_name: str | None) -> bool:
        """Log `text` if it is new; True when it was."""
        digest = sha256_hex(text)
        if digest in self._seen:
            self._seen.move_to_end(digest)
            return False
        self._seen[digest] = None
        if len(self._seen) > self.maxsize:
            self._seen.popitem(last=False)
        shown = text if len(text) <= AUDIT_TEXT_CHARS else text[:AUDIT_TEXT_CHARS] + "…"
        logger.warning(
            "untrusted operation %s (operationName %s), not in the manifest: %s",
            digest,
            operation_name,
            shown,
        )
        return True


class OperationGate:
    """Resolves each operation's text under the trusted-documents mode."""

    def __init__(
        self,
        *,
        mode: TrustMode,
        trusted: TrustedDocuments | None,
        bypass_roles: frozenset[str],
        persisted_queries: PersistedQueries,
        count_untrusted: Callable[[str], None] = lambda outcome: None,
    ) -> None:
        if mode is not TrustMode.OFF and trusted is None:
            raise ValueError(f"trusted documents in {mode} mode need a manifest")
        self.mode = mode
        self.trusted = trusted
        self.bypass_roles = bypass_roles
        self.persisted_queries = persisted_queries
        self.count_untrusted = count_untrusted
        self.untrusted_log = UntrustedLog()

    @classmethod
    def from_settings(
        cls,
        settings: RequestSettings,
        schema: GraphQLSchema,
        count_untrusted: Callable[[str], None] = lambda outcome: None,
    ) -> OperationGate:
        """The gate of the settings; the manifest, if any, is read and validated against
        `schema` (whatever schema the app serves) here, and ManifestError stops the start."""
        manifest = settings.trusted_documents_file
        return cls(
            mode=TrustMode(settings.trusted_documents),
            trusted=None if manifest is None else TrustedDocuments.from_file(manifest, schema),
            bypass_roles=settings.trusted_documents_bypass_roles,
            persisted_queries=PersistedQueries(settings.persisted_query_cache_size),
            count_untrusted=count_untrusted,
        )

    def bypasses(self, principal: Principal) -> bool:
        return not self.bypass_roles.isdisjoint(principal.roles)

    def query_of(self, operation: Operation, principal: Principal) -> str | None:
        """The text to run; raises a GatewayError for an operation refused or not found."""
        listed = self._listed(operation)
        if listed is not None:
            return listed.body
        if operation.document_id is not None:
            # A documentId names a listed document or nothing: there is no text to fall back on.
            self._refuse_if_enforced(principal)
            shown = operation.document_id[:100]
            raise PersistedQueryNotFound(f"No trusted document has the id {shown!r}")
        self._refuse_if_enforced(principal)
        query = self.persisted_queries.resolve(
            operation.query, operation.extensions, register=self.mode is not TrustMode.ENFORCE
        )
        if self.mode is TrustMode.AUDIT and query is not None and not self.bypasses(principal):
            self.untrusted_log.record(query, operation.operation_name)
            self.count_untrusted("served")
        return query

    def _listed(self, operation: Operation) -> TrustedOperation | None:
        if self.trusted is None:
            return None
        if operation.document_id is not None:
            return self.trusted.by_document_id(operation.document_id)
        sha256 = persisted_query_hash(operation.extensions)
        if sha256 is not None:
            listed = self.trusted.by_sha256(sha256)
            if listed is not None and operation.query not in (None, listed.body):
                raise BadRequest("extensions.persistedQuery.sha256Hash does not match the query")
            return listed
        return None if operation.query is None else self.trusted.by_text(operation.query)

    def _refuse_if_enforced(self, principal: Principal) -> None:
        if self.mode is TrustMode.ENFORCE and not self.bypasses(principal):
            self.count_untrusted("refused")
            raise PersistedQueryNotInList()
