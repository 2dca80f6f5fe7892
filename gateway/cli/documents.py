"""`insight-gateway documents FILE.graphql...`: the trusted-documents manifest of a frontend.

Prints Apollo's persisted query manifest of every operation in the files, each with the
fragments it uses (from any of the files), validated against the schema the gateway serves
(the federation subgraph's with --federation or INSIGHT_FEDERATION=true), so that
a frontend build produces the list the gateway enforces (INSIGHT_TRUSTED_DOCUMENTS_FILE).
An operation must be named and its name unique; a file that cannot be read or parsed, or an
operation the schema refuses, exits 2 with the file and the error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    parse,
    print_ast,
    validate,
)
from graphql.utilities import separate_operations

from gateway.cli.deprecations import load_schema
from gateway.protection.trusted_documents import APOLLO_FORMAT, sha256_hex
from gateway.settings import Settings


class DocumentsError(ValueError):
    """A file or an operation cannot go into the manifest; the message names it."""


def add_documents_command(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the command with `add_parser` (the subcommands' `add_parser`)."""
    documents = add_parser(
        "documents",
        help="print the trusted-documents manifest of the operations in .graphql files",
        description=__doc__,
        epilog="exit codes: 0 printed, 2 a file or an operation is refused (named)",
    )
    documents.add_argument("files", nargs="+", metavar="FILE.graphql")
    documents.add_argument(
        "--federation",
        action="store_true",
        help="validate against the federation subgraph's schema, as a gateway serving with "
        "INSIGHT_FEDERATION=true does (the default when that is set)",
    )
    documents.set_defaults(run=run_documents)


def run_documents(args: argparse.Namespace, settings: Settings) -> int:
    try:
        served = load_schema(None, federation=args.federation or settings.federation)
        manifest = build_manifest([Path(name) for name in args.files], served)
    except DocumentsError as error:
        print(f"insight-gateway documents: {error}", file=sys.stderr)
        return 2
    print(json.dumps(manifest, indent=2))
    return 0


def build_manifest(files: list[Path], schema: GraphQLSchema) -> dict[str, object]:
    """Apollo's manifest of every operation in `files`, each validated against `schema`."""
    definitions = []
    source_of: dict[str, Path] = {}
    for path in files:
        for definition in _parsed(path).definitions:
            if isinstance(definition, OperationDefinitionNode):
                if definition.name is None:
                    raise DocumentsError(f"{path}: every operation needs a name")
                name = definition.name.value
                if name in source_of:
                    raise DocumentsError(f"{path}: operation {name} is also in {source_of[name]}")
                source_of[name] = path
            definitions.append(definition)
    operations = []
    for name, document in separate_operations(DocumentNode(definitions=tuple(definitions))).items():
        errors = validate(schema, document)
        if errors:
            shown = "; ".join(error.message for error in errors)
            raise DocumentsError(f"{source_of[name]}: operation {name}: {shown}")
        body = print_ast(document)
        operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
        operations.append(
            {
                "id": sha256_hex(body),
                "name": name,
                "type": operation.operation.value,
                "body": body,
            }
        )
    if not operations:
        raise DocumentsError("the files hold no operation")
    return {"format": APOLLO_FORMAT, "version": 1, "operations": operations}


def _parsed(path: Path) -> DocumentNode:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DocumentsError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise DocumentsError(f"{path}: not UTF-8 text") from None
    except GraphQLError as error:
        raise DocumentsError(f"{path}: {error.message} ({error.locations})") from None
