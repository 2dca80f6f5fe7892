"""Trusted documents: the reviewed operations frontends send, read from a manifest at start.

Two manifest forms are read:
- Apollo's persisted query manifest, `{"format": "apollo-persisted-query-manifest",
  "version": 1, "operations": [{"id", "name", "type", "body"}]}`, whose `id` must be the
  SHA-256 hex of `body` (checked: a wrong one would make a listed hash serve another text);
- Relay's `{"<id>": "<text>"}`, whose ids are the client's own (md5 by default).

Every operation can then be named by the SHA-256 of its text (Apollo's
`extensions.persistedQuery.sha256Hash`, or `documentId: "sha256:<hex>"`), by its manifest id
as a `documentId`, or by its full text. Each is parsed and validated against the schema the
gateway serves when the manifest is loaded; an invalid one stops the gateway, named.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema, OperationDefinitionNode, parse, validate

from loaders.errors import GatewayError

APOLLO_FORMAT = "apollo-persisted-query-manifest"
SHA256_PREFIX = "sha256:"
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
#: The one label of every operation not in the manifest (no GraphQL name has parentheses).
UNLISTED = "(unlisted)"


class PersistedQueryNotInList(GatewayError):
    """Trusted documents are enforced and the operation is not one of them (refused unread)."""

    code = "PERSISTED_QUERY_NOT_IN_LIST"
    default_message = "This operation is not in the gateway's list of trusted documents"


class ManifestError(ValueError):
    """The manifest cannot be used; the message names the file and the operation."""


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class TrustedOperation:
    #: The manifest's id (Apollo: the body's SHA-256; Relay: the client's own).
    id: str
    sha256: str
    #: The label of its metrics: the manifest's name, else the document's operation name.
    name: str
    body: str


class TrustedDocuments:
    """The listed operations, found by hash, by manifest id or by text in one dict look-up."""

    def __init__(self, operations: Iterable[TrustedOperation]) -> None:
        self.operations = tuple(operations)
        self._by_sha256 = {op.sha256: op for op in self.operations}
        self._by_id = {op.id: op for op in self.operations}
        self._by_text = {op.body: op for op in self.operations}

    def __len__(self) -> int:
        return len(self.operations)

    @classmethod
    def from_file(cls, path: str | Path, schema: GraphQLSchema) -> TrustedDocuments:
        """Read a manifest and validate each operation against `schema`."""
        operations = read_manifest(path)
        check_against_schema(operations, schema, str(path))
        return cls(operations)

    def by_sha256(self, sha256: str) -> TrustedOperation | None:
        return self._by_sha256.get(sha256.lower())

    def by_document_id(self, document_id: str) -> TrustedOperation | None:
        """`sha256:<hex>` (the GraphQL-over-HTTP persisted documents draft) or a manifest id."""
        if document_id.startswith(SHA256_PREFIX):
            return self.by_sha256(document_id.removeprefix(SHA256_PREFIX))
        return self._by_id.get(document_id)

    def by_text(self, text: str) -> TrustedOperation | None:
        return self._by_text.get(text)

    def label_of(self, text: str | None) -> str:
        """The metrics label of a query text: its listed name, or the one UNLISTED label."""
        listed = self._by_text.get(text) if text is not None else None
        return listed.name if listed is not None else UNLISTED


def read_manifest(path: str | Path) -> list[TrustedOperation]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ManifestError(f"{path}: cannot read the manifest: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ManifestError(f"{path}: the manifest is not JSON: {error}") from None
    return operations_of(data, str(path))


def operations_of(data: Any, source: str) -> list[TrustedOperation]:
    """The operations of a parsed manifest, in either form; `source` names it in errors."""
    if not isinstance(data, dict):
        raise ManifestError(f"{source}: a manifest is a JSON object")
    if "format" in data:
        operations = _apollo_operations(data, source)
    else:
        operations = _relay_operations(data, source)
    if not operations:
        raise ManifestError(f"{source}: the manifest lists no operation")
    return operations


def _apollo_operations(data: Mapping[str, Any], source: str) -> list[TrustedOperation]:
    if data.get("format") != APOLLO_FORMAT or data.get("version") != 1:
        raise ManifestError(
            f"{source}: the manifest's format must be {APOLLO_FORMAT!r}, version 1 "
            "(or Relay's {{id: text}})"
        )
    entries = data.get("operations")
    if not isinstance(entries, list):
        raise ManifestError(f"{source}: 'operations' must be a list")
    operations = []
    for index, entry in enumerate(entries):
        where = f"{source}: operation {index}"
        if not isinstance(entry, dict):
            raise ManifestError(f"{where} is not an object")
        body, op_id, name = entry.get("body"), entry.get("id"), entry.get("name")
        if not isinstance(body, str) or not isinstance(op_id, str):
            raise ManifestError(f"{where}: 'id' and 'body' must be strings")
        if not isinstance(name, str | None):
            raise ManifestError(f"{where}: 'name' must be a string")
        where = f"{source}: operation {name or op_id}"
        if op_id.lower() != sha256_hex(body):
            raise ManifestError(f"{where}: its id is not the SHA-256 of its body")
        operations.append(_operation(op_id.lower(), body, name, where))
    return operations


def _relay_operations(data: Mapping[str, Any], source: str) -> list[TrustedOperation]:
    operations = []
    for op_id, body in data.items():
        where = f"{source}: operation {op_id}"
        if not isinstance(body, str):
            raise ManifestError(f"{where}: the text must be a string")
        sha256 = sha256_hex(body)
        # A 64-hex id is read as a SHA-256, and must be the text's.
        if _SHA256_HEX.fullmatch(op_id.lower()) and op_id.lower() != sha256:
            raise ManifestError(f"{where}: its id is not the SHA-256 of its text")
        operations.append(_operation(op_id, body, None, where))
    return operations


def _operation(op_id: str, body: str, name: str | None, where: str) -> TrustedOperation:
    try:
        document = parse(body)
    except GraphQLError as error:
        raise ManifestError(f"{where}: {error.message}") from None
    names = [
        d.name.value
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode) and d.name is not None
    ]
    label = name or (names[0] if len(names) == 1 else op_id)
    return TrustedOperation(id=op_id, sha256=sha256_hex(body), name=label, body=body)


def check_against_schema(
    operations: Iterable[TrustedOperation], schema: GraphQLSchema, source: str
) -> None:
    """Raise ManifestError, naming the operation, for the first one `schema` refuses."""
    for operation in operations:
        errors = validate(schema, parse(operation.body))
        if errors:
            raise ManifestError(
                f"{source}: operation {operation.name} does not fit the schema: "
                + "; ".join(error.message for error in errors)
            )
