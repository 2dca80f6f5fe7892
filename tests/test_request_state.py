"""Per-request state is passed, not ambient: no `ContextVar` in loaders/ or schema/, and in
gateway/ only those listed below, each per-task machinery rather than request state.

Read from the source with `ast`, so an aliased import or `contextvars.ContextVar` is seen;
`contextvars.Context()` (a fresh, empty context for a callback) is not a variable.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The context variables allowed, by module, and why each is not request state.
ALLOWED = {
    # The log lines' correlation id: stamped on every record logged in the request's
    # tasks, by logging's own filters, which take no argument but the record.
    "gateway/observability/logs.py": 1,
    # The client's name for the field-usage counter, read by a schema extension that
    # strawberry builds without arguments; a label, not read by any loader.
    "gateway/observability/field_usage.py": 1,
    # The budget charges of the request, read back for its rate-limit headers (the
    # protection's own bookkeeping, outside this change: the prepared operation's).
    "gateway/protection/rate_limit.py": 1,
}


def context_variables(path: Path) -> int:
    """How often `path` takes `ContextVar` from contextvars: imported by name (aliased or
    not) or read as `contextvars.ContextVar`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "contextvars":
            found += sum(alias.name == "ContextVar" for alias in node.names)
        elif isinstance(node, ast.Attribute) and node.attr == "ContextVar":
            found += 1
    return found


def test_no_context_variable_in_loaders_or_schema() -> None:
    found = {
        str(path.relative_to(ROOT)): count
        for layer in ("loaders", "schema")
        for path in sorted((ROOT / layer).rglob("*.py"))
        if (count := context_variables(path))
    }
    assert found == {}


def test_the_gateway_keeps_only_the_listed_context_variables() -> None:
    found = {
        str(path.relative_to(ROOT)): count
        for path in sorted((ROOT / "gateway").rglob("*.py"))
        if (count := context_variables(path))
    }
    assert found == ALLOWED


def test_the_check_sees_a_context_variable(tmp_path: Path) -> None:
    module = tmp_path / "ambient.py"
    module.write_text(
        "import contextvars\nfrom contextvars import ContextVar as CV\n"
        "a = contextvars.ContextVar('a')\nb: object = contextvars.ContextVar('b', default=None)\n"
    )
    assert context_variables(module) == 3
