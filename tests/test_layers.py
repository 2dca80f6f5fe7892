"""The layers read downward only: gateway/ -> schema/ -> loaders/, never back up.

Every import is read from the source with `ast` (module level, inside functions and under
TYPE_CHECKING alike), so a lazy import cannot hide a cycle between the layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each layer and the project layers it may import (itself included).
MAY_IMPORT = {
    "loaders": {"loaders"},
    "schema": {"schema", "loaders"},
    "gateway": {"gateway", "schema", "loaders"},
}
MAX_MODULE_LINES = 400
MAX_GATEWAY_TOP_MODULES = 12


def modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


def imported_layers(path: Path) -> Iterator[tuple[int, str]]:
    """(line, top-level package) of every absolute import of a project layer in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".", 1)[0]
            if top in MAY_IMPORT:
                yield node.lineno, top


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for path in modules(layer)
        for line, target in imported_layers(path)
        if target not in MAY_IMPORT[layer]
    ]
    assert upward == []


def test_the_rule_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import gateway.app\n"
        "from schema.context import Context\n"
        "from . import sibling\n"
        "if TYPE_CHECKING:\n"
        "    from gateway.settings import Settings\n"
        "def later() -> None:\n"
        "    import loaders.keys\n",
        encoding="utf-8",
    )
    assert list(imported_layers(source)) == [
        (2, "gateway"),
        (3, "schema"),
        (6, "gateway"),
        (8, "loaders"),
    ]


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_no_module_is_over_the_size_limit(layer: str) -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in modules(layer)
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_gateway_keeps_only_its_entry_points_at_the_top() -> None:
    top = sorted(path.name for path in (ROOT / "gateway").glob("*.py"))
    assert len(top) <= MAX_GATEWAY_TOP_MODULES, top
