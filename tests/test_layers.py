"""The layers read downward only: gateway/ -> schema/ -> loaders/, never back up.

Every import is read from the source with `ast` (module level, inside functions and under
TYPE_CHECKING alike), so a lazy import cannot hide a cycle between the layers.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
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


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: Collection[str]) -> Iterator[str]:
    """The project modules `path` imports (a `from package import name` counts as the
    module `package.name` when there is one, else as `package`), type-only imports too."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                yield name


def import_cycles(graph: Mapping[str, Collection[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        cycles.append(sorted(group))
    return cycles


def test_no_module_imports_itself_back_through_others() -> None:
    paths = [path for layer in MAY_IMPORT for path in modules(layer)]
    known = {module_name(path) for path in paths}
    graph = {
        module_name(path): {
            target for target in imported_modules(path, known) if target != module_name(path)
        }
        for path in paths
    }
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_type_only_cycle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize(("package", "never"), [("bench", "tests"), ("support", "tests")])
def test_the_benchmarks_and_the_support_package_never_import_the_tests(
    package: str, never: str
) -> None:
    offending = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in imported_modules(path, {never})
    ]
    assert offending == []


@pytest.mark.parametrize(
    ("package", "never"),
    [
        ("gateway/subscriptions", "gateway.http"),
        ("gateway/operations", "gateway.http"),
        ("gateway/operations", "gateway.subscriptions"),
    ],
)
def test_the_transports_share_only_the_transport_neutral_package(package: str, never: str) -> None:
    offending = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in imported_modules(path, {never})
    ]
    assert offending == []


def public_names(module: str) -> set[str] | None:
    """`module`'s `__all__`, or None when it declares none."""
    path = ROOT.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            assert isinstance(node, ast.Assign)
            return set(ast.literal_eval(node.value))
    return None


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_a_layer_imports_another_only_through_its_public_surface(layer: str) -> None:
    # A name imported from another layer is in its module's `__all__` (or is a module).
    outside = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}.{alias.name}"
        for path in modules(layer)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and node.module
        and node.module.split(".")[0] in MAY_IMPORT
        and node.module.split(".")[0] != layer
        for alias in node.names
        if not ROOT.joinpath(*node.module.split("."), alias.name).with_suffix(".py").exists()
        and not ROOT.joinpath(*node.module.split("."), alias.name).is_dir()
        and alias.name not in (public_names(node.module) or set())
    ]
    assert outside == []
